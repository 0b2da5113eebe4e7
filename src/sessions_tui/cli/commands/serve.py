"""`sessions-tui serve`: the HTTP face on the engine of a state directory.

Which token, which host: a token from --token, $SESSIONS_TUI_TOKEN or `gateway.auth.token`;
without any, loopback only, with a fresh random token in `<state>/serve.token` (mode 600, never
printed). A host other than loopback without a token is refused: anyone who can reach the port
could otherwise read every session.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
from pathlib import Path

from pydantic import SecretStr

from sessions_tui.backend.local import LocalBackend
from sessions_tui.backend.redaction import secret_text
from sessions_tui.cli.backends import open_backend
from sessions_tui.cli.errors import EXIT_OK, UsageError
from sessions_tui.cli.options import TOKEN_ENV
from sessions_tui.terminal_text import visible_line

TOKEN_FILE = "serve.token"


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


async def run_serve(opts: argparse.Namespace, backend: LocalBackend) -> None:
    from sessions_tui.server.app import build_app
    from sessions_tui.server.run import serve
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
    )
    app = build_app(backend, settings)
    stop_following = asyncio.Event()
    follow: asyncio.Task[None] | None = None
    if opts.openclaw_root is not None:
        root = opts.openclaw_root
        follow = asyncio.create_task(
            backend.follow_openclaw(root, stop_following, lambda tick: None, own_connection=True)
        )

    def ready(url: str) -> None:
        print(
            f"sessions-tui serve: {url} (state {visible_line(str(backend.engine.state_dir))}; token {origin})",
            flush=True,
        )

    try:
        await serve(app, settings, on_ready=ready)
    except OSError as exc:
        raise UsageError(f"serve: cannot listen on {opts.host}:{port}: {exc.strerror or exc}") from exc
    finally:
        stop_following.set()
        if follow is not None:
            await asyncio.gather(follow, return_exceptions=True)


def run(opts: argparse.Namespace) -> int:
    backend = open_backend(opts)
    asyncio.run(run_serve(opts, backend))
    return EXIT_OK
