"""Lists of sessions: the newest-first list `sessions_list` reads, and the filtered, sorted pages views browse.

Both filter on the index's derived columns and order on its indexes. `browse_keyset` pages by the
sort value and key of the row before the page (keyset paging), reading a page's keys in order from
the sort column's index (store/browse_schema.py), then the whole rows of just that page, so a deep
page costs what the first one does; `browse_count` counts the filtered set apart, so a view can
paint first and count after.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sessions_tui.engine.search.matching import TEXT_PREFIX, search_sql, text_words
from sessions_tui.engine.store.browsing.search_plan import COVERING, KnownMatches, plan_search
from sessions_tui.engine.store.connection import Database
from sessions_tui.engine.store.tables.sessions import SESSION_COLUMNS, StoredSession, row_to_session
from sessions_tui.engine.store.tables.text_index import sessions_saying

Cursor = tuple[Any, str]
"""Where a page starts or ends: a row's sort value and its key."""

SORT_COLUMNS = {
    "updated": "updated_at",
    "key": "sort_display",
    "label": "sort_label",
    "model": "sort_model",
    "tokens": "sort_tokens",
    "status": "sort_status",
    "channel": "channel",
    "kind": "sort_kind",
}
"""Sort name -> the indexed column (generated columns of store/browse_schema.py)."""


def _sql_order(value: Any) -> tuple[int, Any]:
    """SQLite's order of values of any type: NULL, then numbers, then text, then blobs (a cursor
    from a client may hold a value of another type than its column's)."""
    if value is None:
        return (0, 0)
    if isinstance(value, (int, float)):
        return (1, value)
    return (2, value) if isinstance(value, str) else (3, bytes(value))


@dataclass
class SessionFilter:
    """Which sessions a browsing view shows; every field narrows the set (None = no limit)."""

    main_key: str = "main"
    agent_ids: list[str] | None = None
    scope_agent: str | None = None  # sessions of this agent are limited by `scope`
    scope: str | None = None  # "self" or "tree", relative to `requester`
    requester: str | None = None
    spawned_by: str | None = None
    kinds: list[str] | None = None
    active_since: int | None = None
    search: str | None = None
    include_archived: bool = False
    include_global: bool = False
    keys: list[str] | None = None
    except_keys: list[str] | None = None  # every session but these (a status filter's `idle`)
    shown_as_main: str | None = None  # the key the viewer sees as `main` (for sorting by key)


# The kind as shown for a main key other than `main` (`sort_kind` assumes `main`).
_KIND_EXPR = (
    "(CASE WHEN key = 'global' THEN 'main' WHEN rest = ? THEN 'main' WHEN kind = 'main' THEN 'other' ELSE kind END)"
)


