"""A gateway's session rows as the dashboard reads them: shaped, filtered, sorted, the spawn tree, the
owner of a key, search hits, and what a gateway backend has not.

An OpenClaw gateway answers rows as its `sessions.list` / `sessions_list` lists them; the table wants
them with what the store adds locally (`_key`, the canonical key; `key`, as a person reads it;
`_send`, `_sendReason`) and filtered, sorted and paged by the same rules as the local table. Both
gateway backends (`http`: polled over its HTTP tool API; `live`: over its WebSocket) read their rows
through these functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, cast

from sessions_tui.backend.contract.types import Capability
from sessions_tui.backend.row_sort import row_sort_key
from sessions_tui.engine.run_end import SESSION_STATUSES
from sessions_tui.engine.search.matching import row_matches
from sessions_tui.engine.sessions.entry import display_name, is_number
from sessions_tui.engine.sessions.keys import entry_channel

if TYPE_CHECKING:
    from sessions_tui.engine.sessions.entry import SessionEntry
    from sessions_tui.engine.subagents.records import ChildView
    from sessions_tui.tools.reading.browse import BrowsePage, BrowseQuery, BrowseRow
    from sessions_tui.tools.reading.sessions_search import SearchOutcome

Row = dict[str, Any]

LACKS = {
    Capability.ANNOUNCES: "an OpenClaw gateway reports no sub-agent announces",
    Capability.CONTROL: "an OpenClaw gateway's /send is set in OpenClaw itself",
    Capability.LEDGER: "an OpenClaw gateway keeps no send ledger",
    Capability.EXPLAIN: "an OpenClaw gateway does not say why it refuses",
    Capability.EXPORT: "export reads sessions-tui's own store; an OpenClaw gateway has none",
    Capability.ABORT: "an OpenClaw gateway stops a run over its WebSocket only",
    Capability.SESSION_OPS: "creating, resetting, renaming, archiving or deleting an OpenClaw gateway's sessions "
    "is done over its WebSocket (its sessions.* methods): connect with ws:// or without --remote-http-only",
    Capability.COMPACT: "compacting an OpenClaw gateway's session is done over its WebSocket (sessions.compact): "
    "connect with ws:// or without --remote-http-only",
    Capability.HOOKS: "an OpenClaw gateway takes its hooks itself (POST /hooks/agent on it)",
    Capability.CRON: "an OpenClaw gateway's cron jobs (its cron.* methods) are managed with 'openclaw cron', "
    "not from here yet",
    Capability.USAGE: "an OpenClaw gateway's usage and cost is read over its WebSocket (sessions.usage): "
    "connect with ws:// or without --remote-http-only",
}
"""What a gateway has not, each as the line a face says for it (importing: as any server says).
The socket backend has `ABORT`, `SESSION_OPS`, `COMPACT` and `USAGE`; the HTTP one has not."""


def listed_rows(answer: Any) -> list[Row]:
    """The rows of a `sessions.list` / `sessions_list` answer that name a key."""
    rows = answer.get("sessions") if isinstance(answer, dict) else None
    return [r for r in rows or [] if isinstance(r, dict) and isinstance(r.get("key"), str)]


OUR_KINDS = ("main", "group", "cron", "hook", "node")
"""The kinds sessions_list names besides `other` (engine/sessions/keys.py `classify_session_kind`)."""


def in_our_words(listed: Row, key: str) -> Row:
    """A WebSocket row's `kind`, `channel` and `status` in sessions_list's words: the socket's `kind`
    is `direct|group|global|unknown` and its `classification` `main|group|subagent|hook|cron…`; a
    run under way is its `hasActiveRun`; its tokens come as `inputTokens` and `outputTokens`.
    (Rows of the HTTP tool API use our words already.)"""
    if "classification" not in listed:
        return listed
    classification = listed.get("classification")
    kind = str(classification) if classification in OUR_KINDS else "group" if listed.get("kind") == "group" else "other"
    out = {**listed, "kind": kind, "channel": entry_channel(key, kind, cast("SessionEntry", listed))}
    tokens = [listed.get(k) for k in ("inputTokens", "outputTokens")]
    if not is_number(listed.get("totalTokens")) and any(is_number(t) for t in tokens):
        out["totalTokens"] = sum(t for t in tokens if is_number(t))  # the socket's rows count them apart
    if listed.get("hasActiveRun") is True:
        out["status"] = "running"
    elif listed.get("status") not in SESSION_STATUSES:
        out.pop("status", None)
    return out


def shape_row(listed: Row, canonical: Callable[[str], str], display: Callable[[str], str]) -> Row:
    """A gateway row as the table's: its own fields in our words, `key` as shown, `_key` canonical,
    the send policy."""
    key = canonical(str(listed["key"]))
    listed = in_our_words(listed, key)
    policy = listed.get("sendPolicy")
    return {
        **listed,
        "key": display(key),
        "_key": key,
        "_send": policy if policy in ("allow", "deny") else "allow",
        "_sendReason": "session override" if policy in ("allow", "deny") else "default",
    }


def filter_rows(rows: Iterable[Row], query: BrowseQuery, now_ms: int) -> list[Row]:
    """The rows a browse query keeps, sorted as the local table sorts them (ties by key)."""
    since = now_ms - query.active_minutes * 60_000 if query.active_minutes else None
    keys, skipped = set(query.keys or ()), set(query.except_keys or ())
    kept = [
        r
        for r in rows
        if (query.include_archived or not r.get("archived"))
        and (not query.kinds or r.get("kind") in query.kinds)
        and (since is None or (r.get("updatedAt") or 0) >= since)
        and (not query.search or row_matches(r, query.search))
        and (query.keys is None or r["_key"] in keys)
        and r["_key"] not in skipped
    ]
    kept.sort(key=lambda r: r["_key"])
    kept.sort(key=row_sort_key(query.order_by), reverse=query.descending)
    return kept


def page_of(rows: Iterable[Row], query: BrowseQuery, now_ms: int, offset: int, limit: int) -> BrowsePage:
    """A browse page of the rows: filtered and sorted (`filter_rows`), `limit` from `offset`, the
    filtered set counted (table rows, plain dicts here, as `Backend.browse_rows` hands them on)."""
    from sessions_tui.tools.reading.browse import BrowsePage

    kept = filter_rows(rows, query, now_ms)
    return BrowsePage(rows=cast("list[BrowseRow]", kept[offset : offset + limit]), total=len(kept), offset=offset)


def operator_pairs(
    rows: Iterable[Row], search: str | None, limit: int, redact: Callable[[str], str]
) -> list[tuple[str, str]]:
    """(key, label) of the rows for the operator's pickers, labels redacted."""
    kept = [r for r in rows if not search or row_matches(r, search)]
    return [(r["_key"], redact(display_name(r))) for r in kept[:limit]]


