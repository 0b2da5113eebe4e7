"""The embedded engine: one state directory's store with its config, as the tools see it.

This plays the part of OpenClaw's gateway, in process: it owns the state and answers the
questions the tools ask (which sessions, which messages, which agents). It does not know who
calls it; the tools apply the requester's point of view.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessions_tui.engine.clock import Clock
from sessions_tui.engine.config import Config, ConfigError, LoadedConfig, defaults_of, load_config
from sessions_tui.engine.config.policies import ConfigPolicies
from sessions_tui.engine.events import EventBus
from sessions_tui.engine.messaging.audit import record_refusal
from sessions_tui.engine.messaging.ledger import SendLedger
from sessions_tui.engine.redaction.redact import Redactor, mask_parts
from sessions_tui.engine.sessions.entry import display_name
from sessions_tui.engine.sessions.keys import (
    DEFAULT_AGENT_ID,
    classify_session_kind,
    entry_channel,
)
from sessions_tui.engine.sessions.policy import (
    SendPolicyVerdict,
    resolve_send_policy,
)
from sessions_tui.engine.sessions.refusals import OwnedByOpenClaw, SendBlocked
from sessions_tui.engine.store.disk.private_files import tightened_notice
from sessions_tui.engine.store.location import LocationError, store_url
from sessions_tui.engine.store.store import Store

if TYPE_CHECKING:  # the parts below load when first used: most `tool` calls use none of them
    from sessions_tui.engine.cron.catalog import Catalog
    from sessions_tui.engine.cron.scheduler import Scheduler
    from sessions_tui.engine.hooks.hook_runs import HookRuns
    from sessions_tui.engine.hooks.wakes import Wakes
    from sessions_tui.engine.llm.registry import ModelRegistry
    from sessions_tui.engine.messaging.outbox import Outbox
    from sessions_tui.engine.messaging.send_service import SendService
    from sessions_tui.engine.openclaw.gateway_send import OpenClawSender
    from sessions_tui.engine.runs.runs import RunRequest, Runs
    from sessions_tui.engine.runs.takeover import Takeover
    from sessions_tui.engine.runs.turns import ToolHost
    from sessions_tui.engine.store.tables.runs import RunRecord
    from sessions_tui.engine.subagents.registry import SubagentRegistry
    from sessions_tui.engine.subagents.run_controls import RunControls

VISIBILITIES = ("self", "tree", "agent", "all")


def config_secrets(config: Config) -> list[str]:
    """The secret values the configuration holds or points at (API keys, secret-looking
    headers, gateway tokens): masked wherever they appear, whatever their shape."""
    from sessions_tui.engine.config.model.secret_refs import secret_text
    from sessions_tui.engine.llm.api_key import resolve_api_key
    from sessions_tui.engine.redaction.redact import is_secret_field

    out: list[str] = []
    tokens = (config.gateway.auth.token, config.gateway.remote.token, config.hooks.token, config.cron.webhook_token)
    for token in (*tokens, os.environ.get("SESSIONS_TUI_TOKEN")):
        text = secret_text(token)
        if text:
            out.append(text)
    for name, provider in config.models.providers.items():
        key = resolve_api_key(name, provider)
        if key:
            out.append(key)
        for header, value in (provider.headers or {}).items():
            if is_secret_field(header) or header.lower() in ("authorization", "proxy-authorization"):
                out.append(value.get_secret_value().split(" ", 1)[-1])
    return out


async def _execute_run(engine: Engine, record: RunRecord, request: RunRequest) -> None:
    """The run executor (runs/turns.py's `execute_run`), loaded when the first run starts."""
    from sessions_tui.engine.runs.turns import execute_run

    await execute_run(engine, record, request)


class Engine(ConfigPolicies):
    """State, config and the derived policies of one state directory."""

    def __init__(
        self,
        state_dir: Path | str,
        config: Config | None = None,
        *,
        clock: Clock | None = None,
        config_path: Path | None = None,
        store_url: str | None = None,
    ) -> None:
        config = config or defaults_of(Config)
        redactor = Redactor(
            mode=config.logging.redact_sensitive,
            patterns=config.logging.redact_patterns,
            known_secrets=config_secrets(config),
        )
        super().__init__(config, redactor)
        self.state_dir = Path(state_dir).expanduser()
        self.config_path = config_path
        self.clock = clock or Clock()
        self.store = self._open_store(store_url, config)
        self.store.text_index.text_redactor = self.redactor  # the search index holds text as this redacts it
        self.events = EventBus()
        self.ledger = SendLedger(self)  # from the start: it takes what it records from the events
        self.tool_host: ToolHost | None = None
        self.serves_controls = False
        """Set by start-up (backend/local/opening.py): from this process's first run on, it serves the
        kills and steers other processes ask of its runs."""
        self.openclaw_sender: OpenClawSender | None = None
        """Set by whoever opens the engine (backend/local): sends into OpenClaw-owned sessions through
        their own gateway (openclaw/gateway_send.py); closed with the engine."""
        self._background: set[asyncio.Task[Any]] = set()
        # What opening warned about: the state directory made its owner's only, and what loading the
        # config file warned about (a value clamped, an unknown choice, added by `open`), for a front
        # end to show where its user looks (the dashboard's screen hides stderr).
        self.config_warnings: list[str] = (
            [tightened_notice(self.state_dir, self.store.loosened)] if self.store.loosened else []
        )

    def _open_store(self, url: str | None, config: Config) -> Store:
        """The state directory's SQLite store, or with `url` the PostgreSQL database's (its mirror files
        in the state directory), where this process is one host among those sharing it."""
        if url is None:
            return Store(self.state_dir, self.clock)
        from sessions_tui.engine.store.postgres.store import PostgresStore  # loads psycopg

        return PostgresStore(url, self.state_dir, self.clock, lease_ms=config.store.lease_seconds * 1000)

    # The parts a command may never use are built when first asked for (`built` says whether one
    # was): a `tool` call that reads, in a state directory with nothing left to pick up, loads none.

    @cached_property
    def outbox(self) -> Outbox:
        """The channel deliveries (messaging/outbox.py)."""
        from sessions_tui.engine.messaging.outbox import Outbox

        return Outbox(self)

    @cached_property
    def sends(self) -> SendService:
        """The tools' sends, recorded in the ledger."""
        from sessions_tui.engine.messaging.send_service import SendService

        return SendService(self.ledger)

    @cached_property
    def runs(self) -> Runs[Engine]:
        """The runs of this process; the first one it starts starts serving the run controls."""
        from sessions_tui.engine.runs.runs import Runs

        return Runs(self, _execute_run, on_start=self._serve_run_controls)

    @cached_property
    def subagents(self) -> SubagentRegistry:
        from sessions_tui.engine.subagents.registry import SubagentRegistry

        return SubagentRegistry(self)

    @cached_property
    def run_controls(self) -> RunControls:
        """Kill and steer across processes."""
        from sessions_tui.engine.subagents.run_controls import RunControls

        return RunControls(self)

    @cached_property
    def hooks(self) -> HookRuns:
        """The runs inbound hooks start (`serve`'s `POST /hooks/agent`)."""
        from sessions_tui.engine.hooks.hook_runs import HookRuns

        return HookRuns(self)

    @cached_property
    def wakes(self) -> Wakes:
        """The wakes from outside (`serve`'s `POST /hooks/wake`) and the system events they queue."""
        from sessions_tui.engine.hooks.wakes import Wakes

        return Wakes(self)

    @cached_property
    def cron_jobs(self) -> Catalog:
        """The scheduled jobs as the operator manages them (cron/catalog.py)."""
        from sessions_tui.engine.cron.catalog import Catalog

        return Catalog(
            self.store,
            self.now,
            on_change=self._jobs_changed,
            declared=lambda: self.config.cron.jobs,
            warn=self.config_warnings.append,
        )

    @cached_property
    def scheduler(self) -> Scheduler:
        """What runs the due jobs; started only by a process hosting the engine long-running (cron/scheduler.py)."""
        from sessions_tui.engine.cron.scheduler import Scheduler

        return Scheduler(self)

    @cached_property
    def takeover(self) -> Takeover:
        """On a store several hosts share: what lapsed hosts left, taken over (runs/takeover.py); started
        by a process hosting the engine, every third of `store.leaseSeconds`."""
        from sessions_tui.engine.runs.takeover import Takeover

        return Takeover(self, self.config.store.lease_seconds / 3)

    def _jobs_changed(self) -> None:
        if self.built("scheduler"):
            self.scheduler.wake()

    def built(self, part: str) -> bool:
        """Whether the part `part` (`outbox`, `runs`, `run_controls`, `models`, …) was built."""
        return part in self.__dict__

    def _serve_run_controls(self) -> None:
        """Other processes ask a kill or steer of the process that holds a run: once started
        (`serves_controls`), from its first run on, this process serves what they ask
        (run_controls.py), until `aclose`."""
        if self.serves_controls and not self.run_controls.serving():
            self.run_controls.start()

    @cached_property
    def models(self) -> ModelRegistry:
        """The model clients, built when a run first asks for one: a command that starts no run
        (most `tool` calls) never loads them."""
        from sessions_tui.engine.llm.registry import ModelRegistry

        return ModelRegistry(self)

    @classmethod
    def open(
        cls, state_dir: Path | str, config_path: Path, *, clock: Clock | None = None, store: str | None = None
    ) -> tuple[Engine, LoadedConfig]:
        """Load the config (raising `ConfigError`) and open the store: `store` a location already checked
        (a PostgreSQL URL, or `sqlite`), else the config's `store.location`, else the state directory's."""
        loaded = load_config(config_path)
        location = store or loaded.config.store.location
        try:
            url = None if location is None else store_url(location, f"{config_path}: store.location")
        except LocationError as exc:
            raise ConfigError(str(exc)) from None
        engine = cls(state_dir, loaded.config, clock=clock, config_path=config_path, store_url=url)
        engine.config_warnings += loaded.warnings
        return engine, loaded

    def canonical(self, key: str, agent_id: str = DEFAULT_AGENT_ID) -> str:
        """The stored spelling of a key, which may be one as shown: faces show keys redacted
        (`shown_key`) and pass back what they show, so a redacted key names the one session whose
        key it is the redaction of (when exactly one is, and no session has it as its own key)."""
        spelled = super().canonical(key, agent_id)
        parts = mask_parts(spelled)
        if parts is None or self.store.sessions.session_id_of(spelled) is not None:
            return spelled
        found = [k for k in self.store.sessions.keys_like(parts) if self.redactor.redact(k) == spelled]
        return found[0] if len(found) == 1 else spelled

    def close(self) -> None:
        self.ledger.flush()  # what the send ledger has not written yet
        self.store.close()

    async def aclose(self) -> None:
        """Stop background work and close model clients and the store."""
        if self.built("takeover"):
            await self.takeover.aclose()
        if self.built("run_controls"):
            await self.run_controls.aclose()
        if self.built("scheduler"):
            await self.scheduler.aclose()  # its runs under way recorded as interrupted
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*self._background, return_exceptions=True)
        if self.built("runs"):
            await self.runs.cancel_all()
        if self.built("outbox"):
            await self.outbox.aclose()  # deliveries under way stay pending, for the next process
        if self.built("models"):  # a run asked for a model
            await self.models.aclose()
        if self.openclaw_sender is not None:
            await self.openclaw_sender.aclose()
        self.close()

    # -- background work ----------------------------------------------------------------------

    def background(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run engine work detached from its caller (a2a flows), tracked for `drain`."""
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def drain(self, delivery_wait: float | None = None) -> None:
        """Wait until every run and background task this process started has finished, then for
        its webhook deliveries at most `delivery_wait` seconds (None: `EXIT_WAIT_S`; those left
        stay pending, see messaging/outbox.py)."""
        while True:
            if self.built("runs"):
                await self.runs.drain()
            tasks = [t for t in self._background if not t.done()]
            if not tasks:
                if not self.built("runs") or self.runs.pending() == 0:
                    if self.built("outbox"):  # else this process has started no delivery
                        from sessions_tui.engine.messaging.outbox import EXIT_WAIT_S

                        await self.outbox.settle(EXIT_WAIT_S if delivery_wait is None else delivery_wait)
                    return
                continue
            await asyncio.gather(*tasks, return_exceptions=True)

    # -- ways into a session ------------------------------------------------------------------

    def send_verdict(self, key: str) -> SendPolicyVerdict:
        """The send policy for a session: its override, then `session.sendPolicy` (docs/decisions.md D6)."""
        session = self.store.sessions.get(key)
        entry = session.entry if session else {}
        return resolve_send_policy(self.config.session.send_policy, entry=entry, session_key=key)

    def refuse(self, key: str, *, via: str, reason: str, requester: str | None = None) -> None:
        record_refusal(self, key, via=via, reason=reason, requester=requester)

    def owner_of(self, key: str) -> Path | None:
        """The OpenClaw state directory a session belongs to (docs/decisions.md D17); None for the engine's own."""
        source = self.store.imports.import_source_of(key)
        if source is None:
            return None
        from sessions_tui.engine.openclaw.layout import owner_root  # OpenClaw's side loads when it is used

        return owner_root(source)

    def admit(self, key: str, *, via: str, requester: str | None = None) -> None:
        """Let something into a session, or raise `SendBlocked` after recording why not: the
        session belongs to an OpenClaw (`OwnedByOpenClaw`), or the send policy says no."""
        owner = self.owner_of(key)
        if owner is not None:
            refusal: SendBlocked = OwnedByOpenClaw(key, owner)
        else:
            verdict = self.send_verdict(key)
            if verdict.allowed:
                return
            refusal = SendBlocked(verdict.reason)
        self.refuse(key, via=via, reason=refusal.reason, requester=requester)
        raise refusal

    def agent(self, request: RunRequest, *, via: str, requester: str | None = None) -> str:
        """Start a run in a session if it may be let in (`admit`); returns the run id at once."""
        self.admit(request.session_key, via=via, requester=requester)
        return self.runs.start(request)

    def now(self) -> int:
        return self.clock.now_ms()

    def data_version(self) -> int:
        """Moves when another process commits to the state directory (see `Store.data_version`)."""
        return self.store.data_version()

    # -- the operator's reads -----------------------------------------------------------------

    def operator_sessions(self, search: str | None = None, limit: int = 200) -> list[tuple[str, str]]:
        """(key, label) of every session, newest first: for the operator's own pickers."""
        sessions, _ = self.store.browse.list_sessions(limit=limit, search=search)
        return [(s.key, display_name(s.entry)) for s in sessions]

    def session_channel(self, key: str) -> str | None:
        """The channel a session talks on (docs/decisions.md D10), or None when it is not known."""
        session = self.store.sessions.get(key)
        channel = entry_channel(key, classify_session_kind(key, None, self.alias), session.entry if session else {})
        return None if channel == "unknown" else channel
