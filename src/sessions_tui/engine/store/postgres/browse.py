"""The session table's pages on PostgreSQL: its text filters and counts over PostgreSQL's own indexes.

`BrowseRepository`'s filters, sorts and keyset paging are plain SQL and read the same on both stores;
what SQLite reads from its own indexes is written again here. A plain text filter is `ILIKE` over the
searched columns (`search_sql`'s columns; PostgreSQL folds case as its locale does, not ASCII only as
SQLite's `LIKE`); where the server has `pg_trgm`, the schema adds a trigram index over those columns
(`sessions_search`, postgres/schema.py) and a needle of three characters or more is looked up in it
first, which only narrows. Which one is chosen by the database, once. A `~words` filter keeps the
sessions whose newest `RANK_WINDOW` matching messages say the words (the last one a prefix), from the
text index's `tsvector` (text_search.py). A count reads its own snapshot from the pool, so it never
holds up the next page; where SQLite's count stops itself from a progress handler, a watcher beside a
PostgreSQL count asks the server to cancel it (`cancel_safe`) once `cancelled()` turns true.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from sessions_tui.engine.search.matching import INDEXED_LENGTH, SEARCH_COLUMNS, fts_words, like_pattern
from sessions_tui.engine.store.browsing.browse import BrowseRepository, Cursor, SessionFilter
from sessions_tui.engine.store.postgres.schema import SEARCHED_TEXT
from sessions_tui.engine.store.postgres.text_search import ts_query
from sessions_tui.engine.store.tables.sessions import StoredSession
from sessions_tui.engine.store.tables.text_index import RANK_WINDOW


class PgBrowseRepository(BrowseRepository):
    """Sessions by filter, in pages, on PostgreSQL."""

    UNINDEXED = ""
    _trigrams: bool | None = None

    def _matching(self, needle: str) -> tuple[str, list[Any]]:
        """`needle` in any searched column, case-insensitively (no text on PostgreSQL holds a NUL)."""
        if "\x00" in needle:
            return "FALSE", []
        condition = " OR ".join(f"{column} ILIKE ? ESCAPE '\\'" for column in SEARCH_COLUMNS)
        return f"({condition})", [like_pattern(needle)] * len(SEARCH_COLUMNS)

    def _searched(
        self, conn: Any, where: list[str], args: list[Any], needle: str, *, counting: bool
    ) -> tuple[str, str, list[Any]]:
        condition, search_args = self._matching(needle)
        if len(needle) >= INDEXED_LENGTH and search_args and self._has_trigrams(conn):
            condition = f"({SEARCHED_TEXT} ILIKE ? ESCAPE '\\' AND {condition})"
            search_args = [like_pattern(needle), *search_args]
        return "sessions", condition, search_args

    def _has_trigrams(self, conn: Any) -> bool:
        """Whether this database has the trigram index (the server had `pg_trgm` when it was made)."""
        if self._trigrams is None:
            self._trigrams = conn.execute("SELECT to_regclass('sessions_search')").fetchone()[0] is not None
        return self._trigrams

    def _saying(self, conn: Any, words: str) -> tuple[str, list[Any]]:
        found = fts_words(words)
        if not found:
            return "FALSE", []
        condition = f"""session_id IN (SELECT tr.session_id FROM (
                SELECT rowid AS id FROM transcript_text WHERE words @@ to_tsquery('simple', ?)
                ORDER BY rowid DESC LIMIT {RANK_WINDOW}
            ) AS m JOIN transcript AS tr ON tr.rowid = m.id)"""
        return condition, [ts_query(found, prefix_last=True)]

    def keyset(
        self,
        flt: SessionFilter,
        *,
        order_by: str = "updated",
        descending: bool = True,
        limit: int = 100,
        after: Cursor | None = None,
        before: Cursor | None = None,
    ) -> tuple[list[StoredSession], list[Cursor]]:
        """`BrowseRepository.keyset`, its cursors' numbers as SQLite gives them (`sort_tokens` is
        NUMERIC here: an int, or a float, never a `Decimal`, which a cursor sent as JSON cannot hold)."""
        sessions, cursors = super().keyset(
            flt, order_by=order_by, descending=descending, limit=limit, after=after, before=before
        )
        return sessions, [(_number(value), key) for value, key in cursors]

    def count(self, flt: SessionFilter, cancelled: Callable[[], bool] | None = None) -> int:
        """How many sessions the filter lets through, from a snapshot of its own; -1 if `cancelled()`
        turned true meanwhile (the server's count is then cancelled within `WATCH_SECONDS`)."""
        import psycopg

        if cancelled is not None and cancelled():
            return -1
        with self.db.read() as conn:
            where, args, source = self._where(conn, flt, counting=True)
            watching = _Watch()
            if cancelled is not None:
                threading.Thread(target=watching.run, args=(conn.raw, cancelled), daemon=True).start()  # type: ignore[attr-defined]
            try:
                sql = f"SELECT COUNT(*) FROM {source} WHERE {' AND '.join(where)}"
                total = int(conn.execute(sql, args).fetchone()[0])
            except psycopg.errors.QueryCanceled:
                if cancelled is not None and cancelled():
                    return -1
                raise
            finally:
                watching.stop()
        return -1 if cancelled is not None and cancelled() else total

    def close(self) -> None:
        """Nothing of its own to close: counts read from the store's pool."""


WATCH_SECONDS = 0.005
"""How often a count's watcher asks whether the count is still wanted."""


class _Watch:
    """A count's watcher: cancels the statement a connection runs once `cancelled()` is true (every
    `WATCH_SECONDS` until it ends), never after `stop()` (the lock keeps a late cancel off the
    transaction's next statement)."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self._lock = threading.Lock()

    def run(self, conn: Any, cancelled: Callable[[], bool]) -> None:
        while not self._done.wait(WATCH_SECONDS):
            with self._lock:
                if not self._done.is_set() and cancelled():  # again until it ends: it may not have begun
                    conn.cancel_safe()

    def stop(self) -> None:
        with self._lock:
            self._done.set()


def _number(value: Any) -> Any:
    """A `Decimal` as the int or float SQLite would give; anything else as it is."""
    if not isinstance(value, Decimal):
        return value
    return int(value) if value == value.to_integral_value() else float(value)