def owner_of(rows: Iterable[Row], key: str, canonical: Callable[[str], str]) -> str | None:
    """The canonical key of the row a key in any spelling, `main` or a sessionId names."""
    wanted = canonical(key)
    for r in rows:
        if r["_key"] == wanted or r.get("sessionId") == key.strip():
            return str(r["_key"])
    return None


def child_views(rows: Iterable[Row], parent: str) -> list[ChildView]:
    """The rows spawned by `parent` (a canonical key) as the spawn panel's children."""
    from sessions_tui.engine.subagents.records import ChildView

    out = []
    for r in rows:
        if parent not in (r.get("spawnedBy"), r.get("parentSessionKey")):
            continue
        status = str(r.get("status") or "done")
        running = status == "running" or r.get("hasActiveRun") is True
        out.append(
            ChildView(
                run_id=str(r.get("sessionId") or r["_key"]),
                child_key=r["_key"],
                label=r.get("label"),
                task=display_name(r) or str(r["key"]),
                status="running" if running else "failed" if status == "failed" else "done",
                started_at=int(r.get("startedAt") or r.get("updatedAt") or 0),
                ended_at=r.get("endedAt") if isinstance(r.get("endedAt"), int) else None,
                total_tokens=r.get("totalTokens"),
            )
        )
    return out


def search_outcome(found: Any, canonical: Callable[[str], str], redact: Callable[[str], str]) -> SearchOutcome:
    """A gateway's search answer (`sessions.search` or its `sessions_search` tool: `{results,
    indexing?, truncated?}`) as the seam's outcome: snippets redacted, unmarked, no message numbers."""
    from sessions_tui.tools.reading.sessions_search import SearchHit, SearchOutcome

    if not isinstance(found, dict) or "results" not in found:
        refused = found.get("error") or found.get("status") if isinstance(found, dict) else None
        return SearchOutcome(refused=str(refused or "refused"))
    hits = [
        SearchHit(
            sessionKey=str(r.get("sessionKey", "")),
            key=canonical(str(r.get("sessionKey", ""))),
            sessionId=str(r.get("sessionId", "")),
            messageId=r.get("messageId") if isinstance(r.get("messageId"), str) else None,
            role=str(r.get("role", "")),
            timestamp=int(r.get("timestamp") or 0),
            snippet=redact(str(r.get("snippet", ""))),
            score=float(r.get("score") or 0.0),
        )
        for r in found["results"]
        if isinstance(r, dict)
    ]
    return SearchOutcome(hits=hits, indexing=found.get("indexing") is True, truncated=found.get("truncated") is True)
