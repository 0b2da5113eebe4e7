"""The chat-completions wire format: the request body we send and what we read back.

Servers that claim OpenAI compatibility (OpenAI, OpenRouter, vLLM, llama.cpp, Ollama, LM
Studio…) differ in small ways, so replies are read leniently: a field of the wrong type is
skipped rather than fatal, tool-call pieces may come with or without an `index`, thinking is
`reasoning_content` or `reasoning`, cached prompt tokens are spelled two ways. Only a reply that
is not JSON, or not an object, is an error. Nothing here does I/O.

What a server says in an error is quoted redacted, then cut (engine/redaction/cut.py), by the
`redact` given: the engine's, which also knows the config's own secrets (a server may echo the
`apiKey` it was sent); the built-in rules when none is given.
"""

from __future__ import annotations

import json
import math
import uuid
from typing import Any, NotRequired, TypedDict

from sessions_tui.engine.inputs.json_depth import nesting_error, too_deep_text
from sessions_tui.engine.llm.base import (
    ModelError,
    ModelEvent,
    ModelRequest,
    TextDelta,
    ThinkingDelta,
    ToolCallEvent,
    ToolCallRequest,
    TurnDone,
    Usage,
    UsageEvent,
)
from sessions_tui.engine.redaction.cut import Redact, redact_then_cut
from sessions_tui.engine.redaction.redact import default_redactor
from sessions_tui.engine.sessions.entry import is_number

__all__ = [
    "ChatCompletionBody",
    "ToolCalls",
    "completion_events",
    "parse_json",
    "provider_error_message",
    "request_body",
    "snippet",
    "stop_reason",
    "text_of",
    "thinking_of",
    "usage_of",
]

_BODY_SNIPPET = 500
_STOP_REASONS = {"tool_calls": "toolUse", "length": "length"}


class ChatCompletionBody(TypedDict):
    """The JSON body of `POST /chat/completions`."""

    model: str
    messages: list[dict[str, Any]]
    tools: NotRequired[list[dict[str, Any]]]
    stream: bool
    stream_options: NotRequired[dict[str, bool]]


def request_body(request: ModelRequest, *, stream: bool) -> ChatCompletionBody:
    """The request of one model turn: the system prompt first, usage asked for when streaming."""
    messages: list[dict[str, Any]] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    messages.extend(request.messages)
    # Keys in the order they have always been sent: model, messages, tools, stream.
    body: ChatCompletionBody
    if request.tools:
        body = {"model": request.model, "messages": messages, "tools": request.tools, "stream": stream}
    else:
        body = {"model": request.model, "messages": messages, "stream": stream}
    if stream:
        body["stream_options"] = {"include_usage": True}
    return body


def _number(value: Any) -> float | None:
    if not is_number(value):
        return None
    return float(value) if math.isfinite(value) else None


def _int(value: Any) -> int | None:
    number = _number(value)
    return int(number) if number is not None else None


def text_of(content: Any) -> str:
    """Message content as text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "".join(parts)
    return ""


def thinking_of(message: dict[str, Any]) -> str:
    """The reasoning text of a message or a delta (`reasoning_content`, or `reasoning`)."""
    thinking = message.get("reasoning_content") or message.get("reasoning")
    return thinking if isinstance(thinking, str) else ""


def _or_built_in(redact: Redact | None) -> Redact:
    return redact or default_redactor().redact


def snippet(text: str, redact: Redact | None = None) -> str:
    """A model server's text quoted in an error: redacted, then cut."""
    return redact_then_cut(text.strip(), 201, _or_built_in(redact))


def provider_error_message(body: bytes | str, reason: str = "", redact: Redact | None = None) -> str:
    """The provider's own message from an error body, redacted.

    `error.message` (or a string `error`, or a top-level `message`/`detail`) of a JSON body;
    else the body text, redacted, then trimmed to 500 characters; else the reason phrase.
    """
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    text = text.strip()
    if not text:
        return reason.strip()
    redact = _or_built_in(redact)
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, list) and data and isinstance(data[0], dict):
        data = data[0]
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict):
            message = error.get("message")
            if isinstance(message, str) and message.strip():
                return redact(message.strip())
        if isinstance(error, str) and error.strip():
            return redact(error.strip())
        for key in ("message", "detail"):
            value = data.get(key)
            if isinstance(value, str) and value.strip():
                return redact(value.strip())
    return redact_then_cut(text, _BODY_SNIPPET, redact, mark="")


