"""A client of one OpenClaw gateway over its WebSocket: handshake, calls, events, and staying connected.

`GatewayClient.connect()` makes one attempt: wait for `connect.challenge`, sign it with this
install's device identity, send `connect` (protocol 4, role operator, the scopes asked for, `caps`
with `tool-events`, the token or password, or the deviceToken this gateway issued before), and
answer `hello-ok` (a new deviceToken is stored for next time), `PairingRequired` (the typed
outcome of a device waiting for its owner's approval), or raise `GatewayRefused` with its one line.

`GatewayClient.start()` keeps the client connected: it connects, and whenever the socket drops it
reconnects with back-off (`engine.backoff.retry_delay`), waiting through a pairing request until
the device is approved. Each change of state goes to the `on_state` callback (`connecting`,
`connected`, `reconnecting`, `pairing`, `refused`, `closed`), and after every connect the hooks
registered with `on_connected` run (the caller re-subscribes there and resynchronises).

On a live connection `request(method, params)` sends a request and awaits the response with the
same id (a timeout, `RequestFailed` for `ok: false`, `ConnectionLost` when the socket goes first);
events go to the callbacks `subscribe(event, callback)` registered. Keep-alive is the gateway's:
it pings (the library answers) and sends `tick` events; a socket silent for two tick intervals is
closed (4000 "tick timeout") and reconnected, as the gateway's own client does.

`websockets` loads only here (and `cryptography` in `identity`): only the gateway backend imports them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import platform as _platform
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sessions_tui.backend.gateway.link.frames import (
    PROTOCOL_VERSION,
    ClientInfo,
    ConnectAuth,
    ConnectChallenge,
    ConnectParams,
    DeviceProof,
    ErrorCode,
    EventFrame,
    FrameError,
    GatewayError,
    HelloOk,
    RequestFrame,
    ResponseFrame,
    encode_frame,
    parse_frame,
)
from sessions_tui.backend.gateway.link.identity import (
    DeviceIdentity,
    DeviceTokens,
    StoredDeviceToken,
    device_auth_payload,
    load_or_create_identity,
)
from sessions_tui.backend.gateway.link.refusals import ConnectionLost, GatewayRefused, PairingRequired, RequestFailed
from sessions_tui.engine.backoff import retry_delay

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

__all__ = [
    "DEFAULT_CAPS",
    "DEFAULT_SCOPES",
    "EventCallback",
    "FrameTap",
    "GatewayClient",
    "GatewayOptions",
    "LinkState",
    "StateCallback",
]

log = logging.getLogger(__name__)

DEFAULT_SCOPES = ("operator.read", "operator.write")
DEFAULT_CAPS = ("tool-events",)
_CHALLENGE_TIMEOUT = 10.0
_RECONNECT_BASE = 1.0  # the gateway's own client: 1 s, doubling, at most 30 s
_RECONNECT_CAP = 30.0
_PAIRING_POLL_CAP = 5.0  # while the owner approves, ask again at least this often
_TICK_TIMEOUT_CLOSE = 4000


class LinkState(StrEnum):
    """Where a client's connection stands."""

    CONNECTING = "connecting"
    CONNECTED = "connected"
    RECONNECTING = "reconnecting"
    PAIRING = "pairing"
    """Waiting for the gateway's owner to approve this device."""
    REFUSED = "refused"
    """A refusal no retry will mend; `start()` stops."""
    CLOSED = "closed"


EventCallback = Callable[[EventFrame], None]
StateCallback = Callable[[LinkState, str | None], None]
FrameTap = Callable[[str, str], None]
ConnectedHook = Callable[["GatewayClient"], Awaitable[None]]


def _ws_url(url: str) -> str:
    """`ws://`/`wss://` as given; `http://`/`https://` mapped to them."""
    parts = urlsplit(url)
    scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
    if scheme not in ("ws", "wss"):
        raise ValueError(f"not a gateway URL: {url!r} (ws://, wss://, http:// or https://)")
    return parts._replace(scheme=scheme).geturl()


