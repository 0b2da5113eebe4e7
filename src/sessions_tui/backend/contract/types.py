"""The seam's own types: who a face calls as, what a backend can do, and how it says it cannot now.

These are the backend package's, not the engine's: a face builds a `Requester`, asks a backend's
`capabilities`, and catches `BackendUnavailable`. The engine's value types the seam carries are
listed apart, in vocabulary.py.
"""

import enum
import os
from collections.abc import Callable
from typing import Any, Self

from pydantic import ConfigDict, Field

from sessions_tui.engine.events import EngineEvent
from sessions_tui.engine.lazy_model import LazyModel

EventCallback = Callable[[EngineEvent], None]


class Capability(enum.Enum):
    """What a backend can do beyond what every backend does (its place, keys, events, lifecycle).

    Each names one of the protocols `Backend` is composed of (protocols.py `PROTOCOL_OF`); a face
    asks `backend.capabilities` and shows only what is possible there, instead of catching a refusal.
    """

    READ = "read"  # the session table: browse, counts, rows, the operator's session pickers
    TOOLS = "tools"  # call the session tools as a requester (which ones: `tools_for`)
    SPAWN_TREE = "spawn tree"  # a session's sub-agents, live
    ANNOUNCES = "announces"  # sub-agent announces in a transcript, run labels
    CONTROL = "control"  # the operator's `/send on|off|inherit` in a session
    LEDGER = "ledger"  # the send ledger: every send and what became of it
    EXPLAIN = "explain"  # which rule lets or refuses a requester list, read, send, spawn
    EXPORT = "export"  # a session's transcript and entry, for a file
    SEARCH = "search"  # the messages matching a query
    IMPORT = "import"  # import or follow an OpenClaw state directory on this machine
    ABORT = "abort"  # stop a session's running turn
    SESSION_OPS = "session ops"  # create, reset, rename, re-model, archive, delete a session
    COMPACT = "compact"  # compact a session's transcript (a summary in place of its older lines)
    HOOKS = "hooks"  # start agent runs handed in from outside (inbound hooks)
    CRON = "cron"  # scheduled jobs: add, edit, remove, enable, run now, their runs
    USAGE = "usage"  # tokens and estimated cost of model turns, by agent, model, session and time

    @property
    def what(self) -> str:
        """What it is, for a line saying a backend has it not."""
        return _WHAT[self]


_WHAT = {
    Capability.READ: "the session table",
    Capability.TOOLS: "the session tools",
    Capability.SPAWN_TREE: "the spawn tree",
    Capability.ANNOUNCES: "sub-agent announces",
    Capability.CONTROL: "the operator's /send",
    Capability.LEDGER: "the send ledger",
    Capability.EXPLAIN: "explaining refusals",
    Capability.EXPORT: "export",
    Capability.SEARCH: "search",
    Capability.IMPORT: "importing or following an OpenClaw",
    Capability.ABORT: "stopping a run",
    Capability.SESSION_OPS: "creating, resetting, renaming, archiving or deleting sessions",
    Capability.COMPACT: "compacting a session",
    Capability.HOOKS: "inbound hooks (POST /hooks/agent)",
    Capability.CRON: "cron jobs",
    Capability.USAGE: "usage and cost",
}

EVERY_CAPABILITY = frozenset(Capability)


def not_on(location: str, capability: Capability) -> str:
    """The one line a face says for something its backend cannot do."""
    return f"{location}: {capability.what} is not on this backend"


class Requester(LazyModel):
    """Who a face calls the tools as: a session key (None: the main alias) and the sandbox flag."""

    model_config = ConfigDict(frozen=True)

    key: str | None = None
    sandboxed: bool = False


class RequesterView(LazyModel):
    """What a requester's tools may see, for the acting-as picker's one-line description."""

    model_config = ConfigDict(frozen=True)

    agent_id: str
    visibility: str  # self | tree | agent | all
    restrict_to_spawned: bool
    a2a_enabled: bool
    a2a_allow_any: bool  # tools.agentToAgent.allow is empty: every agent


