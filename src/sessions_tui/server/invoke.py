"""`POST /tools/invoke`, answered as OpenClaw 2026.9.6's gateway answers it.

The order of the checks is the gateway's, so each bad request gets the gateway's status: the
method (405), the bearer token (429 while locked out, else 401), the body (413 over the limit, 408
when it stalls), JSON (400 `invalid_request_error`; `NaN` and `Infinity` are not JSON), the tool's
name (400 `invalid_request`), the tool's availability (404 `not_found`: unknown, denied over
HTTP, or not in the requester agent's tool policy), the tool's own argument checks (400
`tool_error`), a failure inside it (500, no details); a write the damaged state database refused,
503 `store_damaged` (server/damage.py). The answer's `details` are exactly what
`sessions-tui tool` prints; its text content is them as indented JSON, as the gateway's tools
write it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import orjson
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.remote.wire import SANDBOXED_HEADER
from sessions_tui.backend.toolkit.inputs import json_problem, loads_body
from sessions_tui.backend.values.vocabulary import TOOLS, StoreDamaged, ToolInputError, UnknownToolError
from sessions_tui.server.access import AuthLockout, bearer_token, token_matches, tool_name
from sessions_tui.server.failures import log_failure
from sessions_tui.server.settings import ServerSettings

JSON = "application/json; charset=utf-8"


def compact_json(value: Any) -> bytes:
    """JSON as the gateway writes its answers (compact, UTF-8), by orjson; a value it refuses (a
    lone surrogate, an integer past 64 bits) by the standard encoder in ASCII, every other
    character a `\\u` escape: valid UTF-8 JSON whatever the value holds."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=True, separators=(",", ":")).encode()


def indented_json(value: Any) -> str:
    """JSON indented by two, as the gateway's tools write their text (`JSON.stringify(v, null, 2)`)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:
        return json.dumps(value, indent=2, ensure_ascii=False)


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> Response:
    return Response(compact_json(body), status_code=status, media_type=JSON, headers=headers)


def error(status: int, kind: str, message: str) -> Response:
    """The gateway's `{ok: false, error: {type, message}}`."""
    return json_response(status, {"ok": False, "error": {"type": kind, "message": message}})


def plain_error(status: int, kind: str, message: str, headers: dict[str, str] | None = None) -> Response:
    """The gateway's `{error: {message, type}}` (auth, body and JSON failures)."""
    return json_response(status, {"error": {"message": message, "type": kind}}, headers)


def method_not_allowed(allow: str) -> Response:
    """The gateway's 405: plain text, with the method it takes."""
    return Response("Method Not Allowed", 405, {"Allow": allow}, media_type="text/plain")


class BodyTooLarge(Exception):
    pass


class Authenticator:
    """The bearer check with its lockout, shared by every authenticated route."""

    def __init__(self, settings: ServerSettings) -> None:
        self._token = settings.token.get_secret_value()
        self.lockout = AuthLockout(settings.auth_max_failures, settings.auth_window_s, settings.auth_lockout_s)

    def refusal(self, request: Request) -> Response | None:
        """None when the request carries the token; else the 429 or 401 to answer."""
        client = request.client.host if request.client else None
        wait = self.lockout.retry_after(client)
        if wait is not None:
            return plain_error(
                429,
                "rate_limited",
                "Too many failed authentication attempts. Please try again later.",
                {"Retry-After": str(wait)},
            )
        if token_matches(bearer_token(request.headers.get("authorization")), self._token):
            self.lockout.succeeded(client)
            return None
        self.lockout.failed(client)
        return plain_error(401, "unauthorized", "Unauthorized")


async def read_body(request: Request, limit: int, timeout_s: float) -> bytes:
    """The body, refused past `limit` bytes (declared or sent), within `timeout_s` in all."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        raise BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    async with asyncio.timeout(timeout_s):
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise BodyTooLarge
            chunks.append(chunk)
    return b"".join(chunks)


async def body_or_refusal(request: Request, settings: ServerSettings) -> bytes | Response:
    """The request's body as `read_body` reads it, or the answer to a body that never came whole:
    413 past the limit, 408 when it stalls, 400 when the client went away."""
    try:
        return await read_body(request, settings.max_body_bytes, settings.body_timeout_s)
    except BodyTooLarge:
        return plain_error(413, "invalid_request_error", "Payload too large")
    except TimeoutError:
        return plain_error(408, "invalid_request_error", "Request timeout")
    except ClientDisconnect:
        return plain_error(400, "invalid_request_error", "Client disconnected")


class ToolsInvoke:
    """The endpoint, bound to a backend and the server's settings."""

    def __init__(
        self,
        backend: Backend,
        settings: ServerSettings,
        auth: Authenticator,
        denied: frozenset[str],
        refused: Callable[[Exception], Response],
    ) -> None:
        """`refused`: the answer to a write the damaged state database refused."""
        self.backend = backend
        self.refused = refused
        self.settings = settings
        self.auth = auth
        self.denied = denied

    async def handle(self, request: Request) -> Response:
        if request.method != "POST":
            return method_not_allowed("POST")
        refused = self.auth.refusal(request)
        if refused is not None:
            return refused
        raw = await body_or_refusal(request, self.settings)
        if isinstance(raw, Response):
            return raw
        return await self.invoke(raw, sandboxed=request.headers.get(SANDBOXED_HEADER) == "1")

    async def invoke(self, raw: bytes, *, sandboxed: bool = False) -> Response:
        try:
            body = loads_body(raw)
        except (ValueError, RecursionError) as exc:
            return plain_error(400, "invalid_request_error", json_problem(exc))
        if not isinstance(body, dict):
            body = {}
        name = body.get("tool", body.get("name"))
        if not isinstance(name, str) or not name.strip():
            return error(400, "invalid_request", "tools.invoke requires name")
        name = tool_name(name)
        redact = self.backend.redact  # an error may repeat what was asked (a name, a key), which may hold a secret
        args = body.get("args")
        args = dict(args) if isinstance(args, dict) else {}
        key = body.get("sessionKey")
        key = key.strip() if isinstance(key, str) and key.strip() and key.strip() != "main" else None
        requester = Requester(key=key, sandboxed=sandboxed or self.backend.is_sandboxed(self._requester_key(key)))
        if name in self.denied or name not in TOOLS or name not in self.backend.tools_for(requester):
            return error(404, "not_found", f"Tool not available: {redact(name)}")
        action = body.get("action")
        if (
            isinstance(action, str)
            and "action" not in args
            and "action" in TOOLS[name].parameters.get("properties", {})
        ):
            args["action"] = action
        try:
            details = await self.backend.call_tool(name, args, requester)
        except ToolInputError as exc:
            return error(400, "tool_error", redact(str(exc)))
        except UnknownToolError:
            return error(404, "not_found", f"Tool not available: {redact(name)}")
        except StoreDamaged as exc:
            return self.refused(exc)
        except Exception as exc:  # noqa: BLE001 - the client learns nothing of the failure but that it failed
            log_failure(f"tool {name}", exc, self.backend.redact)
            return error(500, "tool_error", "tool execution failed")
        content = [{"type": "text", "text": indented_json(details)}]
        return json_response(200, {"ok": True, "result": {"content": content, "details": details}})

    def _requester_key(self, key: str | None) -> str:
        return self.backend.canonical(key) if key else self.backend.main_session_key()
