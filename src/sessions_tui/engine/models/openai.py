"""An OpenAI-compatible chat-completions client over httpx (SPEC §3 "Models").

Works with any server that speaks `POST {baseUrl}/chat/completions`: OpenAI itself, OpenRouter,
vLLM, llama.cpp, Ollama, LM Studio… Streaming uses server-sent events (`httpx-sse`); the
non-streaming form gives the same events from one JSON completion.

Events, in order: `ThinkingDelta` / `TextDelta` as they arrive; then, once the stream ends, one
`ToolCallEvent` per tool call (pieces accumulated by `index`), one `UsageEvent` (the last usage
object the server sent, if any) and `TurnDone`.

Failures are `ModelError`s:

* HTTP status >= 400 → `HTTP <status>: <provider message>` (`status` set). 429/502/503/504 are
  retried first (a numeric `Retry-After` is honoured, up to 8 s).
* Connection failures before anything was yielded (refused, connect timeout, a connection
  dropped before the response) are retried with exponential back-off; then
  `connection failed: <why> (<N> attempts)`.
* A read timeout → `model timed out after <read_timeout>s` (not retried: the server may still be
  working on the request).
* A payload that is not JSON → `invalid response from model server: …`.

Nothing is retried once an event has been yielded. Cancelling the consuming task while it waits
for the next event closes the HTTP response at once; a consumer that stops iterating early
should close the generator (`contextlib.aclosing(client.stream(request))`) so the response is
closed without waiting for garbage collection.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import uuid
from collections.abc import AsyncIterator, Mapping
from contextlib import aclosing
from typing import Any

import httpx
from httpx_sse import aconnect_sse

from sessions_tui.engine.config import Config, ProviderConfig
from sessions_tui.engine.json_depth import nesting_error, too_deep_text
from sessions_tui.engine.models.base import (
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

__all__ = [
    "DEFAULT_BASE_URL",
    "MAX_BACKOFF_SECONDS",
    "RETRY_STATUSES",
    "OpenAIChatClient",
    "provider_error_message",
    "resolve_api_key",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: HTTP statuses retried like connection failures.
RETRY_STATUSES = frozenset({429, 502, 503, 504})
#: Cap of one back-off wait (and of a honoured `Retry-After`).
MAX_BACKOFF_SECONDS = 8.0
_BODY_SNIPPET = 500

_ENV_REF_RE = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
_NON_ALNUM_RE = re.compile(r"[^A-Za-z0-9]")

# Failures of the connection itself: safe to retry while nothing has been yielded.
_RETRYABLE_TRANSPORT = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.PoolTimeout,
    httpx.WriteError,
    httpx.WriteTimeout,
    httpx.ReadError,
    httpx.RemoteProtocolError,
    httpx.CloseError,
)

_STOP_REASONS = {"tool_calls": "toolUse", "length": "length"}


# --------------------------------------------------------------------------------------------
# API key
# --------------------------------------------------------------------------------------------


def _env_value(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name)
    return value if value else None


def resolve_api_key(provider_name: str, provider: ProviderConfig, env: Mapping[str, str] | None = None) -> str | None:
    """The API key of a provider, or None when it has none.

    * `"${VAR}"` → the environment variable `VAR`;
    * any other non-empty string → itself;
    * `{"source": "env", "id": "VAR"}` (or `"name": "VAR"`) → the environment variable `VAR`;
    * absent (or an empty string) → `<PROVIDER_NAME>_API_KEY` (upper-cased, every
      non-alphanumeric character → `_`), else None.

    A reference to an unset variable, or a secret reference of another source, gives None.
    """
    env = os.environ if env is None else env
    raw = provider.api_key
    if isinstance(raw, str) and raw.strip():
        text = raw.strip()
        found = _ENV_REF_RE.match(text)
        if found:
            return _env_value(env, found.group(1))
        return text
    if isinstance(raw, dict):
        source = str(raw.get("source", "env")).strip().lower()
        var = raw.get("id") or raw.get("name")
        if source == "env" and isinstance(var, str) and var.strip():
            return _env_value(env, var.strip())
        return None
    fallback = _NON_ALNUM_RE.sub("_", provider_name.upper()) + "_API_KEY"
    return _env_value(env, fallback)


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def _seconds(value: float) -> str:
    return f"{value:g}s"


def _why(exc: BaseException, connect_timeout: float) -> str:
    if isinstance(exc, httpx.ConnectTimeout):
        return f"connect timed out after {_seconds(connect_timeout)}"
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _int(value: Any) -> int | None:
    number = _number(value)
    return int(number) if number is not None else None


def _text_of(content: Any) -> str:
    """Message content as text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "".join(parts)
    return ""


