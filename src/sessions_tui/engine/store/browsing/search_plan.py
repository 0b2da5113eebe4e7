"""How the table's pages read a text search, whatever the needle: a page or a count costs about
the same for a needle of one letter as for a long one, and for a rare needle as for a common one.

- The trigram index (browse_schema.py) narrows a needle of three letters or more that few
  sessions hold: only those are tested.
- Otherwise, a needle holding a letter that few sessions hold (`x`, `q`, the first key typed) is
  narrowed by the letter index (`sessions_letters`): only the sessions holding all its letters
  are tested.
- A needle that many of the newest sessions match is tested along the sort order: a page's worth
  of matches comes soon, and the read stops there.
- Otherwise (a rare needle of common letters) every session is tested once, from the index that
  covers the searched columns.

The matches of a rare needle (the last two cases) are kept while the store does not change: the
next keystroke's needle holds this one, so its matches are among them, and only those are tested
(as are the page after, the count, and the same needle again once a key is erased).

`search_sql`'s per-field condition decides every match in every plan.
"""

from __future__ import annotations

import threading
from typing import Any

from sessions_tui.engine.search.matching import search_phrase, search_sql
from sessions_tui.engine.store.browse_schema import LETTER_MASK, LETTERS

COVERING = "sessions INDEXED BY sessions_browse"
LETTERED = "sessions INDEXED BY sessions_letters"

NARROW = 2000
"""A search the trigram index (or the letter index) finds in fewer sessions than this is read through it."""

SAMPLE = 4000
"""How many of the newest sessions `_dense` tests a search on."""

KEPT = 2000
"""At most this many matches of a rare search are kept (more: tested from the covering index)."""


class KnownMatches:
    """The matches of the last rare searches, by connection, store version and filter."""

    def __init__(self, size: int = 16) -> None:
        self._lock = threading.Lock()
        self._size = size
        self._kept: list[tuple[tuple[Any, ...], str, list[int]]] = []

    def within(self, where: tuple[Any, ...], needle: str) -> list[int] | None:
        """The fewest kept matches of a needle that `needle` holds, under the same filter."""
        with self._lock:
            found = [rowids for key, kept, rowids in self._kept if key == where and kept in needle]
        return min(found, key=len) if found else None

    def keep(self, where: tuple[Any, ...], needle: str, rowids: list[int]) -> None:
        with self._lock:
            self._kept = [*self._kept, (where, needle, rowids)][-self._size :]


def plan_search(
    conn: Any, where: list[str], args: list[Any], needle: str, known: KnownMatches
) -> tuple[str, str, list[Any]]:
    """Where to read a search from, its condition and the condition's arguments; `where` and
    `args` are the rest of the filter."""
    narrow = _narrow(conn, needle)
    condition, search_args = search_sql(needle, indexed=narrow)
    if narrow:
        return "sessions", condition, search_args
    version = (id(conn), conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes)
    key = (*version, " AND ".join(where), *args)
    lowered = needle.lower()
    rowids = known.within(key, lowered)
    if rowids is None:
        rowids = _lettered(conn, where, args, condition, search_args, letter_mask(needle))
        if rowids is None:
            if _dense(conn, where, args, condition, search_args):
                return "sessions", condition, search_args
            sql = f"SELECT rowid FROM {COVERING} WHERE {' AND '.join([*where, condition])} LIMIT ?"
            rowids = [r[0] for r in conn.execute(sql, (*args, *search_args, KEPT + 1))]
            if len(rowids) > KEPT:
                return COVERING, condition, search_args
        known.keep(key, lowered, rowids)
    among = ", ".join(str(int(r)) for r in rowids) or "NULL"
    return "sessions", f"(rowid IN ({among}) AND {condition})", search_args


def letter_mask(needle: str) -> int:
    """The bits of the letter index (browse_schema.LETTER_MASK) that every session matching
    `needle` has: those of its letters, lowered as `like_pattern` lowers them (0: none)."""
    lowered = needle.lower()
    return sum(1 << (len(LETTERS) - 1 - bit) for bit, letter in enumerate(LETTERS) if letter in lowered)


def _lettered(
    conn: Any, where: list[str], args: list[Any], condition: str, search_args: list[str], need: int
) -> list[int] | None:
    """The matches among the sessions holding every letter of `need`, if fewer than NARROW do
    (None otherwise, or with no letters to go by). Masks holding `need` are at least `need`, and
    with the rarest letters in the highest bits, few masks above it lack a rare one: the index is
    read from there, the rows are looked up only for the masks that hold `need`."""
    if not need:
        return None
    holds = [f"({LETTER_MASK}) >= ?", f"(({LETTER_MASK}) & ?) = ?"]
    sql = f"SELECT count(*) FROM (SELECT 1 FROM {LETTERED} WHERE listable = 1 AND {' AND '.join(holds)} LIMIT ?)"
    if int(conn.execute(sql, (need, need, need, NARROW)).fetchone()[0]) >= NARROW:
        return None
    sql = f"SELECT rowid FROM {LETTERED} WHERE {' AND '.join([*where, *holds, condition])}"
    return [r[0] for r in conn.execute(sql, (*args, need, need, need, *search_args))]


def _narrow(conn: Any, needle: str) -> bool:
    """Whether to look `needle` up in the trigram index: it can, and few sessions match it."""
    phrase = search_phrase(needle)
    if phrase is None:
        return False
    sql = "SELECT count(*) FROM (SELECT 1 FROM sessions_search WHERE sessions_search MATCH ? LIMIT ?)"
    return int(conn.execute(sql, (phrase, NARROW)).fetchone()[0]) < NARROW


def _dense(conn: Any, where: list[str], args: list[Any], condition: str, search_args: list[str]) -> bool:
    """Whether at least one in a hundred of the newest sessions the rest of the filter (`where`)
    lets through match: then a page's worth of matches comes soon along any sort order. Sessions
    the table never lists (a cron job's runs) are not in the sample: they made needles they match
    look dense, and their pages slow."""
    sql = (
        "SELECT count(*) FROM (SELECT key, label, display_name, session_id, channel "
        f"FROM {COVERING} WHERE {' AND '.join(where)} LIMIT ?) WHERE {condition}"
    )
    return int(conn.execute(sql, (*args, SAMPLE, *search_args)).fetchone()[0]) * 100 >= SAMPLE
