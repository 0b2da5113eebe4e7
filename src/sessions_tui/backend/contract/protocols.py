"""The backend seam as protocols: one per capability, composed into `Backend`.

A face holds one `Backend` and nothing of the engine. The local backend wraps the embedded engine
in this process; a remote one (an HTTP client of a `/tools/invoke` server) implements the same
methods; an OpenClaw gateway answers fewer. So every method that may do I/O is async, and every
answer is plain data: a tool's result dict, pydantic models, tuples (vocabulary.py lists the
engine's types among them). The events a backend streams are the engine's typed events.

Four protocols every backend answers (`Placed`, `Identifying`, `Streaming`, `Living`); the others
each answer one `Capability` (`PROTOCOL_OF`), and a backend's `capabilities` says which of them it
really has: a face asks before it offers what one of them does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from sessions_tui.backend.contract.types import (
    AbortOutcome,
    Capability,
    EventCallback,
    ImportSummary,
    NewSession,
    Requester,
    RequesterView,
    SessionOpOutcome,
)

if TYPE_CHECKING:  # only named in signatures: a command that never follows or browses does not load them
    from sessions_tui.engine.config.sections.ui import NotifyConfig
    from sessions_tui.engine.cron.jobs import CronJob, CronRun
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


class Placed(Protocol):
    """Where the state lives and the config a face shows: every backend."""

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What this backend can do (each `Capability` names the protocol it answers); a face
        shows only what is here."""

    def not_offered(self, capability: Capability) -> str:
        """The one line a face says for a capability this backend has not (and a call for it
        refuses with, as `BackendUnavailable`)."""

    @property
    def location(self) -> str:
        """Where the state lives (a state directory, or a server's address), for a header line."""

    @property
    def config_warnings(self) -> list[str]:
        """What loading the config warned about, for a face to show where its user looks."""

    @property
    def store_damage(self) -> str | None:
        """One line naming the state database and what to do, once it is known to be damaged (found
        by this process or another, or said by a server): nothing is written to it then."""

    @property
    def keybindings(self) -> dict[str, str]:
        """The dashboard's key map from the config (binding id -> keys)."""

    @property
    def theme(self) -> str | None:
        """The dashboard's theme named in the config (`ui.theme`), None for the dashboard's own."""

    @property
    def send_wait(self) -> int:
        """The seconds a send from the dashboard's composer waits unless changed for it (`ui.sendWait`)."""

    @property
    def stuck_after_minutes(self) -> int:
        """After how many minutes without progress a running session is `stuck` (`ui.stuckAfterMinutes`, 0: never)."""

    @property
    def notify(self) -> NotifyConfig:
        """How notices reach the operator and what is watched by default (`ui.notify`)."""

    def public_config(self) -> dict[str, Any]:
        """The config a remote face may see (`wire.PUBLIC_CONFIG_SECTIONS`): never a secret or a URL."""


class Identifying(Protocol):
    """Keys and identity from the config, no I/O: every backend."""

    def now(self) -> int:
        """The engine's clock in epoch milliseconds (ages, countdowns)."""

    def canonical(self, key: str) -> str:
        """A session key in any spelling as the engine stores it."""

    def display(self, key: str, viewer_agent_id: str | None = None) -> str:
        """A canonical key as a person reads it, from an agent's point of view (the default one's),
        redacted (`ConfigPolicies.shown_key`): every face shows a key through this."""

    def main_session_key(self) -> str:
        """The default agent's main session."""

    def is_sandboxed(self, key: str) -> bool:
        """Whether the config sandboxes a session's tools (`sandbox.mode`)."""

    def describe_requester(self, requester: Requester) -> RequesterView:
        """What a requester's tools may see (visibility, sandbox clamp, agent-to-agent)."""

    def redact(self, text: str) -> str:
        """Agent text with its secrets masked, before a face prints it."""

    def stream_redaction(self) -> StreamRedaction | None:
        """What of each run's streamed text may be shown or passed on (the dashboard's preview, a
        server's event stream); None when the backend's events carry it safe already (a server
        made it so) or carry none."""


class Streaming(Protocol):
    """The engine's events and the number that moves with other writers: every backend."""

    def subscribe(self, callback: EventCallback) -> Callable[[], None]:
        """Have the engine's events delivered to `callback` (possibly from another thread);
        returns the function that stops them."""

    async def data_version(self) -> int:
        """A number that moves when another process writes the state."""

    async def watch_store_changes(self, wake: Callable[[], None]) -> bool:
        """Have `wake` called (from any thread) as soon as another writer commits, when the store can
        tell (a PostgreSQL store's change notifications); False when it cannot: poll `data_version`."""

    @property
    def pushes_events(self) -> bool:
        """Whether the events say every change, other writers' too (a server's stream, a gateway's):
        a face that follows changes listens and never polls `data_version`. False: another process's
        writes show only as `data_version` moving (a local state directory), to poll off the loop."""


