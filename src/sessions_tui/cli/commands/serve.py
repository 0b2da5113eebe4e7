"""`sessions-tui serve`: the HTTP face on the engine of a state directory.

Which token, which host: a token from --token, $SESSIONS_TUI_TOKEN or `gateway.auth.token`;
without any, loopback only, with a fresh random token in `<state>/serve.token` (mode 600, never
printed). A host other than loopback without a token is refused: anyone who can reach the port
could otherwise read every session. With `hooks.enabled`, OpenClaw's inbound hooks are answered
too, under `hooks.path`, with the hook token (server/hooks.py).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import SecretStr

from sessions_tui.backend.local.backend import LocalBackend, open_local
from sessions_tui.backend.toolkit.redaction import secret_text
from sessions_tui.backend.toolkit.state_dir import ConfigError, StateDirError
from sessions_tui.backend.values.vocabulary import StoreError
from sessions_tui.cli.backends import open_backend
from sessions_tui.cli.errors import EXIT_OK, UsageError, run_reporting
from sessions_tui.cli.options import TOKEN_ENV, TOKEN_FILE
from sessions_tui.terminal_text import visible_line

if TYPE_CHECKING:
    from sessions_tui.server.settings import HookSettings, ServerSettings

EXIT_FAILED = 1
"""A worker of several ended while no stop was asked."""


def write_token_file(path: Path) -> str:
    """A new random token, written to `path` readable by its owner only."""
    token = secrets.token_urlsafe(32)
    if path.is_symlink():  # never written through a link to somewhere else
        path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as out:
        os.fchmod(out.fileno(), 0o600)
        out.write(token + "\n")
    return token


def choose_token(opts: argparse.Namespace, backend: LocalBackend) -> tuple[str, str]:
    """(the token, where it came from, for the start-up line)."""
    from sessions_tui.server.settings import is_loopback_host

    given = opts.token[-1] if isinstance(opts.token, list) else opts.token
    for value, origin in (
        (given, "--token"),
        (os.environ.get(TOKEN_ENV), f"${TOKEN_ENV}"),
        (backend.engine.config.gateway.auth.token, "gateway.auth.token"),
    ):
        text = secret_text(value)
        if text:
            return text, origin
    if not is_loopback_host(opts.host):
        raise UsageError(
            f"serve: --host {opts.host} is not loopback and there is no token: give --token, ${TOKEN_ENV} "
            "or gateway.auth.token (anyone reaching the port could read every session)"
        )
    path = backend.engine.state_dir / TOKEN_FILE
    return write_token_file(path), f"in {path}"


def hook_settings(backend: LocalBackend) -> HookSettings | None:
    """The inbound hooks' settings from the config's `hooks` section; None when they are off."""
    from sessions_tui.server.settings import HookSettings

    config = backend.engine.config
    token = config.hooks.secret()
    if not config.hooks.enabled or token is None:
        return None
    return HookSettings(
        token=SecretStr(token),
        path=config.hooks.path,
        max_body_bytes=config.hooks.max_body_bytes,
        channels=tuple(config.channels),
        default_session_key=config.hooks.default_session_key,
    )


def server_settings(opts: argparse.Namespace, backend: LocalBackend) -> tuple[ServerSettings, str]:
    """The server's settings from the options and the config, and where its token came from."""
    from sessions_tui.server.settings import DEFAULT_PORT, ServerSettings

    token, origin = choose_token(opts, backend)
    gateway = backend.engine.config.gateway
    port = opts.port if opts.port is not None else gateway.port if gateway.port is not None else DEFAULT_PORT
    if not 0 <= port <= 65535:
        raise UsageError(f"serve: --port {port}: not a port (0–65535)")
    settings = ServerSettings(
        host=opts.host,
        port=port,
        token=SecretStr(token),
        allow=tuple(gateway.tools.allow),
        deny=tuple(gateway.tools.deny),
        hooks=hook_settings(backend),
    )
    return settings, origin


