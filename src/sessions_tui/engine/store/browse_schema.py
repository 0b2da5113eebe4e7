"""The indexes the dashboard's table pages on: one per sort column (read forwards or backwards), and
a trigram index for its text search, so a page, a sort or a keystroke reads about a page of rows
whatever the size of the store (schema 3; one index per column since schema 5).

The sorted values that live inside the JSON entry or are expressions (model, tokens, status, the
label shown, the key as shown, the kind as shown) are virtual generated columns: computed, never
stored, but indexable. `sessions_search` is an FTS5 trigram table kept in step by triggers; it
only narrows the candidates (the sessions holding every trigram of the needle), the search's own
condition (session_search.py) still decides. So does it after `sessions_letters` (schema 5), an
index of which rare letters each session's searched fields hold, which narrows a needle of one or
two letters.
"""

from __future__ import annotations

import sqlite3

GENERATED = {
    "sort_model": "coalesce(json_extract(entry, '$.model'), '')",
    "sort_tokens": "coalesce(json_extract(entry, '$.totalTokens'), 0)",
    "sort_status": "coalesce(json_extract(entry, '$.status'), '')",
    "sort_label": "coalesce(label, display_name, '')",
    # The key as shown (docs/decisions.md D9) but for the viewer's own main, which browse.py
    # places itself: agent main's cron, hook and node sessions keep their bare spelling.
    "sort_display": (
        "CASE WHEN key = 'global' THEN 'main' WHEN agent_id = 'main' AND (rest LIKE 'cron:%' "
        "OR rest LIKE 'hook:%' OR rest LIKE 'node-%' OR rest LIKE 'node:%') THEN rest ELSE key END"
    ),
    # The kind as shown when the main key is `main` (the default); another main key sorts on the expression.
    "sort_kind": (
        "CASE WHEN key = 'global' THEN 'main' WHEN rest = 'main' THEN 'main' "
        "WHEN kind = 'main' THEN 'other' ELSE kind END"
    ),
}
"""Generated column -> its expression."""

LETTERS = "qxzjvykwphulsromi"
"""The letters a session's letter mask records, the rarest in its highest bit. The others would
narrow nothing: a-f and the digits are in nearly every session id (a UUID), g, n and t in every
key (`agent:`)."""

SEARCH_TEXT = (
    "lower(key || ' ' || coalesce(label, '') || ' ' || coalesce(display_name, '') || ' ' || session_id "
    "|| ' ' || channel)"
)
"""The searched fields (SEARCHED) as one text, lowered as LIKE folds case (ASCII letters only)."""

LETTER_MASK = " | ".join(
    f"((instr(search_text, '{letter}') > 0) << {len(LETTERS) - 1 - bit})" for bit, letter in enumerate(LETTERS)
)
"""Which of LETTERS a session's searched fields hold, as bits: the expression of `sessions_letters`."""

SORTED = ("sort_model", "sort_tokens", "sort_status", "sort_label", "sort_display", "sort_kind", "channel")
SEARCHED = ("key", "label", "display_name", "session_id", "channel")

_NEW = ", ".join("new." + c for c in SEARCHED)
_INSERT = f"INSERT INTO sessions_search(rowid, {', '.join(SEARCHED)}) VALUES (new.rowid, {_NEW});"
_INSERT_TRIGGER = f"CREATE TRIGGER IF NOT EXISTS sessions_search_insert AFTER INSERT ON sessions BEGIN {_INSERT} END"
_TRIGGERS = (
    _INSERT_TRIGGER,
    "CREATE TRIGGER IF NOT EXISTS sessions_search_delete AFTER DELETE ON sessions BEGIN "
    "DELETE FROM sessions_search WHERE rowid = old.rowid; END",
    f"CREATE TRIGGER IF NOT EXISTS sessions_search_update AFTER UPDATE OF {', '.join(SEARCHED)} ON sessions BEGIN "
    f"DELETE FROM sessions_search WHERE rowid = old.rowid; {_INSERT} END",
)
_ROWID_ROOM = 1 << 62
"""Below this rowid, a new row's rowid is the largest plus one (SQLite picks at random only at 2**63 - 1)."""