def _snippet(text: str) -> str:
    text = text.strip()
    return text if len(text) <= 200 else text[:200] + "…"


def provider_error_message(body: bytes | str, reason: str = "") -> str:
    """The provider's own message from an error body.

    `error.message` (or a string `error`, or a top-level `message`/`detail`) of a JSON body;
    else the body text trimmed to 500 characters; else the reason phrase.
    """
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    text = text.strip()
    if text:
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, list) and data and isinstance(data[0], dict):
            data = data[0]
        if isinstance(data, dict):
            error = data.get("error")
            if isinstance(error, dict) and isinstance(error.get("message"), str):
                if error["message"].strip():
                    return error["message"].strip()
            if isinstance(error, str) and error.strip():
                return error.strip()
            for key in ("message", "detail"):
                value = data.get(key)
                if isinstance(value, str) and value.strip():
                    return value.strip()
        return text[:_BODY_SNIPPET]
    return reason.strip()


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None  # an HTTP date: use the back-off instead
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return min(seconds, MAX_BACKOFF_SECONDS)


def _usage(data: Any) -> Usage | None:
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


def _stop_reason(finish_reason: Any) -> str:
    return _STOP_REASONS.get(finish_reason, "stop") if isinstance(finish_reason, str) else "stop"


def _parse_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as err:
        raise ModelError(f"invalid response from model server: {err}: {_snippet(text)!r}") from None
    except RecursionError:
        raise ModelError("invalid response from model server: JSON nested too deeply to parse") from None


class _ToolCalls:
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
        out = []
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


def _completion_events(data: Any) -> list[ModelEvent]:
    """The events of one non-streamed completion."""
    if not isinstance(data, dict):
        raise ModelError("invalid response from model server: expected a JSON object")
    if "error" in data and not data.get("choices"):
        raise ModelError(f"model server error: {provider_error_message(json.dumps(data))}")
    choices = data.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else {}
    if not isinstance(choice, dict):
        raise ModelError("invalid response from model server: malformed choices")
    message = choice.get("message")
    message = message if isinstance(message, dict) else {}
    events: list[ModelEvent] = []
    thinking = message.get("reasoning_content") or message.get("reasoning")
    if isinstance(thinking, str) and thinking:
        events.append(ThinkingDelta(text=thinking))
    text = _text_of(message.get("content"))
    if text:
        events.append(TextDelta(text=text))
    calls = _ToolCalls()
    for index, piece in enumerate(message.get("tool_calls") or []):
        if isinstance(piece, dict):
            calls.add({"index": index, **{k: v for k, v in piece.items() if k != "index"}})
    events.extend(calls.events())
    usage = _usage(data.get("usage"))
    if usage is not None:
        events.append(UsageEvent(usage=usage))
    events.append(TurnDone(stop_reason=_stop_reason(choice.get("finish_reason"))))
    return events


# --------------------------------------------------------------------------------------------
# The client
# --------------------------------------------------------------------------------------------


