"""The remote backend: a `sessions-tui serve` elsewhere, behind the same seam as the local engine.

Tools go through `POST /tools/invoke`, the dashboard's reads through the operator API
(`wire.py`), events come from `GET /events` (server-sent events, one connection for all
subscribers, re-opened with back-off when it drops; each re-open is a `StoreChanged`, so the
faces re-read what they show). What only needs the config — key spellings, sandboxing, what a
requester may see — is answered here from the server's public config. It holds no custom
redaction patterns (an entry may be a literal secret): the server redacts what it sends, and
what is redacted here (what a user typed) is redacted by the built-in rules.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import httpx

from sessions_tui.backend.contract.pushed_changes import EventsSayEveryChange
from sessions_tui.backend.contract.types import (
    EVERY_CAPABILITY,
    AbortOutcome,
    BackendUnavailable,
    Capability,
    EventCallback,
    ImportSummary,
    NewSession,
    OperationRefused,
    Requester,
    ServerUnreachable,
    SessionOpOutcome,
    TokenRefused,
    not_on,
)
from sessions_tui.backend.remote import wire as w
from sessions_tui.backend.remote.config_identity import ConfigIdentity
from sessions_tui.backend.remote.cron import RemoteCron
from sessions_tui.backend.remote.io_thread import IoThread
from sessions_tui.engine.config import Config, defaults_of
from sessions_tui.engine.config.policies import ConfigPolicies
from sessions_tui.engine.events import EngineEvent
from sessions_tui.engine.store.connection import SearchUnreadable, StoreDamaged
from sessions_tui.tools.calling.base import ToolInputError
from sessions_tui.tools.calling.registry import TOOLS

if TYPE_CHECKING:
    from sessions_tui.engine.config.sections.ui import NotifyConfig
    from sessions_tui.engine.hooks.values import HookAdmitted, HookCompletion, HookRun, HookWake, WakeOutcome
    from sessions_tui.engine.messaging.ledger import LedgerEntry
    from sessions_tui.engine.openclaw.follow import FollowTick
    from sessions_tui.engine.sessions.live_status import Activity
    from sessions_tui.engine.subagents.records import AnnouncementView, ChildView
    from sessions_tui.engine.usage import UsageQuery, UsageReport
    from sessions_tui.tools.reading.browse import BrowsePage, BrowseQuery, BrowseRow
    from sessions_tui.tools.reading.sessions_search import SearchOutcome
    from sessions_tui.tools.requester.explain import Explanation

M = TypeVar("M", bound=w.WireModel)


class RemoteError(BackendUnavailable):
    """The server could not be reached, refused the token, or failed; the message says which."""


class NotSessionsTui(RemoteError):
    """The server answers HTTP but has no operator API: an OpenClaw gateway, say."""


class ToolNotAvailable(ToolInputError):
    """The server offers no such tool to this requester (unknown, or denied over HTTP)."""


class RemoteBackend(RemoteCron, ConfigIdentity, EventsSayEveryChange):
    """A `Backend` over HTTP. `connect()` (or `start()`) reads the server's public config first."""

    def __init__(self, url: str, token: str | None, *, timeout_s: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self._headers = {"authorization": f"Bearer {token}"} if token else {}
        self._timeout = timeout_s
        self._io = IoThread(f"remote {self.url}")
        self._client: httpx.AsyncClient | None = None
        self._info: w.Info | None = None
        self._policies = ConfigPolicies(defaults_of(Config))  # the defaults, built without a validator
        self._subscribers: list[EventCallback] = []
        self._stream: asyncio.Task[None] | None = None
        self._version = 0
        self._skew_ms = 0  # the server's clock minus this machine's
        self._damage: str | None = None  # what the server said of its damaged state database

    # -- connecting ------------------------------------------------------------------------------

    async def connect(self) -> None:
        """Read the server's public config (raises `RemoteError` when it cannot)."""
        asked = time.time()
        info = await self._post("info", w.Empty(), w.Info)
        self._clock_from(info.now, asked)
        config = Config.model_validate(info.config)
        self._info = info
        self._policies = ConfigPolicies(config)  # its redactor: the built-in rules

    def connect_blocking(self, timeout_s: float = 60.0) -> None:
        """`connect()` from any thread, waiting for it (a face's start-up, before its loop runs)."""
        self._io.call(self.connect(), timeout_s)

    async def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(base_url=self.url, headers=self._headers, timeout=self._timeout)
        return self._client

    async def _request(self, path: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> httpx.Response:
        async def go() -> httpx.Response:
            client = await self._http()
            return await client.post(path, json=body, headers=headers)

        try:
            response = await self._io.run(go())
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise ServerUnreachable.at(self.url, exc) from exc
        except httpx.HTTPError as exc:
            raise RemoteError(f"{self.url}: {type(exc).__name__}: {exc or 'no answer'}") from exc
        if response.status_code == 401:
            raise TokenRefused(self.url, given=bool(self._headers))
        if response.status_code == 429:
            wait = response.headers.get("retry-after", "?")
            raise RemoteError(f"{self.url}: locked out after failed tokens; retry in {wait} s (429)")
        if response.status_code == 503 and _error_type(response) == "store_damaged":
            self._damage = f"{self.url}: {_message(response)}"
            raise StoreDamaged(self._damage)
        return response

    async def _post(self, op: str, body: w.WireModel, answer: type[M], *, field: str | None = None) -> M:
        """The op's answer. With `field`, a 400 naming that field is the caller's input error
        (`ToolInputError`, with the server's words), as the local backend raises it."""
        response = await self._request(f"{w.API_PREFIX}/{op}", body.model_dump(mode="json"))
        if op == "info" and (response.status_code != 200 or "json" not in response.headers.get("content-type", "")):
            raise NotSessionsTui(f"{self.url}: not a sessions-tui server (no {w.API_PREFIX}/info)")
        prefix = f"{op}: {field}: "
        if field is not None and response.status_code == 400 and _message(response).startswith(prefix):
            raise ToolInputError(_message(response).removeprefix(prefix))
        if response.status_code != 200:
            raise RemoteError(f"{self.url}: {op} failed ({response.status_code}): {_message(response)}")
        return answer.model_validate_json(response.content)

    # -- where, and the config a face shows ------------------------------------------------------

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What a sessions-tui server offers over its operator API: all but importing or
        following an OpenClaw, which is done on the server's machine, compacting, which its engine
        does not do, and inbound hooks, which are posted to the server itself; usage when the server
        answers its op (an older one does not)."""
        without = {Capability.IMPORT, Capability.COMPACT, Capability.HOOKS}
        if self._info is None or "usage" not in self._info.ops:
            without.add(Capability.USAGE)
        return EVERY_CAPABILITY - without

    def not_offered(self, capability: Capability) -> str:
        if capability is Capability.IMPORT:
            return f"{self.url}: importing an OpenClaw state directory is done on the server's machine"
        if capability is Capability.COMPACT:
            return f"{self.url}: compacting a session is not on this backend: a sessions-tui engine does not compact"
        if capability is Capability.HOOKS:
            return f"{self.url}: inbound hooks are posted to the server itself (POST /hooks/agent)"
        if capability is Capability.USAGE:
            return (
                f"{self.url}: this server does not answer usage and cost (an older sessions-tui):"
                " run 'sessions-tui usage' there"
            )
        return not_on(self.url, capability)

    @property
    def location(self) -> str:
        return self.url

    @property
    def config_warnings(self) -> list[str]:
        return list(self._info.config_warnings) if self._info else []

    @property
    def store_damage(self) -> str | None:
        """What the server answered a write with, once its state database is damaged (503 `store_damaged`)."""
        return self._damage

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
        return dict(self._info.config) if self._info else {}

    # -- keys and identity -----------------------------------------------------------------------

    def stream_redaction(self) -> None:
        return None  # the server passes on only what its redaction of the text so far shows

    # -- tools -----------------------------------------------------------------------------------

    def tools_for(self, requester: Requester) -> list[str]:
        return list(TOOLS)

    async def call_tool(self, name: str, args: dict[str, Any], requester: Requester) -> dict[str, Any]:
        body: dict[str, Any] = {"tool": name, "args": args}
        if requester.key is not None:
            body["sessionKey"] = requester.key
        headers = {w.SANDBOXED_HEADER: "1"} if requester.sandboxed else None
        response = await self._request("/tools/invoke", body, headers)
        payload = _json(response)
        if response.status_code == 200 and isinstance(payload, dict) and payload.get("ok") is True:
            details = (payload.get("result") or {}).get("details")
            if isinstance(details, dict):
                return details
            raise RemoteError(f"{self.url}: {name} answered no details")
        message = _message(response)
        if response.status_code == 404:
            if name in ("sessions_send", "sessions_spawn"):
                message += f' (over HTTP only where the server\'s config allows it: gateway.tools.allow: ["{name}"])'
            raise ToolNotAvailable(message)
        if response.status_code == 400:
            raise ToolInputError(message)
        raise RemoteError(f"{self.url}: {name} failed ({response.status_code}): {message}")

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
        from sessions_tui.tools.reading.browse import BrowsePage

        request = w.BrowseRequest(
            requester=requester,
            query=_query(query),
            offset=offset,
            limit=limit,
            after=after,
            before=before,
            count=count,
        )
        page = await self._post("browse", request, w.BrowseAnswer)
        # The wire keeps rows as JSON objects (a TypedDict there would drop the fields pydantic
        # does not know): they are the server's table rows.
        rows = cast("list[BrowseRow]", page.rows)
        return BrowsePage(rows=rows, total=page.total, offset=page.offset, first=page.first, last=page.last)

    async def browse_count(
        self, requester: Requester, query: BrowseQuery, cancelled: Callable[[], bool] | None = None
    ) -> int:
        return (
            await self._post("browse_count", w.CountRequest(requester=requester, query=_query(query)), w.Count)
        ).count

    async def browse_rows(self, requester: Requester, keys: list[str]) -> dict[str, dict[str, Any]]:
        """Each row under the key it was asked by: the server answers under that key redacted, which
        is the key itself for one it showed (a face asks by those)."""
        rows = (await self._post("browse_rows", w.RowsRequest(requester=requester, keys=keys), w.Rows)).rows
        found = {key: rows.get(key) or rows.get(self.redact(key)) for key in keys}
        return {key: row for key, row in found.items() if row is not None}

    async def activity(self, requester: Requester, keys: list[str] | None = None) -> dict[str, Activity]:
        """Under the keys asked by (the server answers under those, redacted: a face asks by the
        keys it was shown), or for the seed under the keys as the server shows them."""
        answer = await self._post("activity", w.ActivityRequest(requester=requester, keys=keys), w.ActivityAnswer)
        facts = answer.facts
        if keys is None:
            return facts
        found = {key: facts.get(key) or facts.get(self.redact(key)) for key in keys}
        return {key: one for key, one in found.items() if one is not None}

    async def mark_seen(self, key: str) -> None:
        await self._post("mark_seen", w.KeyRequest(key=key), w.Empty)

    async def state_is_empty(self) -> bool:
        return (await self._post("state_is_empty", w.Empty(), w.Flag)).value

    # -- the operator's reads and commands -------------------------------------------------------

    async def operator_sessions(self, search: str | None, limit: int) -> list[tuple[str, str]]:
        answer = await self._post("operator_sessions", w.SessionsRequest(search=search, limit=limit), w.SessionsAnswer)
        return answer.sessions

    async def children(self, requester_key: str) -> list[ChildView]:
        from sessions_tui.engine.subagents.records import ChildView

        answer = await self._post("children", w.KeyRequest(key=requester_key), w.ChildViews)
        return [ChildView.model_validate(c) for c in answer.children]

    async def announcements(self, requester_key: str) -> list[AnnouncementView]:
        from sessions_tui.engine.subagents.records import AnnouncementView

        answer = await self._post("announcements", w.KeyRequest(key=requester_key), w.AnnouncementViews)
        return [AnnouncementView.model_validate(a) for a in answer.announcements]

    async def run_label(self, run_id: str) -> str | None:
        return (await self._post("run_label", w.RunRequest(run_id=run_id), w.Text)).value

    async def sends(self, session: str | None, state: str | None, limit: int) -> list[LedgerEntry]:
        from sessions_tui.engine.messaging.ledger import LedgerEntry

        answer = await self._post("sends", w.SendsRequest(session=session, state=state, limit=limit), w.SendsAnswer)
        return [LedgerEntry.model_validate(entry) for entry in answer.sends]

    async def owner_key(self, key: str) -> str | None:
        return (await self._post("owner_key", w.KeyRequest(key=key), w.Text)).value

    async def owner_command(self, key: str, text: str) -> str | None:
        return (await self._post("owner_command", w.CommandRequest(key=key, text=text), w.Text, field="key")).value

    # -- the operator's operations on a session ------------------------------------------------

    async def _operate(self, op: str, body: w.WireModel) -> SessionOpOutcome:
        """An operation over the operator API: bad input the server's `ToolInputError`, a refusal
        `OperationRefused`, as the local backend raises them."""
        answer = await self._post(op, body, w.SessionOpAnswer, field="key")
        if answer.refused is not None or answer.outcome is None:
            raise OperationRefused(answer.refused or f"{op}: no answer")
        return SessionOpOutcome.model_validate(answer.outcome)

    async def create_session(self, request: NewSession, *, requester: Requester | None = None) -> SessionOpOutcome:
        return await self._operate("create_session", w.NewSessionRequest(session=request, requester=requester))

    async def reset_session(self, key: str, *, requester: Requester | None = None) -> SessionOpOutcome:
        return await self._operate("reset_session", w.OperationRequest(key=key, requester=requester))

    async def rename_session(
        self, key: str, label: str | None, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        return await self._operate("rename_session", w.LabelRequest(key=key, label=label, requester=requester))

    async def set_session_model(
        self, key: str, model: str | None, thinking: str | None, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        request = w.ModelRequest(key=key, model=model, thinking=thinking, requester=requester)
        return await self._operate("set_session_model", request)

    async def archive_session(
        self, key: str, archived: bool, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        return await self._operate("archive_session", w.ArchiveRequest(key=key, archived=archived, requester=requester))

    async def delete_session(self, key: str, *, requester: Requester | None = None) -> SessionOpOutcome:
        return await self._operate("delete_session", w.OperationRequest(key=key, requester=requester))

    async def compact_session(self, key: str, *, requester: Requester | None = None) -> SessionOpOutcome:
        raise BackendUnavailable(self.not_offered(Capability.COMPACT))

    async def abort_run(
        self, key: str, *, clear_queued: bool = False, requester: Requester | None = None
    ) -> AbortOutcome:
        request = w.AbortRequest(key=key, clear_queued=clear_queued, requester=requester)
        answer = await self._post("abort_run", request, w.AbortAnswer, field="key")
        if answer.refused is not None:
            raise OperationRefused(answer.refused)
        return AbortOutcome.model_validate(answer.model_dump(exclude={"refused"}))

    async def explain(self, requester: Requester, target: str, agent: str | None) -> Explanation:
        from sessions_tui.tools.requester.explain import Explanation

        request = w.ExplainRequest(requester=requester, target=target, agent=agent)
        answer = await self._post("explain", request, w.ExplainAnswer)
        if answer.explanation is None:
            raise ToolInputError(answer.error or "explain: no answer")
        return Explanation.model_validate(answer.explanation)

    async def export_session(self, key: str) -> w.SessionExport | None:
        return (await self._post("export", w.KeyRequest(key=key), w.ExportAnswer)).export

    async def search_index_behind(self) -> int:
        return 0  # the server keeps its index up itself

    async def catch_up_search_index(self) -> None:
        return None

    async def search(
        self, requester: Requester, query: str, *, session: str | None = None, limit: int = 100
    ) -> SearchOutcome:
        from sessions_tui.tools.reading.sessions_search import SearchOutcome

        request = w.SearchRequest(requester=requester, query=query, session=session, limit=limit)
        try:
            answer = await self._post("search", request, w.SearchAnswer)
        except StoreDamaged as exc:  # a search writes nothing: the server's could not read its store
            raise SearchUnreadable(str(exc)) from exc
        if answer.outcome is None:
            raise ToolInputError(answer.error or "search: no answer")
        return SearchOutcome.model_validate(answer.outcome)

    # -- events ----------------------------------------------------------------------------------

    def subscribe(self, callback: EventCallback) -> Callable[[], None]:
        """One source of events for all subscribers (`_events`), started by the first."""
        self._subscribers.append(callback)
        if self._stream is None:
            self._stream = self._io.submit(self._start_stream()).result()

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    async def _start_stream(self) -> asyncio.Task[None]:
        return asyncio.get_running_loop().create_task(self._events())

    async def _events(self) -> None:
        """Where events come from: the server's stream (a gateway backend polls instead)."""
        from sessions_tui.backend.remote.events import read_event_stream

        await read_event_stream(self._http, self._publish, self.now)

    def _publish(self, event: EngineEvent) -> None:
        self._version += 1
        for callback in list(self._subscribers):
            callback(event)

    async def data_version(self) -> int:
        """Moves with every event the stream brings (the server reports its other writers' commits
        as `StoreChanged`)."""
        return self._version

    # -- OpenClaw --------------------------------------------------------------------------------

    async def import_openclaw(self, root: Path, *, adopt: bool = False) -> ImportSummary:
        raise RemoteError(self.not_offered(Capability.IMPORT))

    # -- usage -----------------------------------------------------------------------------------

    async def usage(self, query: UsageQuery) -> UsageReport:
        """The server's report (its texts redacted by the server)."""
        if Capability.USAGE not in self.capabilities:
            raise BackendUnavailable(self.not_offered(Capability.USAGE))
        return (await self._post("usage", w.UsageRequest(query=query), w.UsageAnswer)).report

    # -- inbound hooks: posted to the server itself, not through its operator API ----------------

    async def run_hook(self, hook: HookRun) -> HookAdmitted:
        raise RemoteError(self.not_offered(Capability.HOOKS))

    async def hook_completion(self, run_id: str) -> HookCompletion:
        raise RemoteError(self.not_offered(Capability.HOOKS))

    async def wake_hook(self, wake: HookWake) -> WakeOutcome:
        raise RemoteError(self.not_offered(Capability.HOOKS))

    async def follow_openclaw(
        self, root: Path, stop: asyncio.Event, on_tick: Callable[[FollowTick], None], *, own_connection: bool
    ) -> None:
        raise RemoteError(f"{self.url}: following an OpenClaw is done on the server's machine (serve --openclaw)")

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        if self._info is None:
            await self.connect()

    async def sweep(self) -> int:
        return 0  # the server archives its own sub-agents

    async def drain(self) -> None:
        return None  # the work a tool starts runs on the server

    def left_pending_line(self) -> str | None:
        return None

    async def aclose(self) -> None:
        if self._io.loop.is_running():
            await self._io.run(self._shutdown())
        self._io.stop()

    def close(self) -> None:
        """Close from a thread with no loop running; closing again does nothing."""
        if self._io.loop.is_running():
            self._io.call(self._shutdown(), timeout=10)
        self._io.stop()

    async def _shutdown(self) -> None:
        if self._stream is not None:
            self._stream.cancel()
            await asyncio.gather(self._stream, return_exceptions=True)
            self._stream = None
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _error_type(response: httpx.Response) -> str | None:
    payload = _json(response)
    error = payload.get("error") if isinstance(payload, dict) else None
    return str(error.get("type")) if isinstance(error, dict) else None


def _message(response: httpx.Response) -> str:
    payload = _json(response)
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return response.text[:200] or response.reason_phrase


def _query(query: BrowseQuery) -> w.Query:
    return w.Query(
        kinds=query.kinds,
        active_minutes=query.active_minutes,
        search=query.search,
        order_by=query.order_by,
        descending=query.descending,
        include_archived=query.include_archived,
        keys=query.keys,
        except_keys=query.except_keys,
    )
