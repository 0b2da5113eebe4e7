"""Which failures of a model request are retried, and what a failure says.

Retrying is safe only while nothing of the turn has been passed on: a connection that failed
before the response, or a status the server uses for "try again" (429, 502, 503, 504). A read
timeout is not retried (the server may still be working on the request), nor is any other
status. Waits come from the engine's one back-off rule, with the server's `Retry-After`
honoured up to the same cap.
"""

from __future__ import annotations

import httpx

from sessions_tui.engine.backoff import parse_retry_after, retry_delay
from sessions_tui.engine.llm.base import ModelError
from sessions_tui.engine.llm.wire import provider_error_message
from sessions_tui.engine.redaction.cut import Redact

__all__ = [
    "MAX_BACKOFF_SECONDS",
    "RETRYABLE_TRANSPORT",
    "RETRY_STATUSES",
    "backoff_seconds",
    "describe",
    "http_error",
    "seconds_text",
]

#: HTTP statuses retried like connection failures.
RETRY_STATUSES = frozenset({429, 502, 503, 504})
#: Cap of one back-off wait (and of a honoured `Retry-After`).
MAX_BACKOFF_SECONDS = 8.0

#: Failures of the connection itself: safe to retry while nothing has been yielded.
RETRYABLE_TRANSPORT: tuple[type[httpx.HTTPError], ...] = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.PoolTimeout,
    httpx.WriteError,
    httpx.WriteTimeout,
    httpx.ReadError,
    httpx.RemoteProtocolError,
    httpx.CloseError,
)


def backoff_seconds(retry: int, base: float, retry_after: float | None = None) -> float:
    """The wait before retry number `retry` (0 is the first): `base` doubling, at most 8 s."""
    return retry_delay(retry, base=base, cap=MAX_BACKOFF_SECONDS, retry_after=retry_after)


def seconds_text(value: float) -> str:
    return f"{value:g}s"


def describe(exc: BaseException, connect_timeout: float) -> str:
    """Why a request failed, in one line."""
    if isinstance(exc, httpx.ConnectTimeout):
        return f"connect timed out after {seconds_text(connect_timeout)}"
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


async def http_error(response: httpx.Response, redact: Redact | None = None) -> tuple[ModelError, float | None]:
    """The error of a response with status >= 400 (the server's text quoted through `redact`), and
    the server's `Retry-After` seconds if any."""
    await response.aread()
    status = response.status_code
    message = provider_error_message(response.content, response.reason_phrase or "", redact)
    text = f"HTTP {status}: {message}" if message else f"HTTP {status}"
    error = ModelError(text, status=status, retryable=status in RETRY_STATUSES)
    return error, parse_retry_after(response.headers.get("retry-after"))