class BackendUnavailable(Exception):
    """The backend cannot do what was asked now: a server unreachable, a token refused. The
    message says which, for a face to show as it is."""


class ServerUnreachable(BackendUnavailable):
    """Nothing answers at the server's address (a closed port, a name that resolves to nothing):
    `<url>: the server is not reachable (<why, briefly>)`."""

    @classmethod
    def at(cls, url: str, exc: BaseException) -> Self:
        return cls(f"{url}: the server is not reachable ({_innermost_os_error(exc)})")


class TokenRefused(BackendUnavailable):
    """The server asks for a token (401): the one given is not its own, or none was given
    (`given`), which a face may follow with where the token is to be found."""

    def __init__(self, url: str, *, given: bool) -> None:
        said = "the server refused the token" if given else "no token was given and the server asks for one"
        super().__init__(f"{url}: {said} (401)")
        self.given = given


def _innermost_os_error(exc: BaseException) -> str:
    """What the operating system said last in `exc`'s chain (`Connection refused`, `Name or
    service not known`), else `exc`'s own words."""
    said = str(exc) or type(exc).__name__
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, OSError) and isinstance(cause.errno, int) and cause.errno > 0:
            said = os.strerror(cause.errno)  # not asyncio's "Connect call failed (…)"
        elif isinstance(cause, OSError) and cause.strerror:  # a name's lookup: a negative errno
            said = cause.strerror
        cause = cause.__cause__ or cause.__context__
    return said


class KeptSession(LazyModel):
    """An adopted session changed both here and in OpenClaw since it was adopted: kept as the engine has
    it; `openclaw_lines`, the transcript lines OpenClaw gained that were not taken."""

    key: str
    openclaw_lines: int


class Adopted(LazyModel):
    """What `import-openclaw --adopt` took over: the sessions that became the engine's (or that
    adopting again brought something to), the transcript lines written, the sessions kept as they are."""

    sessions: int
    lines: int
    kept: list[KeptSession] = Field(default_factory=list)


class ImportSummary(LazyModel):
    """What importing an OpenClaw state directory read and found wrong; `adopted` with `--adopt`."""

    sources: list[str]
    problems: list[str]
    summary: str
    adopted: Adopted | None = None


class AbortOutcome(LazyModel):
    """What stopping a session's running turn did: `aborted` with the run it stopped, or not
    (`status` says why: `no-active-run`, as OpenClaw's `sessions.abort` says it, or
    `still-running`: `run_id` was asked to stop and had not within the wait); `cleared_queued`:
    how many turns waiting behind it were dropped."""

    model_config = ConfigDict(frozen=True)

    session_key: str
    aborted: bool
    run_id: str | None = None
    status: str = "aborted"
    cleared_queued: int = 0


class NewSession(LazyModel):
    """A session to create: its key (any kind the key model allows; a bare one is `agent_id`'s),
    label, model, thinking level, and the first message the operator sends into it."""

    model_config = ConfigDict(frozen=True)

    key: str
    agent_id: str | None = None
    label: str | None = None
    model: str | None = None
    thinking: str | None = None
    message: str | None = None


class SessionOpOutcome(LazyModel):
    """What an operation on a session did (`op`: create, reset, rename, model, archive, unarchive,
    delete, compact): the session's key and sessionId after it, `previous_session_id` the one a
    reset replaced; `send`: the first message's `sessions_send` result, when one was sent;
    `compacted` (None: not a compaction) and `reason`, what a compaction did or why it did not."""

    model_config = ConfigDict(frozen=True)

    op: str
    session_key: str
    session_id: str
    previous_session_id: str | None = None
    label: str | None = None
    model: str | None = None
    thinking: str | None = None
    archived: bool = False
    send: dict[str, Any] | None = None
    compacted: bool | None = None
    reason: str | None = None


class OperationRefused(Exception):
    """An operation on a session the state forbids (the key exists, the label is taken, an agent's
    main session, a session an OpenClaw owns): the one line a face says, a refusal (not bad input)."""
