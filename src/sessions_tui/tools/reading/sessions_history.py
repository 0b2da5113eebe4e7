"""`sessions_history` (OpenClaw's tool; docs/decisions.md D2, D11–D13): a visible session's sanitised messages."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from sessions_tui.engine.redaction.sanitize import sanitize_history, strip_tool_messages
from sessions_tui.tools.calling.base import (
    ToolArgs,
    ToolCall,
    ToolSpec,
    read_integer,
    read_offset,
    read_string,
)
from sessions_tui.tools.requester.access import RequesterContext, guard_for
from sessions_tui.tools.requester.resolution import Failed, check_exists, resolve_visible

DEFAULT_LIMIT = 200
MAX_LIMIT = 1000

DESCRIPTION = (
    "Fetch sanitized message history for a visible session. Supports limits and optional tool "
    "messages; use this to inspect another session before replying, debugging, or resuming work."
)


class HistoryArgs(ToolArgs):
    session_key: str = Field(
        alias="sessionKey", description="Session key, main, current, or a sessionId from sessions_list."
    )
    limit: int = Field(DEFAULT_LIMIT, ge=1, description="Maximum messages (default 200).")
    include_tools: bool = Field(False, alias="includeTools", description="Include tool results (default false).")
    offset: int = Field(0, ge=0, description="Skip this many of the newest messages (paging back).")

    @classmethod
    def read(cls, params: dict[str, Any]) -> dict[str, Any]:
        limit = read_integer(params, "limit", minimum=1)
        return {
            "session_key": read_string(params, "sessionKey", required=True),
            "limit": min(MAX_LIMIT, limit) if limit is not None else DEFAULT_LIMIT,
            "include_tools": bool(params.get("includeTools", params.get("include_tools"))),
            "offset": read_offset(params),
        }


def _failure(failed: Failed) -> dict[str, Any]:
    return {"status": failed.status, "error": failed.error}


def sessions_history(call: ToolCall, params: dict[str, Any]) -> dict[str, Any]:
    args = HistoryArgs.model_validate(params)
    engine = call.engine
    ctx = RequesterContext.of(call)
    resolved = resolve_visible(engine, args.session_key, ctx, guard_for(call, ctx, "history"))
    if isinstance(resolved, Failed):
        return _failure(resolved)
    failed = check_exists(engine, resolved)
    if failed:
        return _failure(failed)
    page = engine.store.transcripts.history(resolved.key, limit=args.limit, offset=args.offset)
    messages = page.messages if args.include_tools else strip_tool_messages(page.messages)
    result = sanitize_history(messages, engine.redactor)
    has_more = page.start > 0
    payload: dict[str, Any] = {
        "sessionKey": resolved.display_key,
        "messages": result.messages,
        "truncated": result.truncated,
        "droppedMessages": result.dropped_messages,
        "contentTruncated": result.content_truncated,
        "contentRedacted": result.content_redacted,
        "bytes": result.bytes,
        "hardCapped": result.hard_capped,
        "totalBytes": result.bytes,
        "offset": args.offset,
        "hasMore": has_more,
        "totalMessages": page.total,
    }
    if has_more:
        payload["nextOffset"] = page.total - page.start
    return payload


SPEC = ToolSpec(
    name="sessions_history",
    label="Session History",
    description=DESCRIPTION,
    arguments=HistoryArgs,
    read=sessions_history,
)
