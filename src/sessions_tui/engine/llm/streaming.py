"""A streamed chat completion, read as model events while it arrives.

The server sends `data:` lines of JSON chunks (server-sent events, read with `httpx-sse`) and
ends with `data: [DONE]`. Thinking and text go out as soon as a chunk carries them; tool-call
pieces and usage only make sense whole, so they go out once the stream ends, followed by
`TurnDone`. A chunk that is an error object ends the turn with the provider's message.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

from httpx_sse import EventSource

from sessions_tui.engine.llm.base import (
    ModelError,
    ModelEvent,
    TextDelta,
    ThinkingDelta,
    TurnDone,
    Usage,
    UsageEvent,
)
from sessions_tui.engine.llm.wire import (
    ToolCalls,
    parse_json,
    provider_error_message,
    snippet,
    stop_reason,
    text_of,
    thinking_of,
    usage_of,
)
from sessions_tui.engine.redaction.cut import Redact

__all__ = ["sse_events"]


async def sse_events(source: EventSource, redact: Redact | None = None) -> AsyncGenerator[ModelEvent, None]:
    """The events of one streamed turn; raises `ModelError` on a malformed or error chunk (its
    text quoted through `redact`)."""
    calls = ToolCalls()
    usage: Usage | None = None
    finish_reason: Any = None
    async with aclosing(source.aiter_sse()) as sse_stream:
        async for sse in sse_stream:
            data = sse.data.strip()
            if not data:
                continue
            if data == "[DONE]":
                break
            chunk = parse_json(data, redact)
            if not isinstance(chunk, dict):
                said = snippet(data, redact)
                raise ModelError(f"invalid response from model server: expected a JSON object: {said!r}")
            if chunk.get("error") and not chunk.get("choices"):
                raise ModelError(f"model server error: {provider_error_message(json.dumps(chunk), redact=redact)}")
            chunk_usage = usage_of(chunk.get("usage"))
            if chunk_usage is not None:
                usage = chunk_usage
            choices = chunk.get("choices")
            if not isinstance(choices, list) or not choices:
                continue
            choice = choices[0]
            if not isinstance(choice, dict):
                continue
            if choice.get("finish_reason"):
                finish_reason = choice["finish_reason"]
            delta = choice.get("delta")
            if not isinstance(delta, dict):
                continue
            thinking = thinking_of(delta)
            if thinking:
                yield ThinkingDelta(text=thinking)
            text = text_of(delta.get("content"))
            if text:
                yield TextDelta(text=text)
            for piece in delta.get("tool_calls") or []:
                calls.add(piece)
    for event in calls.events():
        yield event
    if usage is not None:
        yield UsageEvent(usage=usage)
    yield TurnDone(stop_reason=stop_reason(finish_reason))
