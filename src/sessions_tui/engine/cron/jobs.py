"""A cron job as OpenClaw stores one (`CronJob`: its field names, camelCase in JSON) and where its runs go.

What applies on this engine: the schedule (schedules.py), `sessionTarget` (`isolated`: the job's own
`cron:<jobId>` session; `main`: the agent's main session; `session:<key>` or a key: that named
session), the `agentTurn` payload (`message`, `model`, `thinking`, `timeoutSeconds`), `delivery`
(`none`; `announce` to a channel through the outbox; `webhook`: the finished run POSTed to `to`),
`enabled`, `deleteAfterRun` (one-shots are deleted after an ok run unless it is false), and the
mutable `state` OpenClaw keeps beside the spec (`nextRunAtMs`, `runningAtMs`, `lastRunAtMs`,
`lastRunStatus`, `lastError`, `lastDurationMs`, `consecutiveErrors`, `lastDeliveryStatus`, …).
OpenClaw's other payload kinds (systemEvent, command, script) and triggers are not taken.

`source` is this engine's own: `config` for a job the config file declares (`cron.jobs`), `cli` for
one `sessions-tui cron add` made.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from sessions_tui.engine.cron.schedules import AtSchedule, Schedule
from sessions_tui.engine.lazy_model import LazyModel
from sessions_tui.engine.sessions.keys import DEFAULT_AGENT_ID, MainAlias, normalize_agent_id

RunStatus = Literal["ok", "error", "skipped"]
DeliveryStatus = Literal["delivered", "not-delivered", "unknown", "not-requested"]
JOB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


class _Camel(LazyModel):
    model_config = ConfigDict(
        defer_build=True, alias_generator=to_camel, populate_by_name=True, extra="ignore", validate_assignment=False
    )


class AgentTurn(_Camel):
    """`payload` of kind `agentTurn`: the message a run sends, with its overrides."""

    kind: Literal["agentTurn"] = "agentTurn"
    message: str = Field(min_length=1)
    model: str | None = None
    thinking: str | None = None
    timeout_seconds: int | None = Field(default=None, ge=0)


class Delivery(_Camel):
    """`delivery`: what becomes of the run's reply."""

    mode: Literal["none", "announce", "webhook"] = "none"
    channel: str | None = None
    to: str | None = None
    account_id: str | None = None
    thread_id: str | None = None
    best_effort: bool | None = None

    @field_validator("thread_id", mode="before")
    @classmethod
    def _thread_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @model_validator(mode="after")
    def _webhook_url(self) -> Delivery:
        if self.mode == "webhook" and not re.match(r"^https?://[^/\s]+", self.to or ""):
            raise ValueError("a webhook delivery's `to` is the http(s) URL the finished run is POSTed to")
        return self


class JobState(_Camel):
    """`state`: what the scheduler keeps of a job between runs (OpenClaw's names)."""

    next_run_at_ms: int | None = None
    running_at_ms: int | None = None
    last_run_at_ms: int | None = None
    last_run_status: RunStatus | None = None
    last_error: str | None = None
    last_duration_ms: int | None = None
    consecutive_errors: int = 0
    last_delivery_status: DeliveryStatus | None = None
    last_delivery_error: str | None = None
    startup_catchup_at_ms: int | None = None


class CronJob(_Camel):
    """One job: OpenClaw's `CronJob` as far as it applies here (the module's text)."""

    id: str
    name: str = Field(min_length=1)
    description: str | None = None
    agent_id: str | None = None
    enabled: bool = True
    delete_after_run: bool | None = None
    created_at_ms: int = 0
    updated_at_ms: int = 0
    schedule: Schedule
    session_target: str = "isolated"
    wake_mode: Literal["now", "next-heartbeat"] = "now"
    payload: AgentTurn
    delivery: Delivery | None = None
    state: JobState = Field(default_factory=JobState)
    source: Literal["config", "cli"] = "cli"

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not JOB_ID.match(value):
            raise ValueError(
                "a job id is letters, digits, '.', '_' or '-' (at most 128), starting with a letter or digit"
            )
        return value

    @field_validator("session_target")
    @classmethod
    def _target(cls, value: str) -> str:
        text = value.strip()
        if text == "current":
            raise ValueError("sessionTarget 'current' needs the conversation that created the job: use a session key")
        if not text or text == "session:":
            raise ValueError("sessionTarget: isolated, main, or a session (session:<key>)")
        return text

    @property
    def agent(self) -> str:
        return normalize_agent_id(self.agent_id or DEFAULT_AGENT_ID)

    @property
    def one_shot(self) -> bool:
        return isinstance(self.schedule, AtSchedule)

    @property
    def deletes_after_ok_run(self) -> bool:
        """One-shots are deleted after a run that ended ok, unless `deleteAfterRun` is false."""
        return self.one_shot and self.delete_after_run is not False

    def spec(self) -> dict[str, Any]:
        """The job as OpenClaw's JSON, without `state` and `source` (what the store keeps as its spec)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True, exclude={"state", "source"})

    def public(self) -> dict[str, Any]:
        """The job as OpenClaw's `cron.get` answers it: the spec with its `state`, and its `source`."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class CronRun(_Camel):
    """One run of a job as its history tells it (`cron runs`): when, why (`trigger`: due, catch-up,
    manual), how long, its outcome (None while it runs), the tokens it used, where it ran and what
    became of its delivery."""

    id: str
    job_id: str
    trigger: str
    scheduled_at_ms: int | None = None
    started_at_ms: int
    ended_at_ms: int | None = None
    status: str | None = None
    error: str | None = None
    session_key: str | None = None
    run_id: str | None = None
    tokens: int | None = None
    delivery_status: str | None = None
    delivery_error: str | None = None

    @property
    def duration_ms(self) -> int | None:
        return None if self.ended_at_ms is None else max(0, self.ended_at_ms - self.started_at_ms)


def isolated_key(job: CronJob) -> str:
    """The job's own session: `agent:<agentId>:cron:<jobId>`."""
    return f"agent:{job.agent}:cron:{job.id}"


def session_key_of(job: CronJob, alias: MainAlias) -> str:
    """The session a run of the job goes into: its own (`isolated`), the agent's main one, or the named one."""
    target = job.session_target
    if target == "isolated":
        return isolated_key(job)
    if target == "main":
        return alias.main_session_key(job.agent)
    return target.removeprefix("session:").strip()


def cron_job_id_of(session_key: str) -> str | None:
    """The job whose own session `session_key` is (`agent:<id>:cron:<jobId>`, or `cron:<jobId>`)."""
    rest = session_key
    if rest.startswith("agent:"):
        parts = rest.split(":", 2)
        rest = parts[2] if len(parts) == 3 else ""
    if not rest.startswith("cron:"):
        return None
    job_id = rest[len("cron:") :].split(":", 1)[0]
    return job_id or None