def workers_of(opts: argparse.Namespace) -> int:
    """`--workers N`: a whole number, 1 or more (default 1)."""
    given = getattr(opts, "workers", None)
    if given is None:
        return 1
    text = given.strip()
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise UsageError(f"serve: --workers {given}: not a number of processes (a whole number, 1 or more)")
    return int(text)


def listening(settings: ServerSettings, count: int = 1) -> list[socket.socket]:
    """`count` listening sockets on the settings' address (server/run.py's `listen_shared`)."""
    from sessions_tui.server.run import listen_shared

    try:
        return listen_shared(settings.host, settings.port, count)
    except OSError as exc:
        raise UsageError(f"serve: cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc}") from exc


def ready_line(url: str, state_dir: Path, origin: str, hooks: str | None = None) -> None:
    """The line saying where it listens; `hooks`: the path inbound hooks are answered under, if on."""
    taking = f"; hooks at {url}{hooks}/agent and /wake" if hooks is not None else ""
    print(f"sessions-tui serve: {url} (state {visible_line(str(state_dir))}; token {origin}{taking})", flush=True)


async def run_serve(
    opts: argparse.Namespace,
    backend: LocalBackend,
    settings: ServerSettings,
    sock: socket.socket,
    on_ready: Callable[[str], None],
    *,
    follow: bool = True,
) -> None:
    """Serve `backend` on `sock` until stopped; with `follow`, the OpenClaw of `--openclaw` followed beside it."""
    from sessions_tui.server.app import build_app
    from sessions_tui.server.run import serve

    app = build_app(backend, settings)
    stop_following = asyncio.Event()
    following: asyncio.Task[None] | None = None
    if follow and opts.openclaw_root is not None:
        root = opts.openclaw_root
        following = asyncio.create_task(
            backend.follow_openclaw(root, stop_following, lambda tick: None, own_connection=True)
        )
    try:
        await serve(app, settings, on_ready=on_ready, sock=sock)
    finally:
        stop_following.set()
        if following is not None:
            await asyncio.gather(following, return_exceptions=True)


def run_workers(
    opts: argparse.Namespace, count: int, backend: LocalBackend, settings: ServerSettings, origin: str
) -> int:
    """`count` worker processes on one socket (server/workers.py), each with a backend of its own
    on the state directory; the first follows `--openclaw`. The parent's backend is closed first:
    a forked process must not share its SQLite connection or its threads."""
    from sessions_tui.server.run import url_of
    from sessions_tui.server.workers import WorkerEnded, fork_workers

    state_dir, config_path = backend.engine.state_dir, opts.config_path
    hooks_path = settings.hooks.path if settings.hooks is not None else None
    backend.close()
    socks = listening(settings, count)

    def work(index: int, ready: Callable[[], None]) -> int:
        sock = socks[index]
        for other in socks:  # the others' sockets: a worker accepts on its own only
            if other is not sock:
                other.close()

        def serve_here() -> int:
            try:
                own = open_local(state_dir, config_path)
            except (ConfigError, StoreError, StateDirError) as exc:
                raise UsageError(f"serve: worker {index + 1}: {exc}") from exc
            asyncio.run(run_serve(opts, own, settings, sock, lambda url: ready(), follow=index == 0))
            return EXIT_OK

        return run_reporting(serve_here, opts)

    try:
        fork_workers(count, work, lambda: ready_line(url_of(socks[0]), state_dir, origin, hooks_path))
    except WorkerEnded as exc:
        print(f"sessions-tui: serve: {exc}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        for sock in socks:
            sock.close()
    return EXIT_OK


def run(opts: argparse.Namespace) -> int:
    count = workers_of(opts)
    backend = open_backend(opts)
    settings, origin = server_settings(opts, backend)
    if count > 1:
        return run_workers(opts, count, backend, settings, origin)
    [sock] = listening(settings)
    state_dir = backend.engine.state_dir
    hooks_path = settings.hooks.path if settings.hooks is not None else None
    try:
        asyncio.run(
            run_serve(opts, backend, settings, sock, lambda url: ready_line(url, state_dir, origin, hooks_path))
        )
    finally:
        sock.close()
    return EXIT_OK
