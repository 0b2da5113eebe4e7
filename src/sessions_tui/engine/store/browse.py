"""Lists of sessions: the newest-first list `sessions_list` reads, and the filtered, sorted pages views browse.

Both filter on the index's derived columns and order on its indexes; `browse` reads the keys of a
page from the covering index `sessions_browse` first, then the whole rows of just that page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sessions_tui.engine.session_search import search_sql
from sessions_tui.engine.store.connection import StoreBase
from sessions_tui.engine.store.sessions import StoredSession, row_to_session

SORT_COLUMNS = {
    "updated": "updated_at",
    "key": "DISPLAY",
    "label": "coalesce(label, display_name, '')",
    "model": "coalesce(json_extract(entry, '$.model'), '')",
    "tokens": "coalesce(json_extract(entry, '$.totalTokens'), 0)",
    "status": "coalesce(json_extract(entry, '$.status'), '')",
    "channel": "channel",
    "kind": "KIND",
}


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
    shown_as_main: str | None = None  # the key the viewer sees as `main` (for sorting by key)


# How keys are shown (docs/decisions.md D9), for sorting: the viewer's main is `main`, agent main's cron,
# hook and node sessions keep their bare spelling.
_DISPLAY_EXPR = (
    "(CASE WHEN key = ? OR key = 'global' THEN 'main' WHEN agent_id = 'main' AND (rest LIKE 'cron:%' "
    "OR rest LIKE 'hook:%' OR rest LIKE 'node-%' OR rest LIKE 'node:%') THEN rest ELSE key END)"
)


class BrowsePart(StoreBase):
    """Sessions by filter, in pages."""

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
            condition, search_args = search_sql(search)
            where.append(condition)
            args += search_args
        sql = f"SELECT * FROM sessions WHERE {' AND '.join(where)} ORDER BY updated_at DESC, key"
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            args += [limit + 1, offset]
        elif offset:
            sql += " LIMIT -1 OFFSET ?"
            args.append(offset)
        with self._lock:
            rows = self._conn.execute(sql, args).fetchall()
        has_more = limit is not None and len(rows) > limit
        if has_more:
            rows = rows[:limit]
        return [row_to_session(r, self.state_dir) for r in rows], has_more

    def browse(
        self,
        flt: SessionFilter,
        *,
        order_by: str = "updated",
        descending: bool = True,
        limit: int | None = 200,
        offset: int = 0,
        count: bool = True,
    ) -> tuple[list[StoredSession], int]:
        """A filtered, sorted page of sessions and the size of the whole filtered set."""
        kind_expr = (
            "(CASE WHEN key = 'global' THEN 'main' WHEN rest = ? THEN 'main' "
            "WHEN kind = 'main' THEN 'other' ELSE kind END)"
        )
        where = ["listable = 1", "key != 'unknown'"]
        args: list[Any] = []
        if not flt.include_global:
            where.append("key != 'global'")
        if not flt.include_archived:
            where.append("archived_at IS NULL")
        if flt.agent_ids is not None:
            # `+agent_id`: not through the agent index, so the page can be read in order from
            # `sessions_browse` and stop after `limit` rows instead of sorting every match.
            where.append(f"+agent_id IN ({', '.join('?' * len(flt.agent_ids)) or 'NULL'})")
            args += flt.agent_ids
        if flt.scope_agent is not None and flt.scope in ("self", "tree"):
            mine = "key = ?" if flt.scope == "self" else "(key = ? OR spawned_by = ? OR parent_session_key = ?)"
            where.append(f"(agent_id != ? OR {mine})")
            args += [flt.scope_agent] + [flt.requester] * (1 if flt.scope == "self" else 3)
        if flt.spawned_by is not None:
            where.append("(spawned_by = ? OR parent_session_key = ?)")
            args += [flt.spawned_by, flt.spawned_by]
        if flt.kinds is not None:
            where.append(f"{kind_expr} IN ({', '.join('?' * len(flt.kinds)) or 'NULL'})")
            args += [flt.main_key, *flt.kinds]
        if flt.active_since is not None:
            where.append("updated_at >= ?")
            args.append(flt.active_since)
        if flt.search:
            condition, search_args = search_sql(flt.search)
            where.append(condition)
            args += search_args
        if flt.keys is not None:
            where.append(f"key IN ({', '.join('?' * len(flt.keys)) or 'NULL'})")
            args += flt.keys
        clause = " AND ".join(where)
        column = SORT_COLUMNS.get(order_by, "updated_at")
        order_args: list[Any] = []
        if column == "KIND":
            column = kind_expr
            order_args.append(flt.main_key)
        elif column == "DISPLAY":
            column = _DISPLAY_EXPR
            order_args.append(flt.shown_as_main or "")
        direction = "DESC" if descending else "ASC"
        # Filter and order on the covering index `sessions_browse` (small entries, no JSON),
        # then read the whole rows of just the page.
        sql = f"SELECT key FROM sessions WHERE {clause} ORDER BY {column} {direction}, key"
        page_args: list[Any] = []
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            page_args = [limit, offset]
        with self.read() as conn:
            keys = [r[0] for r in conn.execute(sql, (*args, *order_args, *page_args))]
            found = {}
            for chunk in range(0, len(keys), 500):
                part = keys[chunk : chunk + 500]
                for row in conn.execute(f"SELECT * FROM sessions WHERE key IN ({', '.join('?' * len(part))})", part):
                    found[row["key"]] = row
            total = conn.execute(f"SELECT COUNT(*) FROM sessions WHERE {clause}", args).fetchone()[0] if count else -1
        rows = [found[k] for k in keys if k in found]
        return [row_to_session(r, self.state_dir) for r in rows], total
