"""What a text filter over sessions matches, said once: the table's filter, the acting-as picker
and the live rows the dashboard merges all match the same fields, case-insensitively, as a
substring — the key, the label, the display name, the session id and the channel."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SEARCH_COLUMNS = ("key", "label", "display_name", "session_id", "channel")
"""The sessions table's columns a filter searches."""

ROW_FIELDS = ("_key", "label", "displayName", "sessionId", "channel")
"""The same fields as a browsed row names them (`_key`: the stored key; `key` is as shown)."""


INDEXED_LENGTH = 3
"""Needles at least this long are looked up in the trigram index `sessions_search` first."""


def search_sql(needle: str, *, indexed: bool = False) -> tuple[str, list[str]]:
    """A WHERE condition on `sessions` matching `needle` in any searched column, and its arguments.

    `indexed`: a needle of three characters or more is first looked up in the trigram index
    (store/browse_schema.py, `search_phrase`), which folds case at least as widely as `lower`, so it
    only narrows the candidates; the per-column condition after it is what decides, for every caller.
    """
    if "\x00" in needle:  # LIKE reads its pattern only up to a NUL: `a<NUL>b` would match `…a`
        condition = " OR ".join(f"instr(lower({column}), ?) > 0" for column in SEARCH_COLUMNS)
        args = [needle.lower()] * len(SEARCH_COLUMNS)
    else:
        condition = " OR ".join(f"{column} LIKE ? ESCAPE '\\'" for column in SEARCH_COLUMNS)
        args = [like_pattern(needle)] * len(SEARCH_COLUMNS)
    phrase = search_phrase(needle)
    if not indexed or phrase is None:
        return f"({condition})", args
    lookup = "rowid IN (SELECT rowid FROM sessions_search WHERE sessions_search MATCH ?)"
    return f"({lookup} AND ({condition}))", [phrase, *args]


def like_pattern(needle: str) -> str:
    """`needle` as a LIKE pattern matching it anywhere. SQLite's LIKE folds ASCII letters only, as
    its `lower` does, so on the lowered needle it matches what `instr(lower(column), needle)`
    matches, at about a third of the cost (no lowered copy of every value): that is what lets a
    one- or two-letter needle, too short for the trigram index, test every session in time."""
    escaped = needle.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def search_phrase(needle: str) -> str | None:
    """The trigram index's query for `needle`: every trigram of it, anywhere in the session's
    searched fields (a superset of the matches; None: too short for the index). A trigram holding
    a NUL is left out (FTS5 cannot read one in a query): fewer trigrams still find a superset."""
    lowered = needle.lower()
    every = (lowered[i : i + 3] for i in range(len(lowered) - INDEXED_LENGTH + 1))
    trigrams = dict.fromkeys(t for t in every if "\x00" not in t)
    return " AND ".join('"' + t.replace('"', '""') + '"' for t in trigrams) or None


def fts_words(query: str) -> list[str]:
    """The words of a search of what messages say (`sessions_search`, a `~words` filter): split at
    whitespace, and at NUL, which the index's tokenizer takes for a separator as it does every
    control character, but which would end FTS5's reading of the query inside a quoted word
    (`unterminated string`)."""
    return query.replace("\x00", " ").split()


TEXT_PREFIX = "~"
"""A filter starting with it finds sessions by what their messages say (the search index,
store/tables/text_index.py), not by key, label or channel: `~deploy failed`."""


def text_words(needle: str | None) -> str | None:
    """The words of a transcript filter (`~words`); None: not one, or no words yet."""
    if not needle or not needle.startswith(TEXT_PREFIX):
        return None
    words = needle[len(TEXT_PREFIX) :]
    return words.strip() if fts_words(words) else None


def row_matches(row: Mapping[str, Any], needle: str) -> bool:
    """Whether a listed row matches `needle` as the store's search would (a transcript filter
    cannot be told from the row: its sessions are the store's answer)."""
    if needle.startswith(TEXT_PREFIX):
        return text_words(needle) is None
    lowered = needle.lower()
    return any(lowered in str(row.get(field) or "").lower() for field in ROW_FIELDS)
