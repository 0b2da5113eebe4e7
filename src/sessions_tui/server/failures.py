"""What the server does with a failure of its own: a bare 500 for the client, the redacted
traceback for the server's log.

Bad input is answered by the routes themselves (400 naming the field, 405, 413, ...); an exception
that reaches this far is a bug of the server's, and the client learns nothing of it but that it
happened. The traceback goes to the `sessions_tui.server` log with every line redacted as tool
results are (an exception's message may quote a secret). Without this, Starlette's own error
middleware would re-raise it and the ASGI server log it unredacted.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("sessions_tui.server")

Redact = Callable[[str], str]


def log_failure(what: str, exc: BaseException, redact: Redact) -> None:
    """`what failed`, then the exception's traceback, redacted, as one log record."""
    trace = "".join(traceback.format_exception(exc)).rstrip()
    log.error("%s failed\n%s", what, redact(trace))


def bare_500() -> Response:
    return Response("Internal Server Error", 500, media_type="text/plain")


class ContainFailures:
    """ASGI middleware: an exception from the application becomes `bare_500()` (when no answer
    has started; else the connection just ends) and a `log_failure` record, never a re-raise."""

    def __init__(self, app: ASGIApp, redact: Redact) -> None:
        self.app = app
        self.redact = redact

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as exc:  # noqa: BLE001 - a bug of ours: logged, answered without details
            log_failure(f"{scope.get('method', '?')} {scope.get('path', '?')!r}", exc, self.redact)
            if not started:
                await bare_500()(scope, receive, send)
