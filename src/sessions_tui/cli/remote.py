"""`--remote URL [--token T]`: the dashboard and the commands on servers instead of a state directory.

A URL without a scheme (`host:port`) is `http://host:port`. One URL gives a remote backend;
several give one backend over all of them (each session marked with its server). The token of
each URL is the `--token` in the same place (one token for all when only one is given), else
`$SESSIONS_TUI_TOKEN`. What a remote face cannot do (import or
follow an OpenClaw, the demo) is refused up front.

What answers at a URL decides the backend (`connect`): `ws://` / `wss://` is an OpenClaw gateway's
WebSocket (`GatewaySocketBackend`); at `http(s)://` a `sessions-tui serve` is asked first (its
operator API), then an OpenClaw gateway over its WebSocket (the URL mapped to `ws(s)://`). Only
when the upgrade is refused with an HTTP status, or with `--remote-http-only`, is the gateway
spoken to over its HTTP tool API, polled (`OpenClawGatewayBackend`). While a gateway waits for
its owner to approve this device, the pairing line (its request id, `openclaw devices approve
<id>`) is said once on stderr, and the command waits. A server that cannot be reached, or that asks
for a token none was given for, is said in one line (`refusal_line`: where `serve` wrote its token).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from sessions_tui.backend.contract.types import BackendUnavailable, TokenRefused
from sessions_tui.cli.errors import UsageError
from sessions_tui.cli.options import GATEWAY_ADMIN_ENV, PASSWORD_ENV, TOKEN_ENV, TOKEN_FILE, remote_urls
from sessions_tui.counting import plural
from sessions_tui.terminal_text import visible_line

if TYPE_CHECKING:
    from sessions_tui.backend.contract.protocols import Backend
    from sessions_tui.backend.gateway.live import GatewaySocketBackend
    from sessions_tui.backend.values.vocabulary import EngineEvent


def _checked_url(url: str) -> str:
    """`url` trimmed (`http://` before a `host:port` without a scheme), or `UsageError` saying why it
    is not a server's address."""
    url = url.strip()
    if "://" not in url:
        url = f"http://{url}"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is no number, or past 65535, raises here
    except ValueError as exc:
        raise UsageError(f"--remote {url!r}: not a URL: {exc}") from None
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
        raise UsageError(
            f"--remote {url!r}: not an http:// or https:// URL (nor a gateway's ws:// or wss://) with a host"
        )
    if parts.username or parts.password:
        raise UsageError(f"--remote {parts.hostname}: give the token with --token, not in the URL")
    return url.rstrip("/")


def refusal_line(exc: BackendUnavailable) -> str:
    """What a server's refusal to connect is said as: its own line, and where a token is to be found
    when none was given (`serve` given none writes one into its state directory)."""
    if not isinstance(exc, TokenRefused) or exc.given:
        return str(exc)
    from sessions_tui.backend.toolkit.state_dir import resolve_state_dir
    from sessions_tui.cli.backends import demo_state_dir

    here = [path for path in (resolve_state_dir(None) / TOKEN_FILE, demo_state_dir() / TOKEN_FILE) if path.is_file()]
    where = f"here: {here[0]}" if here else f"by default {resolve_state_dir(None) / TOKEN_FILE}"
    return (
        f"{exc}: give it with --token, or set ${TOKEN_ENV}; a serve started without one wrote it to "
        f"{TOKEN_FILE} in its state directory ({visible_line(where)})"
    )


def pair_tokens(urls: list[str], tokens: list[str] | None) -> list[str | None]:
    """The token of each URL: the --token in the same place, one for all, or the environment's."""
    given = list(tokens or [])
    if not given:
        env = os.environ.get(TOKEN_ENV) or None
        return [env for _ in urls]
    if len(given) == 1:
        return [given[0] for _ in urls]
    if len(given) != len(urls):
        raise UsageError(
            f"--token: {plural(len(given), 'token')} for {plural(len(urls), '--remote URL')}: give one, or one each"
        )
    return list(given)


def check_remote_command(opts: argparse.Namespace) -> None:
    """Refuse what does not go with --remote."""
    for flag, value in (
        ("--state", opts.state),
        ("--store", getattr(opts, "store", None)),
        ("--openclaw", getattr(opts, "openclaw", None)),
    ):
        if value:
            raise UsageError(f"--remote and {flag} do not go together: the sessions are the server's")
    if getattr(opts, "demo", False):
        raise UsageError("--remote and --demo do not go together: run the demo on the server (serve --demo)")


