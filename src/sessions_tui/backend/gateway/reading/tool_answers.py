"""A gateway's answers shaped as our session tools answer: `sessions_list` from the roster, `agents_list`
from `agents.list`.

A face calls the same tool on every backend and reads the same fields back; what the socket backend
cannot take from a tool of the gateway's it builds here from what the socket gave.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sessions_tui.backend.gateway.reading.listing import Row, filter_rows
from sessions_tui.engine.sessions.keys import DEFAULT_AGENT_ID


def listed_row(row: Row) -> dict[str, Any]:
    """A roster row as a `sessions_list` row: the fields of `tools.reading.session_row.SessionRow` it has,
    of their type (a gateway field of another shape is left out)."""
    from sessions_tui.tools.reading.session_row import SessionRow

    fields = SessionRow.model_fields
    picked = {k: v for k, v in row.items() if k in fields and v is not None and not k.startswith("_")}
    try:
        return SessionRow.model_validate(picked).dump()  # type: ignore[return-value]
    except ValueError:
        kept = {}
        for name, value in picked.items():  # the fields that do fit, one by one
            try:
                SessionRow.model_validate({"key": row["key"], "kind": row["kind"], "channel": "", name: value})
            except ValueError:
                continue
            kept[name] = value
        return SessionRow.model_validate(kept).dump()  # type: ignore[return-value]


def list_result(rows: Iterable[Row], args: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """`sessions_list` over the roster: filtered, sorted and paged as the local tool does."""
    from sessions_tui.tools.reading.browse import BrowseQuery
    from sessions_tui.tools.reading.sessions_list import ListArgs

    read = ListArgs.read(args)
    query = BrowseQuery(
        kinds=list(read["kinds"] or []),
        active_minutes=read["active_minutes"],
        include_archived=read["include_archived"],
    )
    kept = filter_rows(rows, query, now_ms)
    offset, limit = read["offset"], read["limit"]
    page = [listed_row(r) for r in kept[offset : offset + limit]]
    has_more = offset + limit < len(kept)
    result: dict[str, Any] = {"count": len(page), "sessions": page, "offset": offset, "hasMore": has_more}
    if has_more:
        result["nextOffset"] = offset + len(page)
    return result


def agents_result(answer: Any) -> dict[str, Any]:
    """`agents_list` from `agents.list`: every agent the gateway has, the default one first."""
    agents = [a for a in (answer.get("agents") if isinstance(answer, dict) else None) or [] if isinstance(a, dict)]
    default = answer.get("defaultId") if isinstance(answer, dict) else None
    requester = default if isinstance(default, str) and default else DEFAULT_AGENT_ID
    listed = []
    for agent in sorted(agents, key=lambda a: (a.get("id") != requester, str(a.get("id")))):
        entry: dict[str, Any] = {"id": str(agent.get("id"))}
        if isinstance(agent.get("name"), str) and agent["name"].strip():
            entry["name"] = agent["name"].strip()
        entry["configured"] = True
        listed.append(entry)
    return {"requester": requester, "allowAny": True, "agents": listed}
