"""An OpenClaw gateway as a backend over its own WebSocket (protocol 4): live, never polled.

`GatewaySocketBackend` keeps one `GatewayClient` (link/connection.py) on an I/O loop of its own
(`IoThread`, as the remote backend keeps its HTTP client), and a face calls it from any loop.
At every (re)connect the client's `on_connected` hook reads the roster whole through
`sessions.subscribe` (reading/roster.py), follows the open transcripts again (reading/transcripts.py) and, on a
reconnect, publishes `StoreChanged` so the faces read again what they show. From then on the
gateway's events keep it current: `sessions.changed` and `session.message` rows merge into the
roster (`SessionChanged`, and `StoreChanged` when the set of sessions changed; a rowless change is
one debounced `sessions.list` read), and the run frames become run events (reading/runs.py: `RunStarted`,
`RunStreamed` redacted a word at a time, `RunEnded`, `MessageAppended`). No request is made while
nothing changes; the gateway's own keep-alive holds the socket.

Where the link stands (`state`: connecting, connected, reconnecting, pairing, refused, closed) is
published as `LinkChanged` with its line (the pairing command, a refusal), for a header or stderr.

The table's reads come from the roster (reading/listing.py shapes, filters and sorts them as the HTTP
gateway backend does); `sessions_history` from `chat.history`, `sessions_search` from
`sessions.search`, `agents_list` from `agents.list`, `sessions_list` from the roster. Sending and
stopping a run go over the socket too (`sessions.send`, `sessions.abort`), wired in by
`backend/gateway/acting/sending.py`; the operator's operations on a session (create, reset, rename,
model, archive, delete, compact) over `sessions.*` by `backend/gateway/acting/session_control.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from sessions_tui.backend.contract.pushed_changes import EventsSayEveryChange
from sessions_tui.backend.contract.types import (
    AbortOutcome,
    BackendUnavailable,
    Capability,
    EventCallback,
    ImportSummary,
    Requester,
    ServerUnreachable,
    not_on,
)
from sessions_tui.backend.gateway.acting.operator_tools import send_tool, subagents_tool
from sessions_tui.backend.gateway.acting.session_control import ADMIN_SCOPE, SocketSessionOps, existing
from sessions_tui.backend.gateway.acting.session_ops import as_operator_only
from sessions_tui.backend.gateway.acting.without_cron import WithoutCron
from sessions_tui.backend.gateway.link.connection import (
    DEFAULT_SCOPES,
    FrameTap,
    GatewayClient,
    GatewayOptions,
    LinkState,
)
from sessions_tui.backend.gateway.link.frames import EventFrame
from sessions_tui.backend.gateway.link.refusals import ConnectionLost, GatewayRefused, RequestFailed
from sessions_tui.backend.gateway.reading.activity import SocketActivity
from sessions_tui.backend.gateway.reading.listing import (
    LACKS,
    child_views,
    filter_rows,
    operator_pairs,
    owner_of,
    page_of,
    search_outcome,
)
from sessions_tui.backend.gateway.reading.roster import Change, Roster
from sessions_tui.backend.gateway.reading.runs import RunEvents
from sessions_tui.backend.gateway.reading.tool_answers import agents_result, list_result
from sessions_tui.backend.gateway.reading.transcripts import OpenTranscripts, history_params, history_result
from sessions_tui.backend.gateway.reading.usage import GatewayUsage
from sessions_tui.backend.remote.config_identity import ConfigIdentity
from sessions_tui.backend.remote.io_thread import IoThread
from sessions_tui.engine.config import Config, defaults_of
from sessions_tui.engine.config.policies import ConfigPolicies
from sessions_tui.engine.events import EngineEvent, LinkChanged, SessionChanged, StoreChanged

if TYPE_CHECKING:
    from sessions_tui.backend.gateway.reading.listing import Row
    from sessions_tui.engine.config.sections.ui import NotifyConfig
    from sessions_tui.engine.export import SessionExport
    from sessions_tui.engine.hooks.values import HookAdmitted, HookCompletion, HookRun, HookWake, WakeOutcome
    from sessions_tui.engine.messaging.ledger import LedgerEntry
    from sessions_tui.engine.openclaw.follow import FollowTick
    from sessions_tui.engine.redaction.redact import Redactor
    from sessions_tui.engine.subagents.records import AnnouncementView, ChildView
    from sessions_tui.tools.reading.browse import BrowsePage, BrowseQuery
    from sessions_tui.tools.reading.sessions_search import SearchOutcome
    from sessions_tui.tools.requester.explain import Explanation

log = logging.getLogger(__name__)

SOCKET_CAPABILITIES = frozenset(
    {
        Capability.READ,
        Capability.TOOLS,
        Capability.SPAWN_TREE,
        Capability.SEARCH,
        Capability.ABORT,
        Capability.SESSION_OPS,
        Capability.COMPACT,
        Capability.USAGE,
    }
)
REREAD_AFTER_S = 0.5
"""A rowless `sessions.changed` is read after this long, however many come meanwhile (one read)."""
T = TypeVar("T")
ANSWERED_TOOLS = ("sessions_list", "sessions_history", "sessions_search", "agents_list", "sessions_send", "subagents")
_FAILED = (ConnectionLost, RequestFailed, TimeoutError)


class NoGatewaySocket(BackendUnavailable):
    """Something answers at the URL, but not a gateway's WebSocket (the upgrade refused with an HTTP
    status, or not answered as HTTP/1.1 answers it): a gateway that refuses WebSocket clients, for
    which `--remote` falls back to the HTTP tool API (`http.OpenClawGatewayBackend`)."""


class GatewaySocketBackend(
    SocketSessionOps, SocketActivity, GatewayUsage, WithoutCron, ConfigIdentity, EventsSayEveryChange
):
    """A `Backend` over one OpenClaw gateway's WebSocket (see the module's docstring)."""

    def __init__(
        self,
        url: str,
        token: str | None,
        *,
        password: str | None = None,
        identity_dir: Path | None = None,
        headers: Mapping[str, str] | None = None,
        timeout_s: float = 30.0,
        tap: FrameTap | None = None,
        admin: bool = False,
    ) -> None:
        """`tap(direction, text)`, when given, sees every frame that crosses (`>` sent, `<`
        received), on the I/O thread: a trace, or a count of the requests made. `admin`: ask for
        `operator.admin` too, which resetting and compacting a session need (acting/session_control.py)."""
        self.url = url.rstrip("/")
        self._tap = tap
        self._options = GatewayOptions(
            url=self.url,
            token=token,
            password=password,
            identity_dir=identity_dir,
            headers=dict(headers or {}),
            request_timeout=timeout_s,
            scopes=(*DEFAULT_SCOPES, ADMIN_SCOPE) if admin else DEFAULT_SCOPES,
        )
        self._io = IoThread(f"gateway {self.url}")
        self._client: GatewayClient | None = None
        self._policies = ConfigPolicies(defaults_of(Config))  # the gateway's config is its own: OpenClaw's defaults
        self._roster = Roster(self.canonical, self.display)
        self._runs = RunEvents(self.canonical, self.now)
        self._transcripts = OpenTranscripts()
        self._subscribers: list[EventCallback] = []
        self._version = 0
        self._skew_ms = 0  # the gateway's clock minus this machine's
        self._connects = 0
        self._reread: asyncio.Task[None] | None = None
        self._connecting: asyncio.Future[None] | None = None
        self._resynced: Change | None = None
        self.state = LinkState.CLOSED
        """Where the link stands, for a header (each change is published as `LinkChanged`)."""
        self.state_line: str | None = None
        """The line that goes with it: the pairing command, a refusal; None when all is well."""

    # -- connecting ------------------------------------------------------------------------------

    async def connect(self) -> None:
        """Connect (waiting through a pairing request until the owner approves), read the roster.

        Raises `NoGatewaySocket` when the URL answers HTTP but refuses the upgrade, and
        `BackendUnavailable` with one line for a refusal or when nothing answers."""
        await self._io.run(self._connect())

    def connect_in_background(self) -> None:
        """Begin connecting now, on the I/O thread, and return at once: a face that starts its
        screens meanwhile meets the outcome in `start()` (a gateway just started answers slowly)."""
        self._io.submit(self._connect())

    async def _connect(self) -> None:
        """One connect for however many ask (`connect`, `start`, `connect_in_background`): a second
        caller waits for the first's outcome, a refusal included."""
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._connect_once())
        await asyncio.shield(self._connecting)

    async def _connect_once(self) -> None:
        client = GatewayClient(self._options, on_state=self._on_state, tap=self._tap)
        client.subscribe(None, self._on_frame)
        client.on_connected(self._resync)
        self._client = client
        try:
            await client.start(fail_fast=True)
        except GatewayRefused as refused:
            await self._drop_client()
            raise BackendUnavailable(refused.line) from None
        except Exception as exc:
            from websockets.exceptions import InvalidHandshake

            await self._drop_client()
            if isinstance(exc, InvalidHandshake):  # an HTTP status, or no HTTP/1.1 answer, for the upgrade
                status = getattr(getattr(exc, "response", None), "status_code", None)
                said = f"HTTP {status}" if isinstance(status, int) else str(exc)
                raise NoGatewaySocket(f"{self.url}: no gateway WebSocket there ({said})") from None
            if isinstance(exc, OSError) and not isinstance(exc, ssl.SSLError):  # refused, no route, no such name
                raise ServerUnreachable.at(self.url, exc) from None
            raise BackendUnavailable(f"{self.url}: {type(exc).__name__}: {exc or 'no answer'}") from None

    async def _drop_client(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.close()

    def connect_blocking(self, timeout_s: float | None = None) -> None:
        """`connect()` from a thread with no loop running (a face's start-up); None: wait as long
        as the owner takes to approve this device."""
        self._io.call(self._connect(), timeout_s)

    def _on_state(self, state: LinkState, line: str | None) -> None:
        self.state = state
        self.state_line = line if state in (LinkState.PAIRING, LinkState.REFUSED) else None
        self._publish(LinkChanged(ts=self.now(), location=self.url, state=state.value, line=self.state_line))
        resynced, self._resynced = self._resynced, None
        if state is LinkState.CONNECTED and resynced is not None:  # the faces read again, the link up
            self._publish_change(resynced)
            self._publish(StoreChanged(ts=self.now()))

    async def _resync(self, client: GatewayClient) -> None:
        """After every connect: the roster whole, the open transcripts again, the faces told."""
        asked = time.time()
        change = await self._roster.load(client)
        if self._roster.server_ts is not None:
            self._clock_from(self._roster.server_ts, asked)
        await self._transcripts.resubscribe(client)
        self._connects += 1
        if self._connects > 1:  # said once the client says the link is up (`_on_state`)
            self._resynced = change

    # -- events ----------------------------------------------------------------------------------

    def _on_frame(self, frame: EventFrame) -> None:
        """A gateway event, on the I/O loop: the roster merged, the engine's events published."""
        name = frame.event
        if name in ("sessions.changed", "session.message"):
            change = self._roster.apply(frame.payload)
            if change is not None:
                stamped = frame.payload.get("ts") if isinstance(frame.payload, dict) else None
                self._publish_change(change, at=stamped if isinstance(stamped, int) else None)
            elif name == "sessions.changed":
                self._reread_soon()
        for event in self._runs.events(name, frame.payload):
            self._publish(event)

    def _publish_change(self, change: Change, *, at: int | None = None) -> None:
        """`at`: when the gateway says the change happened (its event's `ts`), else now."""
        now = at if at is not None else self.now()
        for key in change.keys:
            self._publish(SessionChanged(ts=now, session_key=key))
        if change.membership:
            self._publish(StoreChanged(ts=now))

    def _reread_soon(self) -> None:
        if self._reread is None or self._reread.done():
            self._reread = asyncio.get_running_loop().create_task(self._reread_later())

    async def _reread_later(self) -> None:
        await asyncio.sleep(REREAD_AFTER_S)
        client = self._client
        if client is None or not client.connected:
            return  # the next connect reads it whole
        try:
            self._publish_change(await self._roster.reread(client))
        except _FAILED as exc:
            log.info("gateway %s: reading the roster again failed: %s", self.url, exc)

    def _publish(self, event: EngineEvent) -> None:
        self._version += 1
        for callback in list(self._subscribers):
            try:
                callback(event)
            except Exception:
                log.exception("gateway event subscriber failed on %s", event.type)

    def subscribe(self, callback: EventCallback) -> Callable[[], None]:
        """Events are published from the backend's I/O thread, as they arrive."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    async def data_version(self) -> int:
        """Moves with every event published."""
        return self._version

    def stream_redaction(self) -> None:
        return None  # `RunStreamed` carries only what the redaction of the text so far shows (reading/runs.py)

    # -- calls on the socket ---------------------------------------------------------------------

    async def _call(self, method: str, params: Any = None) -> Any:
        """A request on the I/O loop; a failure is `BackendUnavailable` with its line."""
        try:
            return await self.on_socket(lambda client: client.request(method, params))
        except RequestFailed as exc:
            raise BackendUnavailable(exc.line) from None
        except (ConnectionLost, TimeoutError) as exc:
            raise BackendUnavailable(f"{self.url}: {method}: {exc or 'no answer'}") from None

    async def on_socket(self, act: Callable[[GatewayClient], Awaitable[T]]) -> T:
        """`act` on the live client, on the I/O loop (`ConnectionLost` when the link is not up)."""

        async def go() -> T:
            client = self._client
            if client is None or not client.connected:
                raise ConnectionLost(f"{self.url}: not connected ({self.state.value})")
            return await act(client)

        return await self._io.run(go())

    # -- where, and the config a face shows ------------------------------------------------------

    @property
    def capabilities(self) -> frozenset[Capability]:
        """The session list, the tools it answers (`ANSWERED_TOOLS`), the spawn tree from the rows'
        `spawnedBy`, its own search, stopping a run, the operations on a session, compacting too, and
        its usage (`sessions.usage`: usage.py)."""
        return SOCKET_CAPABILITIES

    def not_offered(self, capability: Capability) -> str:
        if capability is Capability.IMPORT:
            return f"{self.url}: importing an OpenClaw state directory is done on the gateway's machine"
        return f"{self.url}: {LACKS[capability]}" if capability in LACKS else not_on(self.url, capability)

    def _lacking(self, capability: Capability) -> BackendUnavailable:
        return BackendUnavailable(self.not_offered(capability))

    @property
    def location(self) -> str:
        return self.url

    @property
    def config_warnings(self) -> list[str]:
        return []

    @property
    def store_damage(self) -> str | None:
        return None

    @property
    def keybindings(self) -> dict[str, str]:
        return dict(self._policies.config.ui.keybindings)

    @property
    def theme(self) -> str | None:
        return self._policies.config.ui.theme

    @property
    def send_wait(self) -> int:
        return self._policies.config.ui.send_wait

    @property
    def notify(self) -> NotifyConfig:
        return self._policies.config.ui.notify

    def public_config(self) -> dict[str, Any]:
        return {}

    # -- keys and identity -----------------------------------------------------------------------

    # -- the table, from the roster --------------------------------------------------------------

    async def browse(
        self,
        requester: Requester,
        query: BrowseQuery,
        *,
        offset: int,
        limit: int,
        after: tuple[Any, str] | None = None,
        before: tuple[Any, str] | None = None,
        count: bool = True,
    ) -> BrowsePage:
        return page_of(self._roster.rows(), query, self.now(), offset, limit)

    async def browse_count(
        self, requester: Requester, query: BrowseQuery, cancelled: Callable[[], bool] | None = None
    ) -> int:
        return len(filter_rows(self._roster.rows(), query, self.now()))

    async def browse_rows(self, requester: Requester, keys: list[str]) -> dict[str, dict[str, Any]]:
        return {key: row for key in keys if (row := self._roster.row(key)) is not None}

    async def state_is_empty(self) -> bool:
        return len(self._roster) == 0

    async def operator_sessions(self, search: str | None, limit: int) -> list[tuple[str, str]]:
        return operator_pairs(self._roster.rows(), search, limit, self.redact)

    async def owner_key(self, key: str) -> str | None:
        return owner_of(self._roster.rows(), key, self.canonical)

    async def children(self, requester_key: str) -> list[ChildView]:
        return child_views(self._roster.rows(), self.canonical(requester_key))

    @property
    def redactor(self) -> Redactor:
        """The built-in rules (a gateway's custom patterns are its own), for a whole result."""
        return self._policies.redactor

    def rows(self) -> list[Row]:
        """The roster's rows, as the table reads them (reading/listing.py `shape_row`)."""
        return self._roster.rows()

    # -- tools -----------------------------------------------------------------------------------

    def tools_for(self, requester: Requester) -> list[str]:
        return list(ANSWERED_TOOLS)

    async def call_tool(self, name: str, args: dict[str, Any], requester: Requester) -> dict[str, Any]:
        """The tools a gateway's socket answers, shaped as our tools answer (`ANSWERED_TOOLS`)."""
        if name == "sessions_history":
            return await self._history(args)
        if name == "sessions_list":
            return list_result(self._roster.rows(), args, self.now())
        if name == "sessions_search":
            return await self._search_tool(args)
        if name == "agents_list":
            return await self._agents()
        if name == "sessions_send":
            return await send_tool(self, args)
        if name == "subagents":
            return await subagents_tool(self, args, requester)
        from sessions_tui.tools.calling.registry import TOOLS, UnknownToolError

        if name not in TOOLS:
            raise UnknownToolError(name)
        raise BackendUnavailable(f"{self.url}: {name} is not offered over an OpenClaw gateway's WebSocket")

    async def _history(self, args: dict[str, Any]) -> dict[str, Any]:
        from sessions_tui.tools.reading.sessions_history import HistoryArgs

        read = HistoryArgs.read(args)
        key = owner_of(self._roster.rows(), read["session_key"], self.canonical)
        if key is None:
            return {"status": "error", "error": f"Session not found: {read['session_key']}"}
        params = history_params(key, limit=read["limit"], offset=read["offset"])
        try:
            answer = await self._call("chat.history", params)
        except BackendUnavailable as exc:
            return {"status": "error", "error": str(exc)}
        await self._io.run(self._follow(key))
        return history_result(
            answer,
            self.display(key),
            include_tools=read["include_tools"],
            offset=read["offset"],
            redactor=self._policies.redactor,
        )

    async def _follow(self, key: str) -> None:
        client = self._client
        if client is not None and client.connected:
            await self._transcripts.open(client, key)

    async def _agents(self) -> dict[str, Any]:
        return agents_result(await self._call("agents.list", {}))

    def _search_params(self, query: str, session: str | None, limit: int) -> dict[str, Any]:
        from sessions_tui.tools.reading.sessions_search import MAX_LIMIT, checked_query

        params: dict[str, Any] = {"query": checked_query(query), "limit": max(1, min(limit, MAX_LIMIT))}
        if session:
            params["sessionKeys"] = [owner_of(self._roster.rows(), session, self.canonical) or self.canonical(session)]
        return params

    async def _search_tool(self, args: dict[str, Any]) -> dict[str, Any]:
        limit = args.get("limit")
        session = args.get("sessionKey")
        params = self._search_params(
            str(args.get("query") or ""),
            session if isinstance(session, str) else None,
            limit if isinstance(limit, int) else 25,
        )
        found = await self._call("sessions.search", params)
        if not isinstance(found, dict):
            return {"results": []}
        results = [
            {**r, "snippet": self.redact(str(r.get("snippet", "")))}
            for r in found.get("results") or []
            if isinstance(r, dict)
        ]
        return {**{k: v for k, v in found.items() if k != "sessions"}, "results": results}

    async def search(
        self, requester: Requester, query: str, *, session: str | None = None, limit: int = 100
    ) -> SearchOutcome:
        """The gateway's `sessions.search` (25 hits at most, snippets unmarked, no message numbers)."""
        found = await self._call("sessions.search", self._search_params(query, session, limit))
        return search_outcome(found, self.canonical, self.redact)

    async def search_index_behind(self) -> int:
        return 0  # the gateway keeps its own index

    async def catch_up_search_index(self) -> None:
        return None

    async def abort_run(
        self, key: str, *, clear_queued: bool = False, requester: Requester | None = None
    ) -> AbortOutcome:
        """`sessions.abort` of the session's running turn (acting/sending.py `abort`), as the operator; a
        session the roster has not yet (just created) is looked up on the gateway."""
        from sessions_tui.backend.gateway.acting.sending import abort

        as_operator_only(self.url, requester)
        target = owner_of(self._roster.rows(), key, self.canonical) or (await existing(self, key)).key
        try:
            done = await self.on_socket(lambda client: abort(client, target, clear_queued=clear_queued))
        except RequestFailed as exc:
            raise BackendUnavailable(exc.line) from None
        except (ConnectionLost, TimeoutError) as exc:
            raise BackendUnavailable(f"{self.url}: sessions.abort: {exc or 'no answer'}") from None
        return done.model_copy(update={"session_key": self.display(target)})

    # -- what it has not (`LACKS`): each refuses -------------------------------------------------

    async def announcements(self, requester_key: str) -> list[AnnouncementView]:
        raise self._lacking(Capability.ANNOUNCES)

    async def run_label(self, run_id: str) -> str | None:
        raise self._lacking(Capability.ANNOUNCES)

    async def sends(self, session: str | None, state: str | None, limit: int) -> list[LedgerEntry]:
        raise self._lacking(Capability.LEDGER)

    async def owner_command(self, key: str, text: str) -> str | None:
        raise self._lacking(Capability.CONTROL)

    async def explain(self, requester: Requester, target: str, agent: str | None) -> Explanation:
        raise self._lacking(Capability.EXPLAIN)

    async def export_session(self, key: str) -> SessionExport | None:
        raise self._lacking(Capability.EXPORT)

    async def import_openclaw(self, root: Path, *, adopt: bool = False) -> ImportSummary:
        raise self._lacking(Capability.IMPORT)

    async def run_hook(self, hook: HookRun) -> HookAdmitted:
        raise self._lacking(Capability.HOOKS)

    async def hook_completion(self, run_id: str) -> HookCompletion:
        raise self._lacking(Capability.HOOKS)

    async def wake_hook(self, wake: HookWake) -> WakeOutcome:
        raise self._lacking(Capability.HOOKS)

    async def follow_openclaw(
        self, root: Path, stop: asyncio.Event, on_tick: Callable[[FollowTick], None], *, own_connection: bool
    ) -> None:
        raise self._lacking(Capability.IMPORT)

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        await self.connect()

    async def sweep(self) -> int:
        return 0  # the gateway archives its own sub-agents

    async def drain(self) -> None:
        return None  # the work a tool starts runs on the gateway

    def left_pending_line(self) -> str | None:
        return None

    async def aclose(self) -> None:
        if self._io.loop.is_running():
            with contextlib.suppress(RuntimeError):
                await self._io.run(self._shutdown())
        self._io.stop()

    def close(self) -> None:
        """Close from a thread with no loop running; closing again does nothing."""
        if self._io.loop.is_running():
            with contextlib.suppress(RuntimeError, TimeoutError):
                self._io.call(self._shutdown(), timeout=10)
        self._io.stop()

    async def _shutdown(self) -> None:
        if self._reread is not None:
            self._reread.cancel()
            await asyncio.gather(self._reread, return_exceptions=True)
        await self._drop_client()
