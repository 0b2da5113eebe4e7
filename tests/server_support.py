"""`sessions-tui serve`'s application on a real loopback port, in a thread of its own, for tests.

The listening socket exists before the server's loop starts, so a test's first request waits in
the socket's backlog until the engine has started: nothing to poll.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from pydantic import SecretStr

from sessions_tui.backend.local.backend import LocalBackend, open_local
from sessions_tui.server.app import build_app
from sessions_tui.server.run import listen, url_of, uvicorn_config
from sessions_tui.server.settings import ServerSettings

TOKEN = "test-token-7f3a"
LEGACY = Path(__file__).parent / "fixtures" / "openclaw-2026.9.6" / "legacy-state"


def local_backend(state: Path, config: dict[str, Any] | None = None, *, seed: bool = False) -> LocalBackend:
    """A local backend on `state` with `config`; with `seed`, the OpenClaw fixture's sessions imported."""
    state.mkdir(parents=True, exist_ok=True)
    config_path = state / "config.json5"
    config_path.write_text(json.dumps(config or {}))
    backend = open_local(state, config_path)
    if seed:
        source = state.parent / (state.name + "-openclaw")
        shutil.copytree(LEGACY, source)
        asyncio.run(backend.import_openclaw(source))
    return backend


@contextmanager
def served(backend: LocalBackend, **settings: Any) -> Iterator[str]:
    """The backend served on 127.0.0.1 (token `TOKEN` unless given); yields the base URL. The
    server's lifespan starts the backend and closes it when the block ends."""
    chosen = ServerSettings(**{"host": "127.0.0.1", "port": 0, "token": SecretStr(TOKEN), **settings})
    app = build_app(backend, chosen)
    sock = listen(chosen.host, 0)
    server = uvicorn.Server(uvicorn_config(app, chosen))
    failure: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(server.serve(sockets=[sock]))
        except BaseException as exc:  # noqa: BLE001 - reported to the test below
            failure.append(exc)

    thread = threading.Thread(target=run, name="sessions-tui-serve", daemon=True)
    thread.start()
    try:
        yield url_of(sock)
    finally:
        server.should_exit = True
        thread.join(60)
        sock.close()
    assert not thread.is_alive(), "the server did not stop"
    assert not failure, failure
