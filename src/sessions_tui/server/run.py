"""Running the application on uvicorn, its requests parsed by httptools, with bounds on request heads.

uvicorn bounds an idle keep-alive connection and the app a body's pace (it reads bodies within
`body_timeout_s`), but neither how long a request head may take to arrive (a client sending a
header a minute would hold its connection for ever) nor, on httptools, how big it may grow.
`HeadBoundProtocol` closes a connection that has not sent a whole request head within
`header_timeout_s` of connecting or of its last response, and answers a head past `MAX_HEAD_BYTES`
with 431, as the gateway's Node server does.

httptools is llhttp, the gateway's own parser: a request it cannot parse (a made-up method, a
malformed line) gets the same 400 the gateway gives, and a request costs ~60 µs less to parse than
on h11.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from sessions_tui.server.events import EventStream
from sessions_tui.server.settings import ServerSettings

MAX_HEAD_BYTES = 16 * 1024
"""The largest request head taken (Node's `maxHeaderSize`, the gateway's bound): past it, 431."""

_TOO_LARGE = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


def head_bound_protocol(timeout_s: float) -> type[HttpToolsProtocol]:
    class HeadBoundProtocol(HttpToolsProtocol):
        """uvicorn's httptools protocol, with a deadline and a size bound on each request head.

        A head is under way from its message's first byte (`on_message_begin`) to its end
        (`on_headers_complete`). Its bytes are counted a read at a time: a read that begins a head
        on an idle connection, or falls wholly within one. A read that ends one message and begins
        the next (pipelining) is not counted, so such a head is cut at most one read past the
        bound."""

        _head_timer: asyncio.TimerHandle | None = None
        _begun = 0
        _heads = 0
        _done = 0
        _head_bytes = 0

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(timeout_s, self._head_expired)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_expired(self) -> None:
            self._head_timer = None
            if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
                self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            idle = self._begun == self._done
            begun, heads = self._begun, self._heads
            super().data_received(data)
            if self.transport.is_closing() or self._begun == self._heads:
                return  # closed, or no head under way
            if (begun, heads) == (self._begun, self._heads):
                self._head_bytes += len(data)  # within one head
            else:
                self._head_bytes = len(data) if idle and self._begun == begun + 1 else 0
            if self._head_bytes > MAX_HEAD_BYTES:
                self.transport.write(_TOO_LARGE)
                self.transport.close()

        def on_message_begin(self) -> None:
            self._begun += 1
            super().on_message_begin()

        def on_headers_complete(self) -> None:
            self._heads = self._begun
            self._head_bytes = 0
            self._disarm()
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            self._done = self._begun
            super().on_message_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return HeadBoundProtocol


def uvicorn_config(app: Any, settings: ServerSettings) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        http=head_bound_protocol(settings.header_timeout_s),
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