class Living(Protocol):
    """Start, sweep, drain and close: every backend."""

    async def start(self) -> None:
        """Attach the tools, pick up what a stopped process left, announce and archive what is due."""

    async def sweep(self) -> int:
        """Archive the finished sub-agents whose time has come; how many. Safe in a thread."""

    async def drain(self) -> None:
        """Wait for the work this process started (runs, ping-pong, announces, deliveries)."""

    def left_pending_line(self) -> str | None:
        """A warning naming the webhook deliveries left pending at exit, if any."""

    async def aclose(self) -> None:
        """Stop background work and close everything."""

    def close(self) -> None:
        """Close the store of a backend that was never started."""


class Reading(Protocol):
    """The session table and the operator's pickers."""

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
        """A page of the sessions the requester may see, filtered and sorted: at `offset`, or the
        page after another's `last` / before its `first` (keyset paging: a deep page costs what
        the first does; `offset` is then only reported back). `count`: the filtered set counted
        whole too (else `total` is -1; `browse_count` counts apart)."""

    async def browse_count(
        self, requester: Requester, query: BrowseQuery, cancelled: Callable[[], bool] | None = None
    ) -> int:
        """How many sessions `browse` pages through for the query; -1 if `cancelled()` turned true
        meanwhile (a count over a large store stops soon after)."""

    async def browse_rows(self, requester: Requester, keys: list[str]) -> dict[str, dict[str, Any]]:
        """The rows of some canonical keys the requester may see (live updates)."""

    async def state_is_empty(self) -> bool:
        """Whether there is no session at all, archived ones included."""

    async def operator_sessions(self, search: str | None, limit: int) -> list[tuple[str, str]]:
        """(key, label) of every session, newest first, for the operator's pickers; labels redacted."""

    async def owner_key(self, key: str) -> str | None:
        """The session a person means by a key in any spelling, `main`, or a sessionId."""

    async def activity(self, requester: Requester, keys: list[str] | None = None) -> dict[str, Activity]:
        """The live-status facts (`Activity`) of the sessions the requester may see: with `keys`
        None, of every one that may not be idle now (a running run, a failed last run, a run ended
        since it was seen, a recent chain-guard refusal), read cheaply however many sessions there
        are (a status board's seed); else of those canonical keys (its live updates), a key left
        out being idle or not the requester's to see."""

    async def mark_seen(self, key: str) -> None:
        """The operator opened the session: what ended in it before now is read (`done` clears)."""


class Calling(Protocol):
    """The session tools, called as a requester (sending and spawning among them)."""

    async def call_tool(self, name: str, args: dict[str, Any], requester: Requester) -> dict[str, Any]:
        """Run a tool as the requester; its result dict. Raises `ToolInputError` for invalid
        arguments and `UnknownToolError` for a tool that does not exist."""

    def tools_for(self, requester: Requester) -> list[str]:
        """The tools the requester's session may call (its agent's tool policy: a sub-agent's
        deny lists), before any face's own limits."""


class Spawning(Protocol):
    """A session's sub-agents, live."""

    async def children(self, requester_key: str) -> list[ChildView]:
        """The session's spawn tree, parent first (`depth` 1: its own children, newest first; then
        each child's subtree), with live status and tokens and cost rolled up (`tree_*`)."""


class Announcing(Protocol):
    """The sub-agent announces in a transcript and the runs' labels."""

    async def announcements(self, requester_key: str) -> list[AnnouncementView]:
        """The sub-agent announces in a session's recent transcript, oldest first."""

    async def run_label(self, run_id: str) -> str | None:
        """A sub-agent run's label (or its task), None for an unknown run."""


class Controlling(Protocol):
    """The owner's commands in a session."""

    async def owner_command(self, key: str, text: str) -> str | None:
        """Carry out the owner's `/send on|off|inherit` in a session (`key` in any spelling, `main`,
        or a sessionId): its reply (None: not one). Raises `ToolInputError` for a key that names no
        session."""


class Ledgering(Protocol):
    """The send ledger."""

    async def sends(self, session: str | None, state: str | None, limit: int) -> list[LedgerEntry]:
        """The send ledger, newest first: every `sessions_send` and what became of it; only those a
        canonical `session` sent or received, only those that reached `state`. Message and detail
        texts redacted and cut as history text is."""


