"""`sessions_list` (OpenClaw's tool; docs/decisions.md D3, D8–D11): the sessions a requester may see.

Size cap: with `messageLimit`, the inline messages of one page together stay within 80 KB of
compact JSON (`LIST_MESSAGES_MAX_BYTES`, sessions_history's cap), shared out row by row (see
`attach_messages`); a row that lost messages to it says `messagesCapped: true`, and so does the
page (`messagesCapped` is on every page with `messageLimit` > 0).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Required, TypedDict, cast

from pydantic import Field

from sessions_tui.engine.redaction.sanitize import (
    HISTORY_MAX_BYTES,
    HistoryResult,
    sanitize_history,
    strip_tool_messages,
)
from sessions_tui.engine.run_end import SESSION_STATUSES
from sessions_tui.engine.sessions.entry import is_number
from sessions_tui.engine.sessions.keys import (
    SAFE_SESSION_ID_RE,
    SESSION_KINDS,
    classify_session_kind,
    entry_channel,
)
from sessions_tui.engine.store.tables.sessions import StoredSession
from sessions_tui.tools.calling.base import (
    ToolArgs,
    ToolCall,
    ToolSpec,
    active_since,
    read_integer,
    read_offset,
    read_string_list,
)
from sessions_tui.tools.requester.access import RequesterContext, guard_for

DEFAULT_LIMIT = 100
MAX_LIMIT = 200
MAX_MESSAGE_LIMIT = 20
# All inline messages of one page together: never more than one sessions_history answer.
LIST_MESSAGES_MAX_BYTES = HISTORY_MAX_BYTES
STATUSES = SESSION_STATUSES

DESCRIPTION = (
    "List visible sessions with optional filters for kind, recent activity, and last messages. "
    "Use this to discover a target session before calling sessions_history or sessions_send."
)


class ListArgs(ToolArgs):
    kinds: tuple[str, ...] | None = Field(None, description="Only these kinds: main, group, cron, hook, node, other.")
    limit: int = Field(DEFAULT_LIMIT, ge=1, description="Maximum rows (default 100, at most 200).")
    active_minutes: int | None = Field(
        None, alias="activeMinutes", ge=1, description="Only sessions updated within this many minutes."
    )
    message_limit: int = Field(
        0,
        alias="messageLimit",
        ge=0,
        description="Include the last N messages of each session (0-20, default 0); all rows' "
        "messages together are capped at 80 KB (oldest dropped first; messagesCapped says so).",
    )
    offset: int = Field(0, ge=0, description="Skip this many rows (paging).")
    include_archived: bool = Field(
        False, alias="includeArchived", description="Also list archived sub-agent sessions (default false)."
    )

    @classmethod
    def read(cls, params: dict[str, Any]) -> dict[str, Any]:
        kinds = [k.lower() for k in read_string_list(params, "kinds") or []]
        kinds = [k for k in kinds if k in SESSION_KINDS]
        limit = read_integer(params, "limit", minimum=1)
        message_limit = read_integer(params, "messageLimit", minimum=0)
        return {
            "kinds": tuple(dict.fromkeys(kinds)) or None,
            "limit": min(MAX_LIMIT, limit) if limit is not None else DEFAULT_LIMIT,
            "active_minutes": read_integer(params, "activeMinutes", minimum=1),
            "message_limit": min(message_limit or 0, MAX_MESSAGE_LIMIT),
            "offset": read_offset(params),
            "include_archived": params.get("includeArchived") is True,
        }


class ListedRow(TypedDict, total=False):
    """A row of `sessions_list` as it is answered: the fields `session_row.SessionRow` has a value for,
    in its order; `key`, `kind` and `channel` always."""

    key: Required[str]
    kind: Required[str]
    channel: Required[str]
    origin: dict[str, Any]
    spawnedBy: str
    parentSessionKey: str
    label: str
    displayName: str
    deliveryContext: dict[str, Any]
    updatedAt: int | float
    sessionId: str
    model: str
    contextTokens: int | float
    totalTokens: int | float
    estimatedCostUsd: int | float
    status: str
    startedAt: int | float
    endedAt: int | float
    runtimeMs: int | float
    childSessions: list[str]
    thinkingLevel: str
    fastMode: bool
    verboseLevel: str
    reasoningLevel: str
    elevatedLevel: str
    responseUsage: str
    systemSent: bool
    abortedLastRun: bool
    sendPolicy: str
    lastChannel: str
    lastTo: str
    lastAccountId: str
    transcriptPath: str
    archived: bool
    messages: list[Any]
    messagesCapped: bool


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _num(value: Any) -> int | float | None:
    return value if is_number(value) else None


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _present(**fields: Any) -> dict[str, Any]:
    """The fields that have a value, in the order given (a row leaves out what it lacks)."""
    return {name: value for name, value in fields.items() if value is not None}


def build_row(call: ToolCall, ctx: RequesterContext, session: StoredSession, kind: str) -> ListedRow:
    """One row, as `session_row.SessionRow` declares it (its fields, their order and types, absent ones left
    out). Every value is read here as its field's type, so the row is built as a dict without a
    validation pass (a page is built on every list and every table page; tests hold it to
    `SessionRow`)."""
    engine = call.engine
    entry = session.entry

    def display(key: str) -> str:
        return engine.display(key, ctx.requester_agent_id)

    raw_delivery, raw_origin = entry.get("deliveryContext"), entry.get("origin")
    delivery: dict[str, Any] = raw_delivery if isinstance(raw_delivery, dict) else {}
    origin: dict[str, Any] = raw_origin if isinstance(raw_origin, dict) else {}
    d_channel, d_to = _str(delivery.get("channel")), _str(delivery.get("to"))
    d_account = _str(delivery.get("accountId"))
    thread = delivery.get("threadId")
    thread = thread if isinstance(thread, str) or _num(thread) is not None else None
    o_provider, o_account = _str(origin.get("provider")), _str(origin.get("accountId"))
    spawned_by, parent = _str(entry.get("spawnedBy")), _str(entry.get("parentSessionKey"))
    children = entry.get("childSessions")
    status = _str(entry.get("status"))
    session_id = _str(entry.get("sessionId")) or session.session_id
    updated_at = _num(entry.get("updatedAt"))
    row = _present(
        key=display(session.key),
        kind=kind,
        channel=entry_channel(session.key, kind, entry),
        origin=_present(provider=o_provider, accountId=o_account) if (o_provider or o_account) else None,
        spawnedBy=display(spawned_by) if spawned_by else None,
        parentSessionKey=display(parent) if parent else None,
        label=_str(entry.get("label")),
        displayName=_str(entry.get("displayName")),
        deliveryContext=_present(channel=d_channel, to=d_to, accountId=d_account, threadId=thread)
        if (d_channel or d_to or d_account or thread is not None)
        else None,
        updatedAt=updated_at if updated_at is not None else session.updated_at,
        sessionId=session_id,
        model=_str(entry.get("model")),
        contextTokens=_num(entry.get("contextTokens")),
        totalTokens=_num(entry.get("totalTokens")),
        estimatedCostUsd=_num(entry.get("estimatedCostUsd")),
        status=status if status in STATUSES else None,
        startedAt=_num(entry.get("startedAt")),
        endedAt=_num(entry.get("endedAt")),
        runtimeMs=_num(entry.get("runtimeMs")),
        childSessions=[display(c) for c in children if isinstance(c, str)] if isinstance(children, list) else None,
        thinkingLevel=_str(entry.get("thinkingLevel")),
        fastMode=_bool(entry.get("fastMode")),
        verboseLevel=_str(entry.get("verboseLevel")),
        reasoningLevel=_str(entry.get("reasoningLevel")),
        elevatedLevel=_str(entry.get("elevatedLevel")),
        responseUsage=_str(entry.get("responseUsage")),
        systemSent=_bool(entry.get("systemSent")),
        abortedLastRun=_bool(entry.get("abortedLastRun")),
        sendPolicy=_str(entry.get("sendPolicy")),
        lastChannel=d_channel or _str(entry.get("lastChannel")),
        lastTo=d_to or _str(entry.get("lastTo")),
        lastAccountId=d_account or _str(entry.get("lastAccountId")),
        transcriptPath=transcript_path(session, session_id),
        archived=True if session.archived_at is not None else None,
    )
    return cast(ListedRow, row)


def transcript_path(session: StoredSession, session_id: str) -> str | None:
    """The mirror file, or an explicit `sessionFile` inside the sessions directory."""
    if not SAFE_SESSION_ID_RE.match(session_id):
        return None
    session_file = session.entry.get("sessionFile")
    if isinstance(session_file, str) and session_file.strip():
        mirror = Path(session.mirror_path)
        candidate = (mirror.parent / session_file).resolve()
        if candidate.parent == mirror.parent.resolve():
            return str(candidate)
    return session.mirror_path  # already spelled as `Path` spells it (store/tables/sessions.py)


def inline_messages(call: ToolCall, session: StoredSession, limit: int, max_bytes: int) -> HistoryResult:
    """The last `limit` messages, tool results dropped, sanitised and capped as history is (docs/decisions.md D3)."""
    page = call.engine.store.transcripts.history(session.key, limit=limit)
    kept = strip_tool_messages(page.messages)[-limit:]
    return sanitize_history(kept, call.engine.redactor, max_bytes)


def attach_messages(call: ToolCall, listed: list[tuple[ListedRow, StoredSession]], limit: int) -> bool:
    """Each row's last `limit` messages, all rows' together within `LIST_MESSAGES_MAX_BYTES`.

    Rows are served in page order (newest first); each may use an equal share of what the rows
    before it left, so a row with short messages leaves more to the rest. Within its share a row
    is capped as sessions_history is: oldest messages dropped first, then the newest alone, then
    the placeholder (a share is never smaller than 80 KB / 200 rows, more than the placeholder).
    Returns whether any row was capped; such a row carries `messagesCapped: true`.
    """
    remaining = LIST_MESSAGES_MAX_BYTES
    capped = False
    for index, (row, session) in enumerate(listed):
        result = inline_messages(call, session, limit, remaining // (len(listed) - index))
        row["messages"] = result.messages
        if result.dropped_messages:
            row["messagesCapped"] = capped = True
        remaining -= result.bytes
    return capped


def sessions_list(call: ToolCall, params: dict[str, Any]) -> dict[str, Any]:
    args = ListArgs.model_validate(params)
    engine = call.engine
    ctx = RequesterContext.of(call)
    restrict = ctx.restrict_to_spawned
    sessions, has_more = engine.store.browse.list_sessions(
        limit=args.limit,
        offset=args.offset,
        active_since=active_since(engine.now(), args.active_minutes) if args.active_minutes is not None else None,
        include_global=not restrict,
        include_unknown=not restrict,
        spawned_by=ctx.effective_requester_key if restrict else None,
        include_archived=args.include_archived,
    )
    guard = guard_for(call, ctx, "list")
    listed: list[tuple[ListedRow, StoredSession]] = []
    for session in sessions:
        if guard.check(session.key) is not None:
            continue
        if session.key == "unknown":
            continue
        if session.key == "global" and engine.alias.alias != "global":
            continue
        kind = classify_session_kind(session.key, session.entry.get("kind"), engine.alias)
        if args.kinds and kind not in args.kinds:
            continue
        listed.append((build_row(call, ctx, session, kind), session))
    capped = attach_messages(call, listed, args.message_limit) if args.message_limit > 0 else None
    rows = [row for row, _ in listed]
    result: dict[str, Any] = {"count": len(rows), "sessions": rows, "offset": args.offset, "hasMore": has_more}
    if capped is not None:
        result["messagesCapped"] = capped
    if has_more:
        result["nextOffset"] = args.offset + len(sessions)
    return result


SPEC = ToolSpec(
    name="sessions_list",
    label="Sessions",
    description=DESCRIPTION,
    arguments=ListArgs,
    read=sessions_list,
)