def _is_trusted(url: str) -> bool:
    """Loopback or TLS: where a stored deviceToken may be offered after a token mismatch."""
    parts = urlsplit(url)
    return parts.scheme == "wss" or (parts.hostname or "") in ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class GatewayOptions:
    """How to reach one gateway and who to be there."""

    url: str
    token: str | None = None
    password: str | None = None
    scopes: Sequence[str] = DEFAULT_SCOPES
    caps: Sequence[str] = DEFAULT_CAPS
    client_id: str = "gateway-client"
    """One of the gateway's closed list of client ids; `gateway-client` is its generic one."""
    client_mode: str = "ui"
    display_name: str = "sessions-tui"
    client_version: str = "0.1.0"
    platform: str = field(default_factory=lambda: _platform.system().lower() or "unknown")
    device_family: str | None = None
    request_timeout: float = 30.0
    open_timeout: float = 10.0
    identity_dir: Path | None = None
    """Where the device identity and deviceTokens live (default: the user's config directory)."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """Extra headers on the upgrade request (e.g. `X-Forwarded-For` through a trusted proxy)."""


class GatewayClient:
    """One gateway, over one WebSocket at a time (see the module's docstring)."""

    def __init__(
        self,
        options: GatewayOptions,
        *,
        identity: DeviceIdentity | None = None,
        tokens: DeviceTokens | None = None,
        on_state: StateCallback | None = None,
        tap: FrameTap | None = None,
    ) -> None:
        """`tap(direction, text)`, when given, sees every text frame: `>` sent, `<` received."""
        self.options = options
        self._tap = tap
        self.url = _ws_url(options.url)
        self._identity = identity
        self._tokens = tokens if tokens is not None else DeviceTokens(options.identity_dir)
        self._on_state = on_state
        self._subscribers: dict[str | None, list[EventCallback]] = {}
        self._connected_hooks: list[ConnectedHook] = []
        self._ws: ClientConnection | None = None
        self._pending: dict[str, asyncio.Future[Any]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._watchdog: asyncio.Task[None] | None = None
        self._supervisor: asyncio.Task[None] | None = None
        self._socket_done: asyncio.Event = asyncio.Event()
        self._closing = asyncio.Event()
        self._last_activity = 0.0
        self.hello: HelloOk | None = None
        self.state = LinkState.CLOSED
        self.last_line: str | None = None
        """The last refusal or pairing line (what the header or stderr shows)."""

    # -- identity ----------------------------------------------------------------------------------

    @property
    def identity(self) -> DeviceIdentity:
        """This install's device identity, read (or made) on first use."""
        if self._identity is None:
            self._identity = load_or_create_identity(self.options.identity_dir)
        return self._identity

    def _set_state(self, state: LinkState, line: str | None = None) -> None:
        self.state = state
        if line is not None:
            self.last_line = line
        if self._on_state is not None:
            try:
                self._on_state(state, line)
            except Exception:
                log.exception("gateway state callback failed")

    # -- subscribers -------------------------------------------------------------------------------

    def subscribe(self, event: str | None, callback: EventCallback) -> Callable[[], None]:
        """Call `callback` with every event named `event` (None: every event); returns the undo."""
        self._subscribers.setdefault(event, []).append(callback)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._subscribers.get(event, []).remove(callback)

        return unsubscribe

    def on_connected(self, hook: ConnectedHook) -> None:
        """Run `hook(client)` after every connect, the first and each reconnect (re-subscribe there)."""
        self._connected_hooks.append(hook)

    def _dispatch(self, frame: EventFrame) -> None:
        for key in (frame.event, None):
            for callback in list(self._subscribers.get(key, ())):
                try:
                    callback(frame)
                except Exception:
                    log.exception("gateway event callback for %s failed", frame.event)

    # -- one attempt -------------------------------------------------------------------------------

    def _auth(self, stored: StoredDeviceToken | None, *, with_stored: bool) -> tuple[ConnectAuth | None, str | None]:
        """The `auth` to send and the token the device signs (the gateway's `selectConnectAuth`)."""
        opts = self.options
        device_token = (
            stored.token if stored is not None and (with_stored or not (opts.token or opts.password)) else None
        )
        if not (opts.token or opts.password or device_token):
            return None, None
        auth = ConnectAuth(token=opts.token, password=opts.password, deviceToken=device_token)
        return auth, opts.token or device_token

    def _connect_params(
        self, challenge: ConnectChallenge, auth: ConnectAuth | None, sign_token: str | None
    ) -> ConnectParams:
        opts = self.options
        identity = self.identity
        scopes = list(opts.scopes)
        payload = device_auth_payload(
            device_id=identity.device_id,
            client_id=opts.client_id,
            client_mode=opts.client_mode,
            role="operator",
            scopes=scopes,
            signed_at_ms=challenge.ts,
            token=sign_token,
            nonce=challenge.nonce,
            platform=opts.platform,
            device_family=opts.device_family,
        )
        return ConnectParams(
            minProtocol=PROTOCOL_VERSION,
            maxProtocol=PROTOCOL_VERSION,
            client=ClientInfo(
                id=opts.client_id,
                version=opts.client_version,
                platform=opts.platform,
                mode=opts.client_mode,
                displayName=opts.display_name,
                deviceFamily=opts.device_family,
            ),
            role="operator",
            scopes=scopes,
            caps=list(opts.caps),
            auth=auth,
            device=DeviceProof(
                id=identity.device_id,
                publicKey=identity.public_key,
                signature=identity.sign(payload),
                signedAt=challenge.ts,
                nonce=challenge.nonce,
            ),
            userAgent=f"sessions-tui/{opts.client_version}",
        )

    async def _open(self) -> ClientConnection:
        from websockets.asyncio.client import connect

        return await connect(
            self.url,
            additional_headers=dict(self.options.headers),
            open_timeout=self.options.open_timeout,
            ping_interval=None,  # the gateway pings, and ticks; the watchdog below watches
            compression=None,  # the gateway negotiates no permessage-deflate
            max_size=None,  # after hello the gateway's policy.maxPayload bounds frames
            proxy=None,
            user_agent_header=f"sessions-tui/{self.options.client_version}",
        )

    async def _send(self, ws: ClientConnection, text: str) -> None:
        if self._tap is not None:
            self._tap(">", text)
        await ws.send(text)

    async def _recv(self, ws: ClientConnection) -> str:
        message = await ws.recv()
        text = message if isinstance(message, str) else message.decode("utf-8", "replace")
        if self._tap is not None:
            self._tap("<", text)
        return text

    async def _handshake(self, ws: ClientConnection, auth: ConnectAuth | None, sign_token: str | None) -> HelloOk:
        """Challenge, connect, hello-ok; raises GatewayRefused (PairingRequired rides on it)."""
        async with asyncio.timeout(_CHALLENGE_TIMEOUT):
            while True:
                frame = parse_frame(await self._recv(ws))
                if isinstance(frame, EventFrame) and frame.event == "connect.challenge":
                    challenge = ConnectChallenge.model_validate(frame.payload)
                    break
        request = RequestFrame(
            id=str(uuid.uuid4()),
            method="connect",
            params=self._connect_params(challenge, auth, sign_token).model_dump(exclude_none=True),
        )
        await self._send(ws, encode_frame(request))
        async with asyncio.timeout(self.options.request_timeout):
            while True:
                answer = parse_frame(await self._recv(ws))
                if isinstance(answer, ResponseFrame) and answer.id == request.id:
                    break
        if not answer.ok:
            raise GatewayRefused(answer.error or GatewayError(code="UNKNOWN", message="refused"), url=self.url)
        return HelloOk.model_validate(answer.payload)

    async def connect(self) -> HelloOk | PairingRequired:
        """One attempt: `hello-ok`, or `PairingRequired`; other refusals raise `GatewayRefused`.

        With a token that the gateway calls mismatched and a deviceToken stored for it (on loopback
        or TLS), one more attempt offers the deviceToken too, as the gateway's own client does.
        A deviceToken the gateway refuses is forgotten.
        """
        stored: StoredDeviceToken | None = None
        looked = with_stored = False
        while True:
            ws = await self._open()  # first: what answers no upgrade never needs the identity
            try:
                if not looked:
                    stored = self._tokens.get(self.url, device_id=self.identity.device_id, role="operator")
                    looked = True
                auth, sign_token = self._auth(stored, with_stored=with_stored)
                hello = await self._handshake(ws, auth, sign_token)
            except GatewayRefused as refused:
                await ws.close()
                if refused.code in (ErrorCode.PAIRING_REQUIRED, ErrorCode.NOT_PAIRED):
                    details = refused.error.details
                    return PairingRequired(
                        url=self.url,
                        request_id=details.requestId if details is not None else None,
                        reason=details.reason if details is not None else None,
                    )
                if refused.code == ErrorCode.AUTH_DEVICE_TOKEN_MISMATCH and stored is not None:
                    self._tokens.forget(self.url)
                    if self.options.token or self.options.password:
                        stored, with_stored = None, False
                        continue
                if (
                    refused.code == ErrorCode.AUTH_TOKEN_MISMATCH
                    and stored is not None
                    and not with_stored
                    and _is_trusted(self.url)
                ):
                    with_stored = True
                    continue
                raise
            except BaseException:
                await ws.close()
                raise
            self._adopt(ws, hello, stored)
            return hello

    def _adopt(self, ws: ClientConnection, hello: HelloOk, stored: StoredDeviceToken | None) -> None:
        """Make `ws` the live socket: keep a new deviceToken, start reading and watching."""
        issued = hello.auth.deviceToken
        if issued and (stored is None or stored.token != issued):
            self._tokens.put(
                self.url,
                StoredDeviceToken(
                    token=issued,
                    device_id=self.identity.device_id,
                    role=hello.auth.role,
                    scopes=tuple(hello.auth.scopes),
                ),
            )
        self.hello = hello
        self._ws = ws
        self._socket_done = asyncio.Event()
        self._last_activity = time.monotonic()
        self._reader = asyncio.create_task(self._read(ws), name="gateway-reader")
        interval = max(hello.policy.tickIntervalMs, 1) / 1000.0
        self._watchdog = asyncio.create_task(self._watch_ticks(ws, interval), name="gateway-tick-watch")

    # -- the live socket ---------------------------------------------------------------------------

    async def _read(self, ws: ClientConnection) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for message in ws:
                self._last_activity = time.monotonic()
                if self._tap is not None:
                    self._tap("<", message if isinstance(message, str) else message.decode("utf-8", "replace"))
                try:
                    frame = parse_frame(message)
                except FrameError as exc:
                    log.debug("gateway frame dropped: %s", exc)
                    continue
                if isinstance(frame, ResponseFrame):
                    future = self._pending.pop(frame.id, None)
                    if future is not None and not future.done():
                        future.set_result(frame)
                elif isinstance(frame, EventFrame):
                    self._dispatch(frame)
        except ConnectionClosed:
            pass
        finally:
            self._socket_ended(ws)

    def _socket_ended(self, ws: ClientConnection) -> None:
        if self._ws is not ws:
            return
        self._ws = None
        if self._watchdog is not None:
            self._watchdog.cancel()
        lost = ConnectionLost(f"connection to gateway {self.url} closed")
        for future in self._pending.values():
            if not future.done():
                future.set_exception(lost)
        self._pending.clear()
        self._socket_done.set()

    async def _watch_ticks(self, ws: ClientConnection, interval: float) -> None:
        """Close a socket silent for two tick intervals (any frame counts), so it reconnects."""
        while True:
            await asyncio.sleep(interval)
            if time.monotonic() - self._last_activity > 2 * interval:
                log.info("gateway %s silent for %.0f s: reconnecting", self.url, 2 * interval)
                await ws.close(_TICK_TIMEOUT_CLOSE, "tick timeout")
                return

    @property
    def connected(self) -> bool:
        """A live socket, past its handshake."""
        return self._ws is not None

    async def request(self, method: str, params: Any = None, *, timeout: float | None = None) -> Any:
        """Call `method` and return its payload; `RequestFailed`, `ConnectionLost` or TimeoutError."""
        ws = self._ws
        if ws is None:
            raise ConnectionLost(f"not connected to gateway {self.url}")
        frame = RequestFrame(id=str(uuid.uuid4()), method=method, params=params)
        future: asyncio.Future[ResponseFrame] = asyncio.get_running_loop().create_future()
        self._pending[frame.id] = future
        try:
            await self._send(ws, encode_frame(frame))
            async with asyncio.timeout(timeout if timeout is not None else self.options.request_timeout):
                answer = await future
        except Exception as exc:
            from websockets.exceptions import ConnectionClosed

            if isinstance(exc, ConnectionClosed):
                raise ConnectionLost(f"connection to gateway {self.url} closed") from None
            raise
        finally:
            self._pending.pop(frame.id, None)
        if not answer.ok:
            raise RequestFailed(method, answer.error or GatewayError(code="UNKNOWN", message="failed"), url=self.url)
        return answer.payload

    # -- staying connected -------------------------------------------------------------------------

    async def start(self, *, fail_fast: bool = False) -> HelloOk:
        """Connect, and stay connected until `close()`; returns the first `hello-ok`.

        Waits through a pairing request (state `pairing`, its line) until the owner approves.
        A refusal no retry mends raises `GatewayRefused` here (state `refused`); once connected,
        the same refusal on a reconnect stops the client with state `refused` and its line.
        `fail_fast`: before the first connect, an attempt that finds no gateway (refused, no
        answer, an HTTP answer instead of the upgrade) raises its error here and the client stops;
        a gateway starting up (a retryable refusal) is still waited for.
        """
        first: asyncio.Future[HelloOk] = asyncio.get_running_loop().create_future()
        self._closing.clear()
        self._supervisor = asyncio.create_task(self._supervise(first, fail_fast), name="gateway-supervisor")
        return await first

    async def _pause(self, seconds: float) -> bool:
        """Sleep `seconds` unless closed meanwhile; True when closed."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._closing.wait(), timeout=seconds)
        return self._closing.is_set()

    async def _supervise(self, first: asyncio.Future[HelloOk], fail_fast: bool = False) -> None:
        retry = 0
        ever = False
        while not self._closing.is_set():
            self._set_state(LinkState.RECONNECTING if ever else LinkState.CONNECTING)
            try:
                outcome = await self.connect()
            except GatewayRefused as refused:
                if not refused.retryable:
                    self._set_state(LinkState.REFUSED, refused.line)
                    if not first.done():
                        first.set_exception(refused)
                    return
                delay = retry_delay(retry, base=_RECONNECT_BASE, cap=_RECONNECT_CAP, retry_after=refused.retry_after)
            except Exception as exc:  # OSError, a timeout, websockets' handshake errors (InvalidStatus …)
                log.debug("gateway %s: %r", self.url, exc)
                if fail_fast and not ever:
                    self._set_state(LinkState.CLOSED)
                    if not first.done():
                        first.set_exception(exc)
                    return
                delay = retry_delay(retry, base=_RECONNECT_BASE, cap=_RECONNECT_CAP)
            else:
                if isinstance(outcome, PairingRequired):
                    self._set_state(LinkState.PAIRING, outcome.line)
                    delay = min(retry_delay(retry, base=_RECONNECT_BASE, cap=_RECONNECT_CAP), _PAIRING_POLL_CAP)
                else:
                    if await self._connected(first):
                        retry, ever = 0, True
                        await self._socket_done.wait()
                        continue  # a connection that lived: reconnect at once
                    # The hello came but re-subscribing failed: back off as from a refused connect,
                    # or a gateway that always fails there is asked again in a tight loop.
                    delay = retry_delay(retry, base=_RECONNECT_BASE, cap=_RECONNECT_CAP)
            retry += 1
            if await self._pause(delay):
                break
        self._set_state(LinkState.CLOSED)
        if not first.done():
            first.set_exception(ConnectionLost(f"gateway client for {self.url} closed before it connected"))

    async def _connected(self, first: asyncio.Future[HelloOk]) -> bool:
        """Run the connect hooks, then say connected; False when the socket went meanwhile."""
        try:
            for hook in self._connected_hooks:
                await hook(self)
        except (ConnectionLost, RequestFailed, TimeoutError) as exc:
            log.info("gateway %s: re-subscribing failed: %s", self.url, exc)
            if self._ws is not None:
                await self._ws.close()
            return False
        self._set_state(LinkState.CONNECTED)
        if not first.done() and self.hello is not None:
            first.set_result(self.hello)
        return True

    async def close(self) -> None:
        """Stop reconnecting and close the socket; pending requests fail with `ConnectionLost`."""
        self._closing.set()
        ws = self._ws
        if ws is not None:
            await ws.close()
        for task in (self._reader, self._supervisor):
            if task is not None and task is not asyncio.current_task():
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self._watchdog is not None:
            self._watchdog.cancel()
        self.state = LinkState.CLOSED
