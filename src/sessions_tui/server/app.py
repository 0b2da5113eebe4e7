"""The ASGI application of `sessions-tui serve` (Starlette): its routes and their order of checks.

- `POST /tools/invoke` — OpenClaw's tool endpoint (invoke.py).
- `GET /health` — the process is up; `GET /readyz` — the engine is started and answers.
- `GET /events` — the engine's events as server-sent events (events.py); bearer auth.
- `POST /sessions-tui/v1/<op>` — the operator's reads for remote dashboards (operator.py); bearer auth.
- `POST <hooks.path>/agent`, `/wake` — OpenClaw's inbound hooks, with their own token (hooks.py), when enabled.

Another method on these routes gets a 405 naming the one it takes (`Allow: POST`); an exception
of the server's own gets a bare 500, its traceback redacted in the server's log (failures.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.remote.wire import API_PREFIX
from sessions_tui.backend.values.vocabulary import StoreChanged, StoreDamaged
from sessions_tui.server.access import http_denied
from sessions_tui.server.damage import DamageReport
from sessions_tui.server.events import EventStream
from sessions_tui.server.failures import ContainFailures
from sessions_tui.server.hooks import HooksEndpoint
from sessions_tui.server.invoke import Authenticator, ToolsInvoke, json_response, method_not_allowed
from sessions_tui.server.operator import OperatorApi
from sessions_tui.server.settings import ServerSettings

STORE_POLL_S = 0.5
SWEEP_S = 60.0

Endpoint = Callable[[Request], Awaitable[Response]]


def _authenticated(auth: Authenticator, endpoint: Endpoint, method: str) -> Endpoint:
    async def guarded(request: Request) -> Response:
        if request.method != method:
            return method_not_allowed(method)
        refused = auth.refusal(request)
        return refused if refused is not None else await endpoint(request)

    return guarded


class AnyMethod(Route):
    """A route that takes every method (TRACE, CONNECT, made-up ones): its endpoint answers the
    ones it does not serve with its own 405 and `Allow`, as the gateway does, not Starlette's."""

    def __init__(self, path: str, endpoint: Endpoint) -> None:
        super().__init__(path, endpoint)
        self.methods = None


class ServerState:
    """What the routes share: when the server started and whether the engine is ready."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.ready = False


def build_app(backend: Backend, settings: ServerSettings, *, manage_backend: bool = True) -> Starlette:
    """The application over a backend. With `manage_backend`, its lifespan starts the backend and,
    at shutdown, waits for the work in flight and closes it."""
    state = ServerState()
    auth = Authenticator(settings)
    damage = DamageReport(backend)
    invoke = ToolsInvoke(backend, settings, auth, http_denied(settings.allow, settings.deny), damage.refused)
    events = EventStream(backend, settings.event_queue)
    operator = OperatorApi(backend, backend.public_config(), settings, damage.refused)

    async def health(request: Request) -> Response:
        return json_response(200, {"ok": True, "status": "live"}, {"Cache-Control": "no-store"})

    async def readyz(request: Request) -> Response:
        uptime_ms = int((time.monotonic() - state.started) * 1000)
        body = {"ready": state.ready, "failing": [] if state.ready else ["engine"], "uptimeMs": uptime_ms}
        return json_response(200 if state.ready else 503, body, {"Cache-Control": "no-store"})

    async def watch_store() -> None:
        """Other processes' commits (a `send` command, an OpenClaw follower) as `StoreChanged`;
        the sub-agents due for archiving archived, as the dashboard does for a local state. A
        state database found damaged (here or by another process) is logged once, and not swept."""
        loop = asyncio.get_running_loop()
        woken = asyncio.Event()

        def wake() -> None:
            loop.call_soon_threadsafe(woken.set)

        told = await backend.watch_store_changes(wake)
        version = await backend.data_version()
        last_sweep = time.monotonic()
        while True:
            if told:  # a PostgreSQL store tells of other hosts' commits as they land: no poll's wait
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(woken.wait(), STORE_POLL_S)
                woken.clear()
            else:
                await asyncio.sleep(STORE_POLL_S)
            now = await backend.data_version()
            if now != version:
                version = now
                events.broadcast(StoreChanged(ts=backend.now()))
            damaged = backend.store_damage
            damage.noticed(damaged)
            if time.monotonic() - last_sweep >= SWEEP_S and damaged is None:
                last_sweep = time.monotonic()
                try:
                    await backend.sweep()
                except StoreDamaged as exc:
                    damage.noticed(backend.store_damage or str(exc))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if manage_backend:
            await backend.start()
            await backend.serve_cron_jobs()  # the jobs run when due, while it serves
        watcher = asyncio.get_running_loop().create_task(watch_store())
        indexing = asyncio.get_running_loop().create_task(backend.catch_up_search_index())  # if it is behind
        state.ready = True
        try:
            yield
        finally:
            state.ready = False
            watcher.cancel()
            indexing.cancel()
            await asyncio.gather(watcher, indexing, return_exceptions=True)
            if manage_backend:
                await backend.drain()
                await backend.aclose()

    routes: list[BaseRoute] = [
        AnyMethod("/tools/invoke", invoke.handle),
        Route("/health", health, methods=["GET", "HEAD"]),
        Route("/readyz", readyz, methods=["GET", "HEAD"]),
        AnyMethod("/events", _authenticated(auth, events.handle, "GET")),
        AnyMethod(API_PREFIX + "/{op}", _authenticated(auth, operator.handle, "POST")),
    ]
    if settings.hooks is not None:
        routes += HooksEndpoint(backend, settings.hooks, damage.refused).routes()
    middleware = [Middleware(ContainFailures, redact=backend.redact)]
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.router.redirect_slashes = False  # the gateway: `/tools/invoke/` is not found, not redirected
    app.state.server = state
    app.state.events = events
    return app
