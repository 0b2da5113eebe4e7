"""Webhook receivers that misbehave, on real loopback sockets.

`SilentServer` accepts connections and never says a word. `GatedServer` is an HTTP server
(pytest-httpserver, threaded) whose answers wait until its gate opens: a webhook that hangs for
as long as a test needs, then answers, recording every request's `Idempotency-Key`. `DownServer`
answers 503 until it is `up`, then 200, keeping the keys it refused and those it took apart.
"""

from __future__ import annotations

import socket
import threading
from typing import Any

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response


class SilentServer:
    """Accepts every connection and stays silent; `accepted` is set at the first."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = threading.Event()
        self._conns: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self._conns.append(conn)
            self.accepted.set()

    def close(self) -> None:
        self.sock.close()
        for conn in self._conns:
            conn.close()

    def __enter__(self) -> SilentServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class GatedServer:
    """An HTTP webhook whose answers (200) wait for `gate`; `arrived` is set by each request."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.arrived = threading.Event()
        self.keys: list[str] = []
        self.server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        self.server.expect_request("/hook", method="POST").respond_with_handler(self._handle)
        self.server.start()

    @property
    def url(self) -> str:
        return self.server.url_for("/hook")

    def _handle(self, request: Request) -> Response:
        self.keys.append(request.headers.get("Idempotency-Key", ""))
        self.arrived.set()
        self.gate.wait(120)
        return Response("{}", status=200, content_type="application/json")

    def close(self) -> None:
        self.gate.set()
        self.server.clear()
        self.server.stop()


class DownServer:
    """An HTTP webhook that is down (503) until `up` is set; `refused_one` is set by the first
    request it refuses. `refused` and `accepted` are the `Idempotency-Key`s of each answer."""

    def __init__(self) -> None:
        self.up = threading.Event()
        self.refused_one = threading.Event()
        self.refused: list[str] = []
        self.accepted: list[str] = []
        self.server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        self.server.expect_request("/hook", method="POST").respond_with_handler(self._handle)
        self.server.start()

    @property
    def url(self) -> str:
        return self.server.url_for("/hook")

    def _handle(self, request: Request) -> Response:
        key = request.headers.get("Idempotency-Key", "")
        if not self.up.is_set():
            self.refused.append(key)
            self.refused_one.set()
            return Response("down for maintenance", status=503)
        self.accepted.append(key)
        return Response("{}", status=200, content_type="application/json")

    def close(self) -> None:
        self.server.clear()
        self.server.stop()
