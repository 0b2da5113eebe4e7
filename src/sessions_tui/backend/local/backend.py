"""The local backend: the embedded engine of this process behind the `Backend` seam.

Each method is what a face used to do with the engine itself; the requester's context (its
channel, its sandbox flag) is built here, so a face names a requester and never holds a `ToolCall`.
Every async method runs its store work on the store's thread (engine/store/store_thread.py): no
caller's event loop (the dashboard's, the server's) waits for SQLite.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

from sessions_tui.backend.contract.types import (
    EVERY_CAPABILITY,
    Adopted,
    Capability,
    EventCallback,
    ImportSummary,
    KeptSession,
    OperationRefused,
    Requester,
    RequesterView,
    not_on,
)
from sessions_tui.backend.local import opening
from sessions_tui.backend.local.cron import LocalCron
from sessions_tui.backend.local.session_operations import SessionOperations
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.sessions.keys import DEFAULT_AGENT_ID
from sessions_tui.engine.store.connection import StoreDamaged
from sessions_tui.engine.store.disk.private_files import tightened_notice
from sessions_tui.tools.calling.base import ToolCall, ToolInputError
from sessions_tui.tools.calling.registry import invoke, invoke_read, reads_only

if TYPE_CHECKING:  # the dashboard's reads and the OpenClaw side load on first use: `tool` starts fast
    from sessions_tui.engine.config.sections.ui import NotifyConfig
    from sessions_tui.engine.export import SessionExport
    from sessions_tui.engine.hooks.values import HookAdmitted, HookCompletion, HookRun, HookWake, WakeOutcome
    from sessions_tui.engine.messaging.ledger import LedgerEntry
    from sessions_tui.engine.openclaw.follow import FollowTick
    from sessions_tui.engine.redaction.stream import StreamRedaction
    from sessions_tui.engine.sessions.live_status import Activity
    from sessions_tui.engine.subagents.records import AnnouncementView, ChildView
    from sessions_tui.engine.usage import UsageQuery, UsageReport
    from sessions_tui.tools.reading.browse import BrowsePage, BrowseQuery
    from sessions_tui.tools.reading.sessions_search import SearchOutcome
    from sessions_tui.tools.requester.explain import Explanation

P = ParamSpec("P")
T = TypeVar("T")


@contextmanager
def _in_hook_words() -> Iterator[None]:
    """A hook's refusals as the seam says them: the policy's a `ToolInputError`, a session that
    cannot take work an `OperationRefused`."""
    from sessions_tui.engine.hooks.hook_runs import HookConflict
    from sessions_tui.engine.hooks.policy import HookRefused

    try:
        yield
    except HookRefused as exc:
        raise ToolInputError(str(exc)) from None
    except HookConflict as exc:
        raise OperationRefused(str(exc)) from None


class LocalBackend(SessionOperations, LocalCron):
    """The `Backend` of an engine embedded in this process (the engine stays reachable as
    `engine` for whoever built it: the command line's start-up, tests staging a scene)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    async def _store(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`fn` run on the store's thread, awaited (store_thread.py)."""
        return await self.engine.store.thread.run(fn, *args, **kwargs)

    # -- where, and the config a face shows ------------------------------------------------------

    @property
    def capabilities(self) -> frozenset[Capability]:
        """All of them but compacting: the engine is here, and it does not compact a transcript."""
        return EVERY_CAPABILITY - {Capability.COMPACT}

    def not_offered(self, capability: Capability) -> str:
        if capability is Capability.COMPACT:
            return f"{self.location}: compacting a session is not on this backend: the embedded engine does not compact"
        return not_on(self.location, capability)

    @property
    def location(self) -> str:
        return str(self.engine.state_dir)

    @property
    def config_warnings(self) -> list[str]:
        return list(self.engine.config_warnings)

    @property
    def store_damage(self) -> str | None:
        """One line naming the state database and what to do, when it is damaged (nothing is then
        written): found by this process, or by another one since (a `stat` of the note it left)."""
        return self.engine.store.known_damage()

    @property
    def keybindings(self) -> dict[str, str]:
        return dict(self.engine.config.ui.keybindings)

    @property
    def theme(self) -> str | None:
        return self.engine.config.ui.theme

    @property
    def send_wait(self) -> int:
        return self.engine.config.ui.send_wait

    @property
    def stuck_after_minutes(self) -> int:
        return self.engine.config.ui.stuck_after_minutes

    @property
    def notify(self) -> NotifyConfig:
        return self.engine.config.ui.notify

    def public_config(self) -> dict[str, Any]:
        from sessions_tui.backend.remote.wire import PUBLIC_CONFIG_SECTIONS, public_config

        dumped = self.engine.config.model_dump(mode="json", by_alias=True, include=set(PUBLIC_CONFIG_SECTIONS))
        return public_config(dumped, self.redact)

    # -- keys and identity -----------------------------------------------------------------------

    def now(self) -> int:
        return self.engine.now()

    def canonical(self, key: str) -> str:
        return self.engine.canonical(key)

    def display(self, key: str, viewer_agent_id: str | None = None) -> str:
        return self.engine.shown_key(key, viewer_agent_id or DEFAULT_AGENT_ID)

    def main_session_key(self) -> str:
        return self.engine.main_session_key()

    def is_sandboxed(self, key: str) -> bool:
        return self.engine.is_sandboxed(key)

    def describe_requester(self, requester: Requester) -> RequesterView:
        from sessions_tui.backend.local.describe import describe_requester

        return describe_requester(self.engine, requester)

    def redact(self, text: str) -> str:
        return self.engine.redactor.redact(text)

    def stream_redaction(self) -> StreamRedaction:
        from sessions_tui.engine.redaction.stream import StreamRedaction

        return StreamRedaction(self.engine.redactor)

    # -- tools -----------------------------------------------------------------------------------

    def tool_call(self, requester: Requester) -> ToolCall:
        """The tools' call context of a requester: its channel read from its session. No chain: the
        owner's calls are in no run (a send's ledger entry says 'owner' for them)."""
        key = requester.key
        return ToolCall(
            engine=self.engine,
            agent_session_key=key,
            agent_channel=self.engine.session_channel(self.engine.canonical(key)) if key is not None else None,
            sandboxed=requester.sandboxed,
        )

    async def call_tool(self, name: str, args: dict[str, Any], requester: Requester) -> dict[str, Any]:
        if reads_only(name):  # the requester's context and the tool in one trip to the store's thread
            return await self._store(lambda: invoke_read(self.tool_call(requester), name, args))
        call = await self._store(self.tool_call, requester)  # its channel is read from the store
        return await invoke(call, name, args)

    def tools_for(self, requester: Requester) -> list[str]:
        from sessions_tui.tools.calling.host import EngineToolHost
        from sessions_tui.tools.calling.registry import TOOLS

        host = self.engine.tool_host
        key = self.engine.canonical(requester.key) if requester.key else self.engine.main_session_key()
        return host.allowed(key) if isinstance(host, EngineToolHost) else list(TOOLS)

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
        from sessions_tui.tools.reading.browse import browse_sessions

        def read() -> BrowsePage:
            call = self.tool_call(requester)
            return browse_sessions(call, query, offset=offset, limit=limit, after=after, before=before, count=count)

        return await self._store(read)

    async def browse_count(
        self, requester: Requester, query: BrowseQuery, cancelled: Callable[[], bool] | None = None
    ) -> int:
        from sessions_tui.tools.reading.browse import count_sessions

        # Cancelled while it counts, the caller stops waiting; `cancelled` ends the count itself.
        return await self._store(lambda: count_sessions(self.tool_call(requester), query, cancelled))

    async def browse_rows(self, requester: Requester, keys: list[str]) -> dict[str, dict[str, Any]]:
        from sessions_tui.tools.reading.browse import browse_rows

        # `BrowseRow`s, which `Backend.browse_rows` still annotates as plain dicts.
        return cast(
            "dict[str, dict[str, Any]]", await self._store(lambda: browse_rows(self.tool_call(requester), keys))
        )

    async def activity(self, requester: Requester, keys: list[str] | None = None) -> dict[str, Activity]:
        from sessions_tui.tools.reading.browse import session_activity

        return await self._store(lambda: session_activity(self.tool_call(requester), keys))

    async def mark_seen(self, key: str) -> None:
        await self._store(self.engine.store.activity.mark_seen, self.engine.canonical(key), self.engine.now())

    async def state_is_empty(self) -> bool:
        from sessions_tui.tools.reading.browse import state_is_empty

        return await self._store(state_is_empty, ToolCall(engine=self.engine))

    # -- the operator's reads and commands -------------------------------------------------------

    async def operator_sessions(self, search: str | None, limit: int) -> list[tuple[str, str]]:
        redact = self.engine.redactor.redact  # a label is user data: a token may be pasted into it
        found = await self._store(self.engine.operator_sessions, search, limit)
        return [(key, redact(label)) for key, label in found]

    async def children(self, requester_key: str) -> list[ChildView]:
        from sessions_tui.engine.subagents.tree import spawn_tree

        redact = self.engine.redactor.redact  # a task or label shown, cut, is redacted first (D16)
        tree = await self._store(spawn_tree, self.engine.subagents.children, requester_key)
        return [
            child.model_copy(update={"task": redact(child.task), "label": child.label and redact(child.label)})
            for child in tree
        ]

    async def announcements(self, requester_key: str) -> list[AnnouncementView]:
        redact = self.engine.redactor.redact
        return [
            one.model_copy(update={"text": redact(one.text), "label": one.label and redact(one.label)})
            for one in await self._store(self.engine.subagents.announcements, requester_key)
        ]

    async def run_label(self, run_id: str) -> str | None:
        run = await self._store(self.engine.subagents.get, run_id)
        return self.engine.redactor.redact(run.label or run.task) if run else None

    async def owner_key(self, key: str) -> str | None:
        return await self._store(self._owner_key, key)

    def _owner_key(self, key: str) -> str | None:
        store = self.engine.store
        session = store.sessions.get(self.engine.canonical(key)) or store.sessions.get_by_session_id(key.strip())
        return session.key if session else None

    async def owner_command(self, key: str, text: str) -> str | None:
        from sessions_tui.engine.messaging.commands import is_send_command, run_owner_command  # `send` alone

        if not is_send_command(text):
            return None
        target = await self.owner_key(key)
        if target is None:
            raise ToolInputError(f"No session found: {key}")
        return await self._store(run_owner_command, self.engine, target, text)

    # -- inbound hooks (engine/hooks/): placed and recorded on the store's thread, queued on this loop;
    # shielded, so a caller that stops waiting never leaves a recorded run unqueued

    async def run_hook(self, hook: HookRun) -> HookAdmitted:
        hooks, runs = self.engine.hooks, self.engine.runs  # built here, on the loop, once

        async def admit() -> HookAdmitted:
            with _in_hook_words():
                admission = await self._store(hooks.admit, hook, runs)
            return hooks.start(admission, runs)

        return await asyncio.shield(asyncio.ensure_future(admit()))

    async def hook_completion(self, run_id: str) -> HookCompletion:
        return await self.engine.hooks.completion(run_id)

    async def wake_hook(self, wake: HookWake) -> WakeOutcome:
        wakes, runs = self.engine.wakes, self.engine.runs

        def queue() -> tuple[WakeOutcome, Any]:
            outcome, request = wakes.wake(wake)
            return outcome, (runs.record(request), request) if request is not None else None

        async def admit() -> WakeOutcome:
            with _in_hook_words():
                outcome, run = await self._store(queue)
            if run is not None:
                runs.enqueue(*run)
            return outcome

        return await asyncio.shield(asyncio.ensure_future(admit()))

    async def explain(self, requester: Requester, target: str, agent: str | None) -> Explanation:
        from sessions_tui.tools.requester.explain import explain_access

        return await self._store(lambda: explain_access(self.tool_call(requester), target, agent))

    async def sends(self, session: str | None, state: str | None, limit: int) -> list[LedgerEntry]:
        from sessions_tui.engine.messaging.ledger import redacted_entry
        from sessions_tui.engine.messaging.send_states import SEND_STATES
        from sessions_tui.engine.runs.recovery import recover_interrupted

        if state is not None and state not in SEND_STATES:
            return []  # no send reaches a state that does not exist

        def read() -> list[LedgerEntry]:
            # A send whose process was killed ended with it: its run, or its agent-to-agent flow, is
            # ended as interrupted (the ledger told) first, even by a command that only reads, so no
            # send shows as under way.
            recover_interrupted(self.engine)
            entries = self.engine.ledger.entries(session=session, state=state, limit=limit)  # type: ignore[arg-type]
            return [redacted_entry(e, self.engine.redactor) for e in entries]

        return await self._store(read)

    async def usage(self, query: UsageQuery) -> UsageReport:
        """As the query's requester may see it (its visibility), or everything for the operator's."""
        from sessions_tui.engine.usage import usage_report
        from sessions_tui.tools.reading.usage_view import viewed_query

        engine = self.engine
        return await self._store(lambda: usage_report(engine.store, engine.config, viewed_query(engine, query)))

    async def export_session(self, key: str, *, redact: bool = True) -> SessionExport | None:
        """`redact=False` is for the owner of the state directory only (the command line checks); a
        sessionId a reset replaced exports that earlier transcript."""
        from sessions_tui.engine.export import session_export

        owner = await self.owner_key(key)
        return await self._store(session_export, self.engine, owner or key, redact=redact)

    async def search(
        self, requester: Requester, query: str, *, session: str | None = None, limit: int = 100
    ) -> SearchOutcome:
        from sessions_tui.tools.reading.sessions_search import SearchOutcome, checked_query, search_messages
        from sessions_tui.tools.requester.resolution import Failed

        found = await search_messages(
            self.tool_call(requester), checked_query(query), session_key=session, limit=limit, marked=True
        )
        if isinstance(found, Failed):  # its words repeat the session asked for, which may hold a secret
            return SearchOutcome(refused=self.engine.redactor.redact(found.error))
        return found

    async def search_index_behind(self) -> int:
        if self.engine.store.known_damage() is not None:
            return 0  # a damaged database is not written to: nothing will be indexed
        state = await self._store(self.engine.store.text_index.text_index_state)
        if not state.indexing:
            return 0
        return max(0, state.newest - state.indexed_through) if state.current else state.newest

    async def catch_up_search_index(self) -> None:
        from sessions_tui.engine.store.index_catch_up import catch_up

        if self.engine.store.known_damage() is not None:
            return  # nothing is written to a damaged database
        try:
            await catch_up(self.engine)
        except StoreDamaged:
            return  # met it: kept (store/disk/integrity.py), and said by each face as any damage found

    # -- events ----------------------------------------------------------------------------------

    def subscribe(self, callback: EventCallback) -> Callable[[], None]:
        return self.engine.events.subscribe(callback)

    async def data_version(self) -> int:
        return await self._store(self.engine.data_version)

    async def watch_store_changes(self, wake: Callable[[], None]) -> bool:
        return await self._store(self.engine.store.watch_changes, lambda _sessions: wake())

    @property
    def pushes_events(self) -> bool:
        return False  # other processes' writes show only in `data_version`

    # -- OpenClaw --------------------------------------------------------------------------------

    async def import_openclaw(self, root: Path, *, adopt: bool = False) -> ImportSummary:
        from sessions_tui.engine.openclaw.importer import AdoptRefused, import_openclaw

        # Every line of a report is shown redacted: a key or a file name may hold a secret.
        try:
            imported = await self._store(import_openclaw, self.engine.store, self.engine.canonical, root, adopt=adopt)
        except AdoptRefused as exc:
            raise OperationRefused(self.redact(str(exc))) from None
        report = imported.shown(self.redact)
        adopted = None
        if adopt:
            kept = [KeptSession(key=key, openclaw_lines=lines) for key, lines in report.kept.items()]
            adopted = Adopted(sessions=report.adopted_sessions, lines=report.lines_imported, kept=kept)
        return ImportSummary(
            sources=list(report.sources), problems=list(report.problems), summary=report.summary(), adopted=adopted
        )

    async def follow_openclaw(
        self, root: Path, stop: asyncio.Event, on_tick: Callable[[FollowTick], None], *, own_connection: bool
    ) -> None:
        from sessions_tui.engine.openclaw.follow import Follower, follow_beside, run_follow

        def shown(tick: FollowTick) -> None:
            on_tick(tick.shown(self.redact))

        if own_connection:
            await follow_beside(self.engine.store, self.engine.canonical, root, stop, shown)
        else:
            await run_follow(Follower(self.engine.store, self.engine.canonical, root), stop, shown)

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        await opening.start(self.engine)

    async def sweep(self) -> int:
        return await self._store(self.engine.subagents.sweep)

    async def drain(self) -> None:
        await self.engine.drain()

    def left_pending_line(self) -> str | None:
        """Deliveries stopped at exit stay `pending` (see outbox.py); the next process retries them."""
        if not self.engine.built("outbox"):
            return None  # this process started no delivery
        outbox = self.engine.outbox
        left = outbox.left_pending
        if not left:
            return None
        which = ", ".join(f"#{i}" + (f" to {channel}" if channel else "") for i, channel in left)
        one = len(left) == 1
        why = (
            f"the webhook did not finish within {outbox.waited_s:g} s"
            if outbox.waited_s is not None
            else f"{'it was' if one else 'they were'} under way when sessions-tui quit"
        )
        return (
            f"warning: {'delivery' if one else 'deliveries'} {which} {'is' if one else 'are'} still pending "
            f"({why}); the next sessions-tui process to open this state directory will retry {'it' if one else 'them'}"
        )

    async def aclose(self) -> None:
        await self.engine.aclose()

    def close(self) -> None:
        self.engine.close()


def open_local(state_dir: Path, config_path: Path, *, demo: bool = False, store: str | None = None) -> LocalBackend:
    """The local backend of a state directory (raising `ConfigError`, `StoreError` or
    `StateDirError`), its store where `store` says (a PostgreSQL URL, or `sqlite`; None: where the
    config says, else the state directory's); with `demo`, the demo's sessions seeded first when it is
    empty."""
    engine, _ = opening.open_engine(state_dir, config_path, store)
    if demo:
        from sessions_tui.engine.demo.state import seed_demo

        if seed_demo(engine, config_path):  # reopened under the demo config it may have written
            loosened = engine.store.loosened
            engine.close()
            engine, _ = opening.open_engine(state_dir, config_path, store)
            if loosened and not engine.store.loosened:  # tightened by the first opening: said all the same
                engine.store.loosened = loosened
                engine.config_warnings.insert(0, tightened_notice(engine.state_dir, loosened))
    engine.openclaw_sender = opening.GatewaySenderOnFirstUse()  # OpenClaw-owned sessions: through their gateway
    return LocalBackend(engine)
