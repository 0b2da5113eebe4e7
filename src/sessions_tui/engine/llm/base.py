"""What a model client is: one streamed model turn, in and out as typed values.

The run loop speaks OpenAI's chat-completions message shapes to every client (the demo model
included), and gets back a stream of events: text and thinking deltas, whole tool calls, usage,
and the end of the turn. A failure is a `ModelError` carrying the provider's own message.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any, Literal, Protocol

from pydantic import Field

from sessions_tui.engine.lazy_model import LazyModel


class ModelRequest(LazyModel):
    """One model turn."""

    model: str  # the model id at the provider, e.g. "gpt-4o-mini" or "demo"
    system: str = ""  # system prompt text (agent prompt plus any extra system text)
    messages: list[dict[str, Any]] = Field(default_factory=list)  # OpenAI chat messages
    tools: list[dict[str, Any]] = Field(default_factory=list)  # OpenAI function tools
    thinking: str | None = None
    session_key: str = ""  # which session runs the turn (the demo model reads it)


class ToolCallRequest(LazyModel):
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str = "{}"  # as the model sent it; arguments is {} when it does not parse
    # Why the arguments cannot be used at all (nested too deep to read): the tool is not run, and
    # the model gets this as the call's error result.
    arguments_error: str | None = None


class Usage(LazyModel):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    total: int | None = None
    cost_usd: float | None = None


class TextDelta(LazyModel):
    type: Literal["text"] = "text"
    text: str


class ThinkingDelta(LazyModel):
    type: Literal["thinking"] = "thinking"
    text: str


class ToolCallEvent(LazyModel):
    type: Literal["tool_call"] = "tool_call"
    call: ToolCallRequest


class UsageEvent(LazyModel):
    type: Literal["usage"] = "usage"
    usage: Usage


class TurnDone(LazyModel):
    type: Literal["done"] = "done"
    stop_reason: str = "stop"  # "stop" | "toolUse" | "length" | …


ModelEvent = TextDelta | ThinkingDelta | ToolCallEvent | UsageEvent | TurnDone


class ModelError(Exception):
    """A model turn that failed; `str()` is the message a run error carries."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.retryable = retryable


class ModelClient(Protocol):
    """Streams one model turn. Raises `ModelError`; cancellation stops the request.

    `stream` is an async generator (so a caller can close it early with `contextlib.aclosing`).
    """

    def stream(self, request: ModelRequest) -> AsyncGenerator[ModelEvent, None]: ...