def usage_of(data: Any) -> Usage | None:
    """Token counts (and cost, when the server reports one) of a `usage` object."""
    if not isinstance(data, dict):
        return None
    details = data.get("prompt_tokens_details")
    cached = _int(details.get("cached_tokens")) if isinstance(details, dict) else None
    if cached is None:
        cached = _int(data.get("prompt_cache_hit_tokens"))  # DeepSeek's spelling
    return Usage(
        input=_int(data.get("prompt_tokens")) or 0,
        output=_int(data.get("completion_tokens")) or 0,
        cache_read=cached or 0,
        total=_int(data.get("total_tokens")),
        cost_usd=_number(data.get("cost")),
    )


def stop_reason(finish_reason: Any) -> str:
    """The transcript's stop reason for a `finish_reason`: toolUse, length, or stop."""
    return _STOP_REASONS.get(finish_reason, "stop") if isinstance(finish_reason, str) else "stop"


def parse_json(text: str, redact: Redact | None = None) -> Any:
    try:
        return json.loads(text)
    except ValueError as err:
        raise ModelError(f"invalid response from model server: {err}: {snippet(text, redact)!r}") from None
    except RecursionError:
        raise ModelError("invalid response from model server: JSON nested too deeply to parse") from None


class ToolCalls:
    """Tool-call pieces accumulated by `index`, turned into requests at the end of the turn."""

    def __init__(self) -> None:
        self._calls: dict[int, dict[str, Any]] = {}
        self._last: int | None = None

    def add(self, piece: Any) -> None:
        if not isinstance(piece, dict):
            return
        call_id = piece.get("id") if isinstance(piece.get("id"), str) else ""
        index = _int(piece.get("index"))
        if index is None:
            # No index: a new id starts a new call, anything else continues the last one.
            known = [i for i, c in self._calls.items() if call_id and c["id"] == call_id]
            if known:
                index = known[0]
            elif call_id or self._last is None:
                index = max(self._calls, default=-1) + 1
            else:
                index = self._last
        entry = self._calls.setdefault(index, {"id": "", "name": "", "args": []})
        self._last = index
        if call_id:
            entry["id"] = call_id
        function = piece.get("function")
        if not isinstance(function, dict):
            return
        name = function.get("name")
        if isinstance(name, str) and name and name != entry["name"]:
            entry["name"] = entry["name"] + name if entry["name"] else name
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            entry["args"].append(arguments)
        elif isinstance(arguments, dict):  # some servers send the object itself
            try:
                entry["args"] = [json.dumps(arguments, ensure_ascii=False)]
            except RecursionError:  # parsed, but too deep to write again: far deeper than allowed
                entry["args"], entry["error"] = [], nesting_error("")

    def events(self) -> list[ToolCallEvent]:
        out: list[ToolCallEvent] = []
        for index in sorted(self._calls):
            entry = self._calls[index]
            raw = "".join(entry["args"])
            arguments: dict[str, Any] = {}
            # Too deep is refused before parsing: `json` recurses, and nothing that deep is stored.
            error = entry.get("error") or too_deep_text(raw)
            if raw.strip() and error is None:
                try:
                    parsed = json.loads(raw)
                except ValueError:
                    parsed = None
                if isinstance(parsed, dict):
                    arguments = parsed
            call = ToolCallRequest(
                id=entry["id"] or f"call_{uuid.uuid4().hex[:24]}",
                name=entry["name"],
                arguments=arguments,
                raw_arguments=raw if raw.strip() else "{}",
                arguments_error=error,
            )
            out.append(ToolCallEvent(call=call))
        return out


def completion_events(data: Any, redact: Redact | None = None) -> list[ModelEvent]:
    """The events of one non-streamed completion (`redact`: for an error's text)."""
    if not isinstance(data, dict):
        raise ModelError("invalid response from model server: expected a JSON object")
    if "error" in data and not data.get("choices"):
        raise ModelError(f"model server error: {provider_error_message(json.dumps(data), redact=redact)}")
    choices = data.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else {}
    if not isinstance(choice, dict):
        raise ModelError("invalid response from model server: malformed choices")
    message = choice.get("message")
    message = message if isinstance(message, dict) else {}
    events: list[ModelEvent] = []
    thinking = thinking_of(message)
    if thinking:
        events.append(ThinkingDelta(text=thinking))
    text = text_of(message.get("content"))
    if text:
        events.append(TextDelta(text=text))
    calls = ToolCalls()
    for index, piece in enumerate(message.get("tool_calls") or []):
        if isinstance(piece, dict):
            calls.add({"index": index, **{k: v for k, v in piece.items() if k != "index"}})
    events.extend(calls.events())
    usage = usage_of(data.get("usage"))
    if usage is not None:
        events.append(UsageEvent(usage=usage))
    events.append(TurnDone(stop_reason=stop_reason(choice.get("finish_reason"))))
    return events
