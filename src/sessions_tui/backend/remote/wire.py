"""The operator API's bodies: what a remote dashboard asks `sessions-tui serve` beyond the tools.

`POST /sessions-tui/v1/<op>` with the op's request model as JSON, answered with its answer model.
Declared once here; the server (server/operator.py) validates requests and the remote backend
(backend/remote/backend.py) validates answers with the same models. Every text in an answer that may hold
agent output is redacted by the server before it leaves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from sessions_tui.backend.contract.types import NewSession, Requester, RequesterView
from sessions_tui.engine.export.model import SessionExport as SessionExport  # named by the remote backend
from sessions_tui.engine.lazy_model import LazyModel
from sessions_tui.engine.sessions.live_status import Activity
from sessions_tui.engine.usage import UsageQuery, UsageReport

API_PREFIX = "/sessions-tui/v1"

SANDBOXED_HEADER = "x-sessions-tui-sandboxed"
"""On `/tools/invoke`: treat the requester as sandboxed. It can only narrow what the server's config
says (a requester its config sandboxes stays sandboxed without it)."""

PUBLIC_CONFIG_SECTIONS = ("session", "tools", "agents", "logging", "ui")
"""The config a remote face may see: key spellings, visibility, sandboxing, keys and theme. Never
providers, channels or the gateway section (they hold secrets and URLs), nor `logging.redactPatterns`
(an entry may be a literal secret listed to be masked: the server redacts what it sends)."""


def public_config(dumped: dict[str, Any], redact: Callable[[str], str]) -> dict[str, Any]:
    """The public sections of a config dumped by alias, with every text in them redacted (an agent's
    name, a label may hold a pasted token) and the custom redaction patterns left out."""
    public = {name: dumped[name] for name in PUBLIC_CONFIG_SECTIONS if name in dumped}
    logging = public.get("logging")
    if isinstance(logging, dict):
        public["logging"] = {k: v for k, v in logging.items() if k != "redactPatterns"}
    return {name: redacted_strings(section, redact) for name, section in public.items()}


def redacted_strings(value: Any, redact: Callable[[str], str]) -> Any:
    """`value` with every string in it redacted, at any depth (keys of mappings left as they are)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: redacted_strings(v, redact) for k, v in value.items()}
    if isinstance(value, list):
        return [redacted_strings(v, redact) for v in value]
    return value


SqlValue = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)] | Annotated[float, Field(allow_inf_nan=False)] | str | None
"""A value SQLite holds: what a page's sort column gives its cursor."""

Cursor = tuple[SqlValue, str]
"""Where a page starts or ends: its row's sort value and key (tools.reading.browse)."""

MAX_OFFSET = 2**53 - 1


class WireModel(LazyModel):
    model_config = ConfigDict(extra="forbid")


class Empty(WireModel):
    pass


class Info(WireModel):
    """What a remote face needs once: the server's public config and its warnings."""

    name: str = "sessions-tui"
    version: str
    now: int
    """The server's clock (epoch ms) when it answered: a remote face's ages and countdowns use it."""
    config: dict[str, Any]
    config_warnings: list[str] = Field(default_factory=list)
    ops: list[str] = Field(default_factory=list)
    """The operator API's ops this server answers: a face offers what needs one only when it is there
    (an older server has no `usage`)."""


class Query(WireModel):
    """`tools.reading.browse.BrowseQuery` on the wire."""

    kinds: list[str] | None = None
    active_minutes: int | None = None
    search: str | None = None
    order_by: str = "updated"
    descending: bool = True
    include_archived: bool = False
    keys: list[str] | None = None
    except_keys: list[str] | None = None


class BrowseRequest(WireModel):
    requester: Requester
    query: Query
    offset: int = Field(default=0, ge=0, le=MAX_OFFSET)
    limit: int = Field(default=500, ge=1, le=5000)
    after: Cursor | None = None
    before: Cursor | None = None
    count: bool = True


class BrowseAnswer(WireModel):
    rows: list[dict[str, Any]]
    total: int
    offset: int
    first: Cursor | None = None
    last: Cursor | None = None


class CountRequest(WireModel):
    requester: Requester
    query: Query


class Count(WireModel):
    count: int


class RowsRequest(WireModel):
    requester: Requester
    keys: list[str] = Field(max_length=5000)


class Rows(WireModel):
    rows: dict[str, dict[str, Any]]


