"""An OpenAI-compatible chat-completions client over httpx: one model turn per `stream()`.

Works with any server that speaks `POST {baseUrl}/chat/completions`: OpenAI itself, OpenRouter,
vLLM, llama.cpp, Ollama, LM Studio… This module is the client: the connection, the request and
the retry loop. The body and reply shapes are in `wire`, the streamed reply in `streaming`, what
is retried in `retries`; the non-streaming form gives the same events from one JSON completion.

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

What the server says is quoted in an error redacted, then cut, by the `redact` given (the engine's,
which knows the config's own secrets: a server may echo the `apiKey` back in its error).

Nothing is retried once an event has been yielded. Cancelling the consuming task while it waits
for the next event closes the HTTP response at once; a consumer that stops iterating early
should close the generator (`contextlib.aclosing(client.stream(request))`) so the response is
closed without waiting for garbage collection.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

import httpx
from httpx_sse import EventSource
from pydantic import SecretStr

from sessions_tui.engine.config import Config, ProviderConfig
from sessions_tui.engine.llm.api_key import resolve_api_key
from sessions_tui.engine.llm.base import ModelError, ModelEvent, ModelRequest
from sessions_tui.engine.llm.retries import (
    RETRY_STATUSES,
    RETRYABLE_TRANSPORT,
    backoff_seconds,
    describe,
    http_error,
    seconds_text,
)
from sessions_tui.engine.llm.streaming import sse_events
from sessions_tui.engine.llm.wire import (
    ChatCompletionBody,
    completion_events,
    parse_json,
    request_body,
)
from sessions_tui.engine.redaction.cut import Redact
from sessions_tui.engine.redaction.redact import default_redactor

__all__ = [
    "DEFAULT_BASE_URL",
    "OpenAIChatClient",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
# What `httpx-sse` asks of a server for a stream.
_SSE_HEADERS = {"Accept": "text/event-stream", "Cache-Control": "no-store"}


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
        redact: Redact | None = None,
    ) -> None:
        self.provider_name = provider_name
        self.redact: Redact = redact or default_redactor().redact  # the engine's, with the config's secrets
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
        for name, value in (self.provider.headers or {}).items():
            # Header values are secrets held as `SecretStr` (a plain str is taken as it is).
            headers[name] = value.get_secret_value() if isinstance(value, SecretStr) else value
        return headers

    def request_body(self, request: ModelRequest) -> ChatCompletionBody:
        return request_body(request, stream=self.streaming)

    # -- the turn -----------------------------------------------------------------------------

    async def stream(self, request: ModelRequest) -> AsyncGenerator[ModelEvent, None]:
        """Stream one model turn; raises `ModelError`."""
        body = self.request_body(request)
        headers = {**self.headers(), **_SSE_HEADERS} if self.streaming else self.headers()
        attempt = 0  # retries done so far
        while True:
            yielded = False
            delay: float | None = None
            try:
                async with self._client.stream("POST", self.url, json=body, headers=headers) as response:
                    if response.status_code >= 400:
                        error, retry_after = await http_error(response, self.redact)
                        if response.status_code not in RETRY_STATUSES or attempt >= self.max_retries:
                            raise error
                        delay = backoff_seconds(attempt, self.backoff_base, retry_after)
                    else:
                        async with aclosing(self._events(response)) as events:
                            async for event in events:
                                yielded = True
                                yield event
                        return
            except httpx.ReadTimeout:
                raise ModelError(f"model timed out after {seconds_text(self.read_timeout)}", retryable=True) from None
            except RETRYABLE_TRANSPORT as exc:
                why = describe(exc, self.connect_timeout)
                if yielded:
                    raise ModelError(f"connection lost: {why}", retryable=True) from None
                if attempt >= self.max_retries:
                    raise ModelError(f"connection failed: {why} ({attempt + 1} attempts)", retryable=True) from None
                delay = backoff_seconds(attempt, self.backoff_base)
            except httpx.HTTPError as exc:
                raise ModelError(f"request failed: {describe(exc, self.connect_timeout)}") from None
            except httpx.InvalidURL as exc:
                raise ModelError(f"invalid baseUrl {self.base_url!r}: {exc}") from None
            attempt += 1
            if delay:
                await asyncio.sleep(delay)

    async def _events(self, response: httpx.Response) -> AsyncGenerator[ModelEvent, None]:
        content_type = response.headers.get("content-type", "").partition(";")[0].strip().lower()
        if not self.streaming or content_type != "text/event-stream":
            # Non-streaming, or a server that ignored `"stream": true`: one JSON completion.
            await response.aread()
            for event in completion_events(parse_json(response.text, self.redact), self.redact):
                yield event
            return
        async with aclosing(sse_events(EventSource(response), self.redact)) as events:
            async for event in events:
                yield event
