"""Running the application on uvicorn, with a bound on slow request heads.

uvicorn bounds an idle keep-alive connection, a request head's size and a body's pace (the app
reads bodies within `body_timeout_s`), but not how long a request head may take to arrive: a
client sending a header a minute would hold its connection for ever. `HeadTimeoutProtocol` closes
a connection that has not sent a whole request head within `header_timeout_s` of connecting or of
its last response.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from sessions_tui.server.events import EventStream
from sessions_tui.server.settings import ServerSettings


def head_timeout_protocol(timeout_s: float) -> type[H11Protocol]:
    class HeadTimeoutProtocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(timeout_s, self._head_expired)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_expired(self) -> None:
            self._head_timer = None
            if self.conn.their_state in (h11.IDLE, h11.DONE) and not self.transport.is_closing():
                if self.cycle is None or self.cycle.response_complete:
                    self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def handle_events(self) -> None:
            super().handle_events()
            if self.conn.their_state is not h11.IDLE:
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return HeadTimeoutProtocol


def uvicorn_config(app: Any, settings: ServerSettings) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        http=head_timeout_protocol(settings.header_timeout_s),
        ws="none",
        lifespan="on",
        timeout_keep_alive=settings.keep_alive_s,
        log_level="warning",
        access_log=False,
        server_header=False,
        date_header=True,
    )


def listen(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    """The listening socket, bound here so that a port in use is an `OSError` of ours (uvicorn
    would log it and exit the process)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.create_server((host.strip("[]"), port), family=family, backlog=2048, reuse_port=reuse_port)
    # Handed a socket, uvicorn's connections do not get TCP_NODELAY as its own sockets' do: an
    # answer written as head then body would wait for the client's delayed ACK (40 ms). Linux
    # connections inherit it from the listening socket.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setblocking(False)
    return sock


def listen_shared(host: str, port: int, count: int) -> list[socket.socket]:
    """`count` listening sockets on one address, one per worker of `serve --workers`. Where the
    system has SO_REUSEPORT, each is a socket of its own on the same port, and the kernel spreads
    new connections evenly over them; on one shared socket, the worker that wakes first accepts
    all that are waiting (asyncio accepts up to a backlog at a time), and a burst of clients lands
    on one worker. Raises `OSError` when the address cannot be listened on."""
    if count == 1 or not hasattr(socket, "SO_REUSEPORT"):
        return [listen(host, port)] * count
    first = listen(host, port, reuse_port=True)
    socks = [first]
    try:
        for _ in range(count - 1):
            socks.append(listen(host, first.getsockname()[1], reuse_port=True))
    except OSError:
        for sock in socks:
            sock.close()
        raise
    return socks


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class _Server(uvicorn.Server):
    """uvicorn's server, which ends the event streams before it waits for its connections to end:
    a connected `/events` reader would otherwise hold a stopping server for ever."""

    def __init__(self, config: uvicorn.Config, events: EventStream | None) -> None:
        super().__init__(config)
        self._events = events

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self._events is not None:
            self._events.close()
        await super().shutdown(sockets)


async def serve(
    app: Any,
    settings: ServerSettings,
    *,
    on_ready: Callable[[str], None] | None = None,
    sock: socket.socket | None = None,
) -> None:
    """Serve until interrupted (SIGINT/SIGTERM end it gracefully); `on_ready(url)` once listening.
    On `sock` when given (a worker of several, on the socket they share), else on a socket bound
    to the settings' address: raises `OSError` when it cannot be listened on."""
    sock = listen(settings.host, settings.port) if sock is None else sock
    server = _Server(uvicorn_config(app, settings), getattr(getattr(app, "state", None), "events", None))

    async def announce() -> None:
        while not server.started:
            if server.should_exit:
                return
            await asyncio.sleep(0.01)
        if on_ready is not None:
            on_ready(url_of(sock))

    watcher = asyncio.create_task(announce())
    try:
        await server.serve(sockets=[sock])
    finally:
        watcher.cancel()
        sock.close()