def defer_search(conn: sqlite3.Connection) -> int | None:
    """Stop indexing new sessions one by one, in the caller's transaction: the insert trigger goes
    until `catch_up_search` (an index write per trigger costs more than the session's own insert).
    Returns the watermark to hand it (the largest rowid so far), None if it cannot defer."""
    top = int(conn.execute("SELECT coalesce(max(rowid), 0) FROM sessions").fetchone()[0])
    if top >= _ROWID_ROOM:
        return None
    conn.execute("DROP TRIGGER IF EXISTS sessions_search_insert")
    return top


def catch_up_search(conn: sqlite3.Connection, watermark: int) -> None:
    """Index, with one statement, the sessions inserted since `defer_search` (their rowids are all
    above its watermark; those an update trigger already indexed are left), and bring the insert
    trigger back. The same transaction drops and restores the trigger: no committed state lacks it,
    and a transaction that dies on the way leaves the index as it was."""
    columns = ", ".join(SEARCHED)
    conn.execute(
        f"INSERT INTO sessions_search(rowid, {columns}) SELECT rowid, {columns} FROM sessions WHERE rowid > ?1 "
        "AND rowid NOT IN (SELECT rowid FROM sessions_search WHERE rowid > ?1)",
        (watermark,),
    )
    conn.execute(_INSERT_TRIGGER)


def drop_paired_indexes(conn: sqlite3.Connection) -> None:
    """Schema 4 and older: the ascending and descending index of each sort column (ties were
    broken by key ascending in both directions) go; `add_browse_indexes` adds one each instead."""
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'").fetchall():
        if name.startswith("sessions_sort_") and name.endswith(("_asc", "_desc")):
            conn.execute(f'DROP INDEX "{name}"')


def add_browse_indexes(conn: sqlite3.Connection, *, fill_search: bool) -> None:
    """Add what is missing of the generated columns, their indexes and the search index; with
    `fill_search`, index the sessions already stored (an older file)."""
    have = {r[1] for r in conn.execute("PRAGMA table_xinfo(sessions)")}
    for column, expression in {**GENERATED, "search_text": SEARCH_TEXT}.items():
        if column not in have:
            conn.execute(f"ALTER TABLE sessions ADD COLUMN {column} GENERATED ALWAYS AS ({expression}) VIRTUAL")
    # Ties are broken by key in the sort's direction, so one index serves both directions (read
    # backwards for a descending sort). Only listed sessions, and with the columns the usual filters
    # test, so a page is read from the index alone until the rows it keeps are looked up.
    for column in ("updated_at", *SORTED):
        conn.execute(
            f"CREATE INDEX IF NOT EXISTS sessions_sort_{column} ON sessions("
            f"{column}, key, archived_at, agent_id) WHERE listable = 1"
        )
    # The letter mask of listed sessions, on an index of its own (rarest letters first): a needle
    # too short for the trigram index, or common there, is narrowed to the sessions holding all its
    # letters by reading the index from the needle's mask up. An expression over a generated column
    # (the text, lowered once per write) rather than a column of its own, which every read of a
    # whole row would compute.
    conn.execute(f"CREATE INDEX IF NOT EXISTS sessions_letters ON sessions(({LETTER_MASK})) WHERE listable = 1")
    conn.execute(
        # Trigrams only, no positions or sizes (detail none, columnsize 0): a fraction of the cost per
        # session written, and still enough to narrow a search to the sessions holding all its trigrams.
        f"CREATE VIRTUAL TABLE IF NOT EXISTS sessions_search USING fts5({', '.join(SEARCHED)}, "
        "tokenize = 'trigram', detail = 'none', columnsize = 0)"
    )
    for statement in _TRIGGERS:
        conn.execute(statement)
    if fill_search:
        conn.execute("DELETE FROM sessions_search")
        columns = ", ".join(SEARCHED)
        conn.execute(f"INSERT INTO sessions_search(rowid, {columns}) SELECT rowid, {columns} FROM sessions")