class Explaining(Protocol):
    """Which rule decides what a requester may do."""

    async def explain(self, requester: Requester, target: str, agent: str | None) -> Explanation:
        """May the requester list, read, send to the session `target` and spawn under `agent`
        (default: the target's agent), and which rule decides each: the rules the tools refuse by.
        Raises `ToolInputError` for a target that names no session or an agent id that is not one."""


class Exporting(Protocol):
    """A session for a file."""

    async def export_session(self, key: str) -> SessionExport | None:
        """A session's transcript and entry for `sessions-tui export` and the dashboard's `E`,
        redacted; `key` in any spelling, a sessionId too. None: no such session."""


class Searching(Protocol):
    """The messages matching a query, and the index behind it."""

    async def search(
        self, requester: Requester, query: str, *, session: str | None = None, limit: int = 100
    ) -> SearchOutcome:
        """The messages matching every word of `query` that the requester may read (`sessions_search`'s
        rules; in `session` only, when given), best first, each with where it is in its transcript;
        snippets redacted, matched words marked (store/tables/text_index.py `HIT_START`/`HIT_END`) where
        the backend can. Raises `ToolInputError` for an empty or too long query, `SearchUnreadable`
        when the state database is damaged where the search reads (on a damaged one whose index is
        behind, it answers from what the index holds, `indexing` set)."""

    async def search_index_behind(self) -> int:
        """How many transcript lines the search index has still to take in and will (0: none, a
        damaged state database, which nothing is written to, or a server, which keeps its own index up)."""

    async def catch_up_search_index(self) -> None:
        """Index everything the search index is behind by, now (a search answers from what is
        indexed; a command that searches once wants all of it)."""


class Importing(Protocol):
    """An OpenClaw state directory on this machine, imported once or followed."""

    async def import_openclaw(self, root: Path, *, adopt: bool = False) -> ImportSummary:
        """Import an OpenClaw state directory once; with `adopt`, take its sessions over (they become
        the engine's; `OperationRefused` for one this state directory follows)."""

    async def follow_openclaw(
        self, root: Path, stop: asyncio.Event, on_tick: Callable[[FollowTick], None], *, own_connection: bool
    ) -> None:
        """Follow an OpenClaw until `stop` is set, `on_tick` after every tick. `own_connection`:
        write through a connection of its own, so readers notice it like another process."""


class Aborting(Protocol):
    """Stopping a session's running turn, as its operator (or as the requester acting)."""

    async def abort_run(
        self, key: str, *, clear_queued: bool = False, requester: Requester | None = None
    ) -> AbortOutcome:
        """Stop the turn running in the session (`key` in any spelling, `main`, or a sessionId);
        with `clear_queued`, the messages waiting behind it are dropped too. Not running is no
        error (`aborted` false, `status` `no-active-run`). Raises `ToolInputError` for a key that
        names no session, `OperationRefused` for one the `requester` may not reach."""