class OpenAIChatClient:
    """A `ModelClient` for one provider of `models.providers`."""

    def __init__(
        self,
        provider_name: str,
        provider: ProviderConfig,
        *,
        stream: bool = True,
        connect_timeout: float = 10.0,
        read_timeout: float = 120.0,
        max_retries: int = 3,
        backoff_base: float = 0.5,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.provider_name = provider_name
        self.provider = provider
        self.streaming = stream
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.max_retries = max(0, int(max_retries))
        self.backoff_base = max(0.0, backoff_base)
        base_url = (provider.base_url or "").strip().rstrip("/") or DEFAULT_BASE_URL
        self.base_url = base_url
        self.url = f"{base_url}/chat/completions"
        self.api_key = resolve_api_key(provider_name, provider)
        timeout = httpx.Timeout(connect=connect_timeout, read=read_timeout, write=read_timeout, pool=connect_timeout)
        self._client = httpx.AsyncClient(timeout=timeout, transport=transport)

    @classmethod
    def from_config(cls, config: Config, provider_name: str, **options: Any) -> OpenAIChatClient:
        """The client of `models.providers.<provider_name>`; `ModelError` when not configured."""
        provider = config.models.providers.get(provider_name)
        if provider is None:
            raise ModelError(f"unknown model provider: {provider_name}")
        return cls(provider_name, provider, **options)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def __aenter__(self) -> OpenAIChatClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- request ------------------------------------------------------------------------------

    def headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        headers.update(self.provider.headers or {})
        return headers

    def request_body(self, request: ModelRequest) -> dict[str, Any]:
        messages: list[dict[str, Any]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        messages.extend(request.messages)
        body: dict[str, Any] = {"model": request.model, "messages": messages}
        if request.tools:
            body["tools"] = request.tools
        body["stream"] = self.streaming
        if self.streaming:
            body["stream_options"] = {"include_usage": True}
        return body

    def _backoff(self, attempt: int) -> float:
        return min(MAX_BACKOFF_SECONDS, self.backoff_base * 2**attempt)

    # -- the turn -----------------------------------------------------------------------------

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream one model turn; raises `ModelError`."""
        body = self.request_body(request)
        attempt = 0  # retries done so far
        while True:
            yielded = False
            delay: float | None = None
            try:
                if self.streaming:
                    opened = aconnect_sse(self._client, "POST", self.url, json=body, headers=self.headers())
                else:
                    opened = self._client.stream("POST", self.url, json=body, headers=self.headers())
                async with opened as source:
                    response = source.response if self.streaming else source
                    if response.status_code >= 400:
                        error, retry_after = await self._http_error(response)
                        status = response.status_code
                        if status not in RETRY_STATUSES or attempt >= self.max_retries:
                            raise error
                        delay = retry_after if retry_after is not None else self._backoff(attempt)
                    else:
                        async with aclosing(self._events(source, response)) as events:
                            async for event in events:
                                yielded = True
                                yield event
                        return
            except httpx.ReadTimeout:
                raise ModelError(f"model timed out after {_seconds(self.read_timeout)}", retryable=True) from None
            except _RETRYABLE_TRANSPORT as exc:
                why = _why(exc, self.connect_timeout)
                if yielded:
                    raise ModelError(f"connection lost: {why}", retryable=True) from None
                if attempt >= self.max_retries:
                    raise ModelError(f"connection failed: {why} ({attempt + 1} attempts)", retryable=True) from None
                delay = self._backoff(attempt)
            except httpx.HTTPError as exc:
                raise ModelError(f"request failed: {_why(exc, self.connect_timeout)}") from None
            except httpx.InvalidURL as exc:
                raise ModelError(f"invalid baseUrl {self.base_url!r}: {exc}") from None
            attempt += 1
            if delay:
                await asyncio.sleep(delay)

    async def _http_error(self, response: httpx.Response) -> tuple[ModelError, float | None]:
        await response.aread()
        status = response.status_code
        message = provider_error_message(response.content, response.reason_phrase or "")
        text = f"HTTP {status}: {message}" if message else f"HTTP {status}"
        error = ModelError(text, status=status, retryable=status in RETRY_STATUSES)
        return error, _retry_after(response)

    async def _events(self, source: Any, response: httpx.Response) -> AsyncIterator[ModelEvent]:
        content_type = response.headers.get("content-type", "").partition(";")[0].strip().lower()
        if not self.streaming or content_type != "text/event-stream":
            # Non-streaming, or a server that ignored `"stream": true`: one JSON completion.
            await response.aread()
            for event in _completion_events(_parse_json(response.text)):
                yield event
            return
        calls = _ToolCalls()
        usage: Usage | None = None
        finish_reason: Any = None
        async with aclosing(source.aiter_sse()) as sse_events:
            async for sse in sse_events:
                data = sse.data.strip()
                if not data:
                    continue
                if data == "[DONE]":
                    break
                chunk = _parse_json(data)
                if not isinstance(chunk, dict):
                    raise ModelError(f"invalid response from model server: expected a JSON object: {_snippet(data)!r}")
                if chunk.get("error") and not chunk.get("choices"):
                    message = provider_error_message(json.dumps(chunk))
                    raise ModelError(f"model server error: {message}")
                chunk_usage = _usage(chunk.get("usage"))
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
                thinking = delta.get("reasoning_content") or delta.get("reasoning")
                if isinstance(thinking, str) and thinking:
                    yield ThinkingDelta(text=thinking)
                text = _text_of(delta.get("content"))
                if text:
                    yield TextDelta(text=text)
                for piece in delta.get("tool_calls") or []:
                    calls.add(piece)
        for event in calls.events():
            yield event
        if usage is not None:
            yield UsageEvent(usage=usage)
        yield TurnDone(stop_reason=_stop_reason(finish_reason))
