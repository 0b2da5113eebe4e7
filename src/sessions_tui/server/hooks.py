"""`POST <hooks.path>/agent` and `/wake`: OpenClaw's inbound hook contract, answered as its gateway answers it.

In the gateway's order, each with its status and body (plain text where it writes plain text):
a `token` query parameter (400, even beside a good header), the method (405, `Allow: POST`), the
hook token, as `Authorization: Bearer` or `x-openclaw-token` (401; a client that failed 20 times in
a minute is throttled with 429 and `Retry-After`, loopback too; a success clears its count), the
bare base path (404), the body (413 past `hooks.maxBodyBytes`, 408 when it stalls, 400 when it is
not JSON), then the endpoint: `/wake` or `/agent`, any other path 404 (no mappings here). A body
the hook contract refuses, or the hook policy, is a 400 with the gateway's `error`; a session that
cannot take work a 409 (a damaged state database: the server's 503 `store_damaged`). An admitted
`/agent` answers `{ok, runId}` at once, or with `waitForCompletion` when its run has ended, with
its `completion`; a replay of it (hook_replay.py) answers the same. The run itself goes through
the backend (`run_hook`), which never blocks this loop.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import OperationRefused
from sessions_tui.backend.toolkit.inputs import json_problem, loads_body
from sessions_tui.backend.values.vocabulary import HookRun, StoreDamaged, ToolInputError
from sessions_tui.server.access import AuthLockout, bearer_token, token_matches
from sessions_tui.server.hook_payload import PayloadRefused, agent_hook, idempotency_key, wake_hook
from sessions_tui.server.hook_replay import HookReplays
from sessions_tui.server.invoke import BodyTooLarge, json_response, read_body
from sessions_tui.server.settings import HookSettings

PLAIN = "text/plain; charset=utf-8"
QUERY_TOKEN = (
    "Hook token must be provided via Authorization: Bearer <token> or X-OpenClaw-Token header "
    "(query parameters are not allowed)."
)


def _plain(status: int, text: str, headers: dict[str, str] | None = None) -> Response:
    return Response(text, status, headers, media_type=PLAIN)


def _refused(status: int, error: str, **extra: Any) -> Response:
    return json_response(status, {"ok": False, "error": error, **extra})


def hook_token(request: Request) -> str | None:
    """OpenClaw's `extractHookToken`: a non-empty Bearer token first, else `x-openclaw-token`."""
    header = (request.headers.get("x-openclaw-token") or "").strip()
    return bearer_token(request.headers.get("authorization")) or header or None


def replay_scope(hook: HookRun, default_key: str | None) -> dict[str, Any]:
    """The dispatch fields a replay must repeat (OpenClaw's `dispatchScope`, the agent as asked)."""
    return {
        "agentId": hook.agent_id.lower() if hook.agent_id else None,
        "sessionKey": hook.session_key or default_key,
        "message": hook.message,
        "name": hook.name,
        "wakeMode": "now",
        "sessionMode": hook.session_mode,
        "deliver": hook.deliver,
        "channel": hook.channel or "last",
        "to": hook.to,
        "model": hook.model,
        "thinking": hook.thinking,
        "timeoutSeconds": hook.timeout_seconds,
    }


class HooksEndpoint:
    """The hook routes of one server, bound to its backend and its `hooks` settings."""

    def __init__(self, backend: Backend, settings: HookSettings, refused: Callable[[Exception], Response]) -> None:
        """`refused`: the answer to a hook whose write the damaged state database refused (503)."""
        self.backend = backend
        self.settings = settings
        self.refused = refused
        self._token = settings.token.get_secret_value()
        self.lockout = AuthLockout(
            settings.auth_max_failures, settings.auth_window_s, settings.auth_lockout_s, exempt_loopback=False
        )
        self.replays = HookReplays()

    def routes(self) -> list[BaseRoute]:
        base = self.settings.path
        return [_any_method(base, self.handle), _any_method(base + "/{sub:path}", self.handle)]

    async def handle(self, request: Request) -> Response:
        if "token" in request.query_params:
            return _plain(400, QUERY_TOKEN)
        if request.method != "POST":
            return _plain(405, "Method Not Allowed", {"Allow": "POST"})
        refused = self._auth_refusal(request)
        if refused is not None:
            return refused
        sub = request.url.path[len(self.settings.path) :].lstrip("/")
        if not sub:
            return _plain(404, "Not Found")
        payload = await self._payload(request)
        if isinstance(payload, Response):
            return payload
        try:
            if sub == "wake":
                return await self._wake(payload)
            if sub == "agent":
                return await self._agent(request, payload)
        except PayloadRefused as exc:
            return _refused(400, str(exc))
        except ToolInputError as exc:
            return _refused(400, str(exc))
        except OperationRefused as exc:
            return _refused(409, str(exc))
        except StoreDamaged as exc:
            return self.refused(exc)
        return _plain(404, "Not Found")

    def _auth_refusal(self, request: Request) -> Response | None:
        client = request.client.host if request.client else None
        if token_matches(hook_token(request), self._token):
            self.lockout.succeeded(client)
            return None
        wait = self.lockout.retry_after(client)
        if wait is not None:
            return _plain(429, "Too Many Requests", {"Retry-After": str(wait)})
        self.lockout.failed(client)
        return _plain(401, "Unauthorized")

    async def _payload(self, request: Request) -> dict[str, Any] | Response:
        """The body as a JSON object (an empty body is `{}`, another JSON value too), or the answer."""
        try:
            raw = await read_body(request, self.settings.max_body_bytes, self.settings.body_timeout_s)
        except BodyTooLarge:
            return _refused_closing(413, "payload too large")
        except TimeoutError:
            return _refused_closing(408, "request body timeout")
        except ClientDisconnect:
            return _refused(400, "Connection closed")
        try:
            body = loads_body(raw, {})
        except (ValueError, RecursionError) as exc:
            return _refused(400, json_problem(exc))
        return body if isinstance(body, dict) else {}

    async def _wake(self, payload: dict[str, Any]) -> Response:
        wake = wake_hook(payload)
        outcome = await self.backend.wake_hook(wake)
        return json_response(200, {"ok": True, "mode": wake.mode, "eventOutcome": outcome})

    async def _agent(self, request: Request, payload: dict[str, Any]) -> Response:
        wait = payload.get("waitForCompletion") is True
        hook = agent_hook(payload, self.settings.channels, f"{self.settings.path}/agent")
        replay = idempotency_key(request.headers, payload)
        key = self.replays.key(replay, self._token, "agent", replay_scope(hook, self.settings.default_session_key))
        admitted, completion = await self.replays.admit(
            key, lambda: self.backend.run_hook(hook), self.backend.hook_completion
        )
        body: dict[str, Any] = {"ok": True, "runId": admitted.run_id}
        if wait:
            body["completion"] = (await completion()).wire()
        return json_response(200, body)


def _refused_closing(status: int, error: str) -> Response:
    """A body refused before it was read whole: the gateway answers and closes the connection."""
    return Response(
        json.dumps({"ok": False, "error": error}),
        status,
        {"Connection": "close"},
        media_type="application/json; charset=utf-8",
    )


def _any_method(path: str, endpoint: Any) -> Route:
    route = Route(path, endpoint)
    route.methods = None  # every method reaches the endpoint, which answers 405 itself
    return route