class Operating(Protocol):
    """The operator's operations on a session: create, reset, rename, model/thinking, archive, delete.

    Each raises `ToolInputError` for bad input (a key of no session, a malformed key or label, an
    unknown thinking level) and `OperationRefused` for what the state forbids. `requester`: the
    session a face acts as (the dashboard's act-as); None is the operator, who reaches every
    session. A requester reaches only what its visibility and sandbox let it see."""

    async def create_session(self, request: NewSession, *, requester: Requester | None = None) -> SessionOpOutcome:
        """A new session (a key that exists, or `global`/`unknown`, refused), then its first message."""

    async def reset_session(self, key: str, *, requester: Requester | None = None) -> SessionOpOutcome:
        """A new sessionId under the key; the old transcript kept."""

    async def rename_session(
        self, key: str, label: str | None, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        """The label set (unique among live sessions) or, None, cleared."""

    async def set_session_model(
        self, key: str, model: str | None, thinking: str | None, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        """The model override (`default` clears it) and/or the thinking level (`off` clears it)."""

    async def archive_session(
        self, key: str, archived: bool, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        """Archived (out of the default list) or unarchived."""

    async def delete_session(self, key: str, *, requester: Requester | None = None) -> SessionOpOutcome:
        """Its running turn stopped, then the entry and its lines removed (an agent's main refused)."""


class Compacting(Protocol):
    """A session's transcript compacted where the backend can (an OpenClaw gateway's
    `sessions.compact`: a summary in place of the older lines; the embedded engine does not)."""

    async def compact_session(self, key: str, *, requester: Requester | None = None) -> SessionOpOutcome:
        """The session's transcript compacted (`op` compact; `compacted` false with the `reason` when
        there was nothing to compact). Raises `ToolInputError` for a key that names no session,
        `OperationRefused` for what the backend may not do there."""


class Hooking(Protocol):
    """Work handed in from outside: OpenClaw's inbound hooks (`serve`'s `POST /hooks/agent`, `/hooks/wake`)."""

    async def run_hook(self, hook: HookRun) -> HookAdmitted:
        """Place the hook by the `hooks` policy (its agent and session), queue its run, and follow
        it to its end. Raises `ToolInputError` with OpenClaw's words for what the policy refuses,
        `OperationRefused` for a session that cannot take work (one an OpenClaw owns)."""

    async def hook_completion(self, run_id: str) -> HookCompletion:
        """How a hook run `run_hook` started here ended, once it has (`KeyError`: not one of them)."""

    async def wake_hook(self, wake: HookWake) -> WakeOutcome:
        """Queue a wake's text for its session (`queued`, or `coalesced` with the same one pending),
        and with `now` run on the events pending. Refuses as `run_hook` does."""


class Scheduling(Protocol):
    """Cron jobs (OpenClaw's scheduled agent turns): listed, added, edited, removed, enabled, run now,
    their run history, and the job a session belongs to. Jobs are OpenClaw's JSON (`CronJob`); a
    change is a patch in its field names. Each raises `ToolInputError` for bad input (a job that is
    not well formed, an id of no job) and `OperationRefused` for what the state forbids (a job the
    config declares edited or removed, an id taken, a run of it under way)."""

    async def cron_jobs(self) -> list[CronJob]:
        """Every job, soonest next run first."""

    async def cron_job(self, job_id: str) -> CronJob:
        """One job, with its state."""

    async def add_cron_job(self, job: dict[str, Any]) -> CronJob:
        """A new job from OpenClaw's job JSON (its id made when not given)."""

    async def edit_cron_job(self, job_id: str, patch: dict[str, Any]) -> CronJob:
        """The job changed (`payload` and `delivery` merged; a None value clears a field)."""

    async def remove_cron_job(self, job_id: str) -> CronJob:
        """The job removed (its history stays); returns it as it was."""

    async def enable_cron_job(self, job_id: str, enabled: bool) -> CronJob:
        """Enabled (its next run from now) or disabled."""

    async def run_cron_job(self, job_id: str) -> CronRun:
        """The job run once now, whatever its schedule, and waited for."""

    async def cron_runs(self, job_id: str, limit: int) -> list[CronRun]:
        """A job's runs, newest first."""

    async def cron_job_of(self, session_key: str) -> CronJob | None:
        """The job whose runs go into the session (its own `cron:<jobId>` one, or where it ran last)."""

    async def serve_cron_jobs(self) -> None:
        """From now on run the jobs when they are due, here (a process hosting an engine long-running:
        `serve`, the dashboard); a backend whose jobs run elsewhere does nothing."""


class Metering(Protocol):
    """Usage and its estimated cost."""

    async def usage(self, query: UsageQuery) -> UsageReport:
        """The tokens and estimated cost of model turns from `query.since` on (whole hours), by
        `query.by` and over time by `query.every`: a cost from what a provider reported, else the
        config's price of the model, its turns without either counted as unpriced."""


class Backend(
    Placed,
    Identifying,
    Streaming,
    Living,
    Reading,
    Calling,
    Spawning,
    Announcing,
    Controlling,
    Ledgering,
    Explaining,
    Exporting,
    Searching,
    Importing,
    Aborting,
    Operating,
    Compacting,
    Hooking,
    Scheduling,
    Metering,
    Protocol,
):
    """The engine as a face sees it: every protocol above. A backend without a capability still
    answers its methods (with a refusal or nothing), but a face asks `capabilities` first."""


EVERY_BACKEND: tuple[type, ...] = (Placed, Identifying, Streaming, Living)
"""The protocols every backend answers, whatever its capabilities."""

PROTOCOL_OF: dict[Capability, type] = {
    Capability.READ: Reading,
    Capability.TOOLS: Calling,
    Capability.SPAWN_TREE: Spawning,
    Capability.ANNOUNCES: Announcing,
    Capability.CONTROL: Controlling,
    Capability.LEDGER: Ledgering,
    Capability.EXPLAIN: Explaining,
    Capability.EXPORT: Exporting,
    Capability.SEARCH: Searching,
    Capability.IMPORT: Importing,
    Capability.ABORT: Aborting,
    Capability.SESSION_OPS: Operating,
    Capability.COMPACT: Compacting,
    Capability.HOOKS: Hooking,
    Capability.CRON: Scheduling,
    Capability.USAGE: Metering,
}
"""The protocol each capability answers."""