def connect(url: str, token: str | None, *, password: str | None = None, http_only: bool = False) -> Backend:
    """A backend on `url`, found out by what answers there (see the module's docstring)."""
    if urlsplit(url).scheme in ("ws", "wss"):
        return gateway_socket(url, token, password)
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
    if not http_only:
        from sessions_tui.backend.gateway.live import NoGatewaySocket

        try:
            return gateway_socket(url, token, password)
        except NoGatewaySocket:
            pass  # HTTP answers, the WebSocket upgrade does not: the gateway's HTTP tool API
    from sessions_tui.backend.gateway.http import OpenClawGatewayBackend

    gateway = OpenClawGatewayBackend(url, token)
    try:
        gateway.connect_blocking()
    except BaseException:
        gateway.close()
        raise
    return gateway


def gateway_admin() -> bool:
    """Whether a gateway's WebSocket is asked for `operator.admin` too (`$SESSIONS_TUI_GATEWAY_ADMIN`)."""
    return os.environ.get(GATEWAY_ADMIN_ENV, "").strip() not in ("", "0")


def gateway_socket(url: str, token: str | None, password: str | None) -> GatewaySocketBackend:
    """An OpenClaw gateway over its WebSocket, connected; a pairing request said once on stderr."""
    from sessions_tui.backend.gateway.live import GatewaySocketBackend
    from sessions_tui.backend.values.vocabulary import LinkChanged

    backend = GatewaySocketBackend(url, token, password=password, admin=gateway_admin())
    said: set[str] = set()

    def tell(event: EngineEvent) -> None:
        if isinstance(event, LinkChanged) and event.state == "pairing" and event.line and event.line not in said:
            said.add(event.line)
            print(f"sessions-tui: {visible_line(event.line)}", file=sys.stderr, flush=True)

    stop = backend.subscribe(tell)
    try:
        backend.connect_blocking()
    except BaseException:
        backend.close()
        raise
    finally:
        stop()
    return backend


def connect_all(urls: list[str], tokens: list[str | None], *, password: str | None, http_only: bool) -> list[Backend]:
    """Every URL connected at once (each backend has its own I/O thread, so five gateways take
    as long as the slowest, not as all of them); the first failure, in the URLs' order, is a
    `UsageError` and closes the rest."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(urls), thread_name_prefix="connect") as pool:
        futures = [
            pool.submit(connect, url, token, password=password, http_only=http_only)
            for url, token in zip(urls, tokens, strict=True)
        ]
    backends: list[Backend] = []
    failure: BaseException | None = None
    for future in futures:
        exc = future.exception()
        if exc is None:
            backends.append(future.result())
        elif failure is None:
            failure = exc
    if failure is not None:
        for backend in backends:
            backend.close()
        if isinstance(failure, BackendUnavailable):
            raise UsageError(refusal_line(failure)) from failure
        raise failure
    return backends


def open_remote_unwaited(opts: argparse.Namespace) -> Backend | None:
    """The backend over --remote URLs that all name a gateway's socket (`ws://`, `wss://`), each
    connecting in the background from now on: the dashboard starts its screens meanwhile and meets
    each outcome (a refusal included) when it starts the backend. None for any other URL (what
    answers there is found out first, by `open_remote`)."""
    check_remote_command(opts)
    urls = [_checked_url(u) for u in remote_urls(opts)]
    if not urls or any(urlsplit(url).scheme not in ("ws", "wss") for url in urls):
        return None
    from sessions_tui.backend.gateway.live import GatewaySocketBackend

    tokens = pair_tokens(urls, getattr(opts, "token", None))
    password = getattr(opts, "password", None) or os.environ.get(PASSWORD_ENV) or None
    backends: list[Backend] = []
    for url, token in zip(urls, tokens, strict=True):
        backend = GatewaySocketBackend(url, token, password=password, admin=gateway_admin())
        backend.connect_in_background()
        backends.append(backend)
    if len(backends) == 1:
        return backends[0]
    from sessions_tui.backend.several import SeveralBackends

    return SeveralBackends(backends)


def open_remote(opts: argparse.Namespace) -> Backend:
    """The backend over the --remote URLs, connected (its public config read)."""
    check_remote_command(opts)
    urls = [_checked_url(u) for u in remote_urls(opts)]
    tokens = pair_tokens(urls, getattr(opts, "token", None))
    password = getattr(opts, "password", None) or os.environ.get(PASSWORD_ENV) or None
    http_only = bool(getattr(opts, "remote_http_only", False))
    if len(urls) == 1:
        try:
            return connect(urls[0], tokens[0], password=password, http_only=http_only)
        except BackendUnavailable as exc:
            raise UsageError(refusal_line(exc)) from exc
    backends = connect_all(urls, tokens, password=password, http_only=http_only)
    from sessions_tui.backend.several import SeveralBackends

    return SeveralBackends(backends)
