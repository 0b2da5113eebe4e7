"""`--remote URL [--token T]`: the dashboard, `tool` and `send` on servers instead of a state directory.

One URL gives a remote backend; several give one backend over all of them (each session marked
with its server). The token of each URL is the `--token` in the same place (one token for all
when only one is given), else `$SESSIONS_TUI_TOKEN`. What a remote face cannot do (import or
follow an OpenClaw, the demo) is refused up front.
"""

from __future__ import annotations

import argparse
import os
from urllib.parse import urlsplit

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.cli.errors import UsageError
from sessions_tui.cli.options import TOKEN_ENV


def remote_urls(opts: argparse.Namespace) -> list[str]:
    return list(getattr(opts, "remote", None) or [])


def _checked_url(url: str) -> str:
    """`url` trimmed, or `UsageError` saying why it is not a server's address."""
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - a port that is no number, or past 65535, raises here
    except ValueError as exc:
        raise UsageError(f"--remote {url!r}: not a URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--remote {url!r}: not an http:// or https:// URL with a host")
    if parts.username or parts.password:
        raise UsageError(f"--remote {parts.hostname}: give the token with --token, not in the URL")
    return url.strip().rstrip("/")


def pair_tokens(urls: list[str], tokens: list[str] | None) -> list[str | None]:
    """The token of each URL: the --token in the same place, one for all, or the environment's."""
    given = list(tokens or [])
    if not given:
        env = os.environ.get(TOKEN_ENV) or None
        return [env for _ in urls]
    if len(given) == 1:
        return [given[0] for _ in urls]
    if len(given) != len(urls):
        raise UsageError(f"--token: {len(given)} tokens for {len(urls)} --remote URLs: give one, or one each")
    return list(given)


def check_remote_command(opts: argparse.Namespace) -> None:
    """Refuse what does not go with --remote."""
    for flag, value in (("--state", opts.state), ("--openclaw", getattr(opts, "openclaw", None))):
        if value:
            raise UsageError(f"--remote and {flag} do not go together: the sessions are the server's")
    if getattr(opts, "demo", False):
        raise UsageError("--remote and --demo do not go together: run the demo on the server (serve --demo)")


def connect(url: str, token: str | None) -> Backend:
    """A backend on `url`: a sessions-tui server, else (no operator API there) an OpenClaw gateway."""
    from sessions_tui.backend.gateway.http import OpenClawGatewayBackend
    from sessions_tui.backend.remote.backend import NotSessionsTui, RemoteBackend

    ours = RemoteBackend(url, token)
    try:
        ours.connect_blocking()
        return ours
    except NotSessionsTui:
        ours.close()
    except BaseException:
        ours.close()
        raise
    gateway = OpenClawGatewayBackend(url, token)
    try:
        gateway.connect_blocking()
    except BaseException:
        gateway.close()
        raise
    return gateway


def open_remote(opts: argparse.Namespace) -> Backend:
    """The backend over the --remote URLs, connected (its public config read)."""
    from sessions_tui.backend.remote.backend import RemoteError

    check_remote_command(opts)
    urls = [_checked_url(u) for u in remote_urls(opts)]
    tokens = pair_tokens(urls, getattr(opts, "token", None))
    backends: list[Backend] = []
    try:
        for url, token in zip(urls, tokens, strict=True):
            backends.append(connect(url, token))
    except RemoteError as exc:
        for backend in backends:
            backend.close()
        raise UsageError(str(exc)) from exc
    if len(backends) == 1:
        return backends[0]
    from sessions_tui.backend.several import SeveralBackends

    return SeveralBackends(backends)