class BrowseRepository:
    """Sessions by filter, in pages."""

    UNINDEXED = "+"
    """SQLite's prefix keeping a filter's column off its index (so a page is read along the sort's)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._count_conn: sqlite3.Connection | None = None
        self._count_lock = threading.Lock()
        self._known = KnownMatches()

    def list_sessions(
        self,
        *,
        limit: int | None = None,
        offset: int = 0,
        active_since: int | None = None,
        include_global: bool = True,
        include_unknown: bool = True,
        spawned_by: str | None = None,
        agent_id: str | None = None,
        label: str | None = None,
        search: str | None = None,
        include_archived: bool = False,
    ) -> tuple[list[StoredSession], bool]:
        """Sessions newest first (the filters of OpenClaw's `sessions.list`); returns (rows, has_more)."""
        where = ["listable = 1"]
        args: list[Any] = []
        if not include_archived:
            where.append("archived_at IS NULL")
        if active_since is not None:
            where.append("updated_at >= ?")
            args.append(active_since)
        if not include_global:
            where.append("key != 'global'")
        if not include_unknown:
            where.append("key != 'unknown'")
        if spawned_by is not None:
            where.append("key NOT IN ('global', 'unknown')")
            where.append("(spawned_by = ? OR parent_session_key = ?)")
            args += [spawned_by, spawned_by]
        if agent_id is not None:
            where.append("agent_id = ?")
            args.append(agent_id)
        if label is not None:
            where.append("label = ?")
            args.append(label)
        if search:
            condition, search_args = self._matching(search)
            where.append(condition)
            args += search_args
        sql = f"SELECT {SESSION_COLUMNS} FROM sessions WHERE {' AND '.join(where)} ORDER BY updated_at DESC, key"
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            args += [limit + 1, offset]
        elif offset:
            sql += " LIMIT -1 OFFSET ?"
            args.append(offset)
        with self.db.peek() as conn:
            rows = conn.execute(sql, args).fetchall()
        has_more = limit is not None and len(rows) > limit
        if has_more:
            rows = rows[:limit]
        return [row_to_session(r, self.db.state_dir) for r in rows], has_more

    def agent_ids(self) -> list[str]:
        """The agents that have sessions (those of `agent_ids`), by skipping along the agent index
        from one agent to the next: a lookup per agent instead of a pass over every session."""
        sql = (
            "WITH RECURSIVE a(id) AS (SELECT min(agent_id) FROM sessions UNION ALL "
            "SELECT (SELECT min(agent_id) FROM sessions WHERE agent_id > a.id) FROM a WHERE a.id IS NOT NULL) "
            "SELECT id FROM a WHERE id IS NOT NULL"
        )
        with self.db.read() as conn:
            return [r[0] for r in conn.execute(sql)]

    def _where(self, conn: Any, flt: SessionFilter, *, counting: bool = False) -> tuple[list[str], list[Any], str]:
        """The filter as WHERE conditions (joined by AND), their arguments, and what to read them
        from: the table, or for a search that must test most rows, the index that covers them
        (`counting`: a count of a search not narrowed by rowid tests every row)."""
        source = "sessions"
        where = ["listable = 1", "key != 'unknown'"]
        args: list[Any] = []
        if not flt.include_global:
            where.append("key != 'global'")
        if not flt.include_archived:
            where.append("archived_at IS NULL")
        if flt.agent_ids is not None:
            # `+`: not through an index, so the page is read in order from the sort column's index
            # and stops after `limit` rows instead of sorting every match.
            where.append(f"{self.UNINDEXED}agent_id IN ({', '.join('?' * len(flt.agent_ids)) or 'NULL'})")
            args += flt.agent_ids
        if flt.scope_agent is not None and flt.scope in ("self", "tree"):
            mine = "key = ?" if flt.scope == "self" else "(key = ? OR spawned_by = ? OR parent_session_key = ?)"
            where.append(f"(agent_id != ? OR {mine})")
            args += [flt.scope_agent] + [flt.requester] * (1 if flt.scope == "self" else 3)
        if flt.spawned_by is not None:
            where.append("(spawned_by = ? OR parent_session_key = ?)")
            args += [flt.spawned_by, flt.spawned_by]
        if flt.kinds is not None:
            kind, kind_args = _kind(flt)
            where.append(f"{self.UNINDEXED}{kind} IN ({', '.join('?' * len(flt.kinds)) or 'NULL'})")
            args += [*kind_args, *flt.kinds]
        if flt.active_since is not None:
            where.append("updated_at >= ?")
            args.append(flt.active_since)
        words = text_words(flt.search)
        if words is not None:  # `~words`: the sessions whose messages say them (the search index)
            condition, search_args = self._saying(conn, words)
            where.append(condition)
            args += search_args
        elif flt.search and not flt.search.startswith(TEXT_PREFIX):
            source, condition, search_args = self._searched(conn, where, args, flt.search, counting=counting)
            where.append(condition)
            args += search_args
        if flt.keys is not None:
            where.append(f"key IN ({', '.join('?' * len(flt.keys)) or 'NULL'})")
            args += flt.keys
        if flt.except_keys:
            where.append(f"key NOT IN ({', '.join('?' * len(flt.except_keys))})")
            args += flt.except_keys
        return where, args, source

    def _matching(self, needle: str) -> tuple[str, list[Any]]:
        """`list_sessions`'s condition matching `needle` in a searched column, and its arguments."""
        return search_sql(needle)

    def _saying(self, conn: Any, words: str) -> tuple[str, list[Any]]:
        """The condition keeping the sessions whose messages say `words` (a `~words` filter)."""
        return f"(rowid IN ({', '.join(map(str, sessions_saying(conn, words))) or 'NULL'}))", []

    def _searched(
        self, conn: Any, where: list[str], args: list[Any], needle: str, *, counting: bool
    ) -> tuple[str, str, list[Any]]:
        """What to read a plain text filter from, its condition and the condition's arguments
        (search_plan.py; `where` and `args`: the rest of the filter)."""
        source, condition, search_args = plan_search(conn, where, args, needle, self._known_matches())
        if counting and source == "sessions" and not condition.startswith("(rowid IN"):
            source = COVERING
        return source, condition, search_args

    def _known_matches(self) -> KnownMatches:
        """This store's kept matches of rare searches (search_plan.py)."""
        return self._known

    def _rows(self, conn: Any, keys: list[str]) -> list[StoredSession]:
        """The whole rows of `keys`, in that order."""
        found = {}
        for chunk in range(0, len(keys), 500):
            part = keys[chunk : chunk + 500]
            marks = ", ".join("?" * len(part))
            for row in conn.execute(f"SELECT {SESSION_COLUMNS} FROM sessions WHERE key IN ({marks})", part):
                found[row["key"]] = row
        return [row_to_session(found[k], self.db.state_dir) for k in keys if k in found]

    def visible_keys(self, flt: SessionFilter) -> list[str]:
        """The keys the filter lets through, unordered (which of some keys a requester may see)."""
        with self.db.read() as conn:
            where, args, source = self._where(conn, flt)
            return [r[0] for r in conn.execute(f"SELECT key FROM {source} WHERE {' AND '.join(where)}", args)]

    def page(
        self,
        flt: SessionFilter,
        *,
        order_by: str = "updated",
        descending: bool = True,
        limit: int | None = 200,
        offset: int = 0,
        count: bool = True,
    ) -> tuple[list[StoredSession], int]:
        """A filtered, sorted page by position and the size of the whole filtered set (-1 unless
        `count`). Paging views use `browse_keyset`, whose deep pages do not skip rows one by one."""
        with self.db.read() as conn:
            where, args, source = self._where(conn, flt)
        column, order_args = _kind(flt) if order_by == "kind" else (SORT_COLUMNS.get(order_by, "updated_at"), [])
        if order_by == "key":  # the viewer's own main is shown, and sorted, as `main`
            column, order_args = "(CASE WHEN key = ? THEN 'main' ELSE sort_display END)", [flt.shown_as_main or ""]
        clause = " AND ".join(where)
        direction = "DESC" if descending else "ASC"
        sql = f"SELECT key FROM {source} WHERE {clause} ORDER BY {column} {direction}, key {direction}"
        page_args: list[Any] = []
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            page_args = [limit, offset]
        with self.db.read() as conn:
            keys = [r[0] for r in conn.execute(sql, (*args, *order_args, *page_args))]
            sessions = self._rows(conn, keys)
            total = conn.execute(f"SELECT COUNT(*) FROM {source} WHERE {clause}", args).fetchone()[0] if count else -1
        return sessions, total

    def count(self, flt: SessionFilter, cancelled: Callable[[], bool] | None = None) -> int:
        """How many sessions the filter lets through; -1 if `cancelled()` turned true meanwhile.

        On a connection of its own, so a count never holds up the store's other reads (the next
        page), and stops within a few milliseconds of being cancelled. A search the trigram index
        cannot narrow tests every row, from the index that covers the searched columns."""
        with self._count_lock:
            if self._count_conn is None:
                self._count_conn = sqlite3.connect(self.db.db_path, timeout=60.0, check_same_thread=False)
            conn = self._count_conn
            where, args, source = self._where(conn, flt, counting=True)
            # Every 100,000 SQLite steps (about 2 ms): a count the next keystroke made stale stops
            # before it takes a core from that keystroke's page (a 2-core machine has no spare one).
            conn.set_progress_handler((lambda: int(cancelled())) if cancelled else None, 100_000)
            try:
                return int(
                    conn.execute(f"SELECT COUNT(*) FROM {source} WHERE {' AND '.join(where)}", args).fetchone()[0]
                )
            except sqlite3.OperationalError:
                if cancelled is not None and cancelled():
                    return -1
                raise
            finally:
                conn.set_progress_handler(None, 0)

    def close(self) -> None:
        """Close the counts' own connection (the store closes its own)."""
        with self._count_lock:
            if self._count_conn is not None:
                self._count_conn.close()
                self._count_conn = None

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
        """The page of sessions just after the row `after` (or just before `before`; neither: the
        first page) in the sorted, filtered order, and each row's cursor. Ties are broken by key in
        the sort's direction, so one index per column serves both (read backwards for the other).
        Fewer than `limit` rows before `before` read the first page."""
        with self.db.read() as conn:
            where, args, source = self._where(conn, flt)
        column, col_args = _kind(flt) if order_by == "kind" else (SORT_COLUMNS.get(order_by, "updated_at"), [])
        backwards = before is not None
        cursor = before if backwards else after
        ascending = descending == backwards  # the order rows are read in: the reverse one before `before`
        special = flt.shown_as_main if order_by == "key" and flt.shown_as_main else None
        page_where, page_args = list(where), list(args)
        if special:  # shown (and sorted) as `main`, unlike its `sort_display`: placed below
            page_where.append("key != ?")
            page_args.append(special)
        if cursor is not None:
            beyond = ">" if ascending else "<"
            page_where.append(f"{column} {beyond}= ? AND ({column} {beyond} ? OR key {beyond} ?)")
            page_args += [*col_args, cursor[0], *col_args, cursor[0], cursor[1]]
        direction = "ASC" if ascending else "DESC"
        sql = (
            f"SELECT {column}, key FROM {source} WHERE {' AND '.join(page_where)} "
            f"ORDER BY {column} {direction}, key {direction} LIMIT ?"
        )

        def first(a: Cursor, b: Cursor) -> bool:  # whether `a` is read before `b`
            if a[0] != b[0]:
                return (_sql_order(a[0]) < _sql_order(b[0])) == ascending
            return bool(a[1] < b[1]) == ascending

        with self.db.read() as conn:
            found: list[Cursor] = [(r[0], r[1]) for r in conn.execute(sql, (*col_args, *page_args, *col_args, limit))]
            if special:
                hit = conn.execute(f"SELECT 1 FROM sessions WHERE {' AND '.join(where)} AND key = ?", (*args, special))
                mine: Cursor = ("main", special)
                if hit.fetchone() and (cursor is None or first(cursor, mine)):
                    at = next((i for i, c in enumerate(found) if first(mine, c)), len(found))
                    found = (found[:at] + [mine] + found[at:])[:limit]
            if backwards:
                if len(found) < limit:
                    return self.keyset(flt, order_by=order_by, descending=descending, limit=limit)
                found.reverse()
            sessions = self._rows(conn, [key for _, key in found])
        shown = {s.key for s in sessions}
        return sessions, [c for c in found if c[1] in shown]


def _kind(flt: SessionFilter) -> tuple[str, list[Any]]:
    """The kind as shown, as an indexed column when the main key is the default one."""
    return ("sort_kind", []) if flt.main_key == "main" else (_KIND_EXPR, [flt.main_key])