class ActivityRequest(WireModel):
    """`Backend.activity`: every session that may not be idle (`keys` None), or these."""

    requester: Requester
    keys: list[str] | None = Field(default=None, max_length=5000)


class ActivityAnswer(WireModel):
    """Each session's `Activity` (the engine's dataclass as it is: one declaration, on the wire too)."""

    facts: dict[str, Activity]


class Flag(WireModel):
    value: bool


class Number(WireModel):
    value: int


class SessionsRequest(WireModel):
    search: str | None = None
    limit: int = Field(default=200, ge=1, le=5000)


class SessionsAnswer(WireModel):
    sessions: list[tuple[str, str]]


class KeyRequest(WireModel):
    key: str


class RunRequest(WireModel):
    run_id: str


class Text(WireModel):
    value: str | None


class CommandRequest(WireModel):
    key: str
    text: str


class OperationRequest(WireModel):
    """An operation on a session: its key, and the session a face acts as (None: the operator)."""

    key: str
    requester: Requester | None = None


class AbortRequest(OperationRequest):
    clear_queued: bool = False


class NewSessionRequest(WireModel):
    session: NewSession
    requester: Requester | None = None


class LabelRequest(OperationRequest):
    label: str | None = None


class ModelRequest(OperationRequest):
    model: str | None = None
    thinking: str | None = None


class ArchiveRequest(OperationRequest):
    archived: bool = True


class SessionOpAnswer(WireModel):
    """An operation on a session: `contract.types.SessionOpOutcome` as an object (its key redacted
    by the server), or `refused`: the line of what the state forbids (`OperationRefused`)."""

    outcome: dict[str, Any] | None = None
    refused: str | None = None


class AbortAnswer(WireModel):
    """`contract.types.AbortOutcome` on the wire, its key redacted by the server; or `refused`: the
    line of why the requester may not stop it (`OperationRefused`)."""

    session_key: str = ""
    aborted: bool = False
    run_id: str | None = None
    status: str = ""
    cleared_queued: int = 0
    refused: str | None = None


class ChildViews(WireModel):
    children: list[dict[str, Any]]


class AnnouncementViews(WireModel):
    announcements: list[dict[str, Any]]


class RequesterRequest(WireModel):
    requester: Requester


class Tools(WireModel):
    tools: list[str]


class DescribeAnswer(WireModel):
    view: RequesterView


class SendsRequest(WireModel):
    session: str | None = None
    state: str | None = None
    limit: int = Field(default=200, ge=1, le=5000)


class SendsAnswer(WireModel):
    sends: list[dict[str, Any]]


class ExplainRequest(WireModel):
    requester: Requester
    target: str
    agent: str | None = None


class ExplainAnswer(WireModel):
    explanation: dict[str, Any] | None = None
    error: str | None = None  # a target or agent that is not one (the tool's input error)


class SearchRequest(WireModel):
    requester: Requester
    query: str
    session: str | None = None
    limit: int = Field(default=100, ge=1, le=500)


class SearchAnswer(WireModel):
    outcome: dict[str, Any] | None = None  # tools/sessions_search.SearchOutcome, redacted by the server
    error: str | None = None  # the query refused (the tool's input error)


class ExportAnswer(WireModel):
    export: SessionExport | None = None  # None: no such session; always redacted by the server


CronAction = Literal["jobs", "job", "add", "edit", "remove", "enable", "disable", "run", "runs", "job_of"]


class CronRequest(WireModel):
    """A cron call (`Scheduling`): its `action`, the job's id, the job or the patch (OpenClaw's job
    JSON), how many runs, or the session whose job is asked."""

    action: CronAction
    job_id: str | None = None
    job: dict[str, Any] | None = None
    limit: int = Field(default=50, ge=1, le=2000)
    session_key: str | None = None


class CronAnswer(WireModel):
    """A cron call's answer: jobs, a job, runs or a run as OpenClaw's JSON (every text redacted by the
    server), or `refused`: the line of what the state forbids (`OperationRefused`)."""

    jobs: list[dict[str, Any]] | None = None
    job: dict[str, Any] | None = None
    runs: list[dict[str, Any]] | None = None
    run: dict[str, Any] | None = None
    refused: str | None = None


class UsageRequest(WireModel):
    """A usage call (`Metering`): the engine's query as it is, every field of it (its session keys as
    a face shows them: the server reads each as the session it names)."""

    query: UsageQuery


class UsageAnswer(WireModel):
    """The engine's usage report as it is, every text in it (a session's key, an agent's name) redacted
    by the server."""

    report: UsageReport
