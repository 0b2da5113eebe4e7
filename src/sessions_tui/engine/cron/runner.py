"""One run of a job, once claimed: into its session as a normal run, its reply delivered, its end recorded.

The run goes into the job's session (`jobs.session_key_of`): its own `cron:<jobId>` session, made on
the first run; the agent's main session; or the named one (made when it does not exist). It is an
ordinary run of the engine (`Engine.agent`: the send policy admits it, it is visible live through
the run events and in the session's transcript, its sends are in the send ledger), on the `cron`
lane, with the job's model, thinking level and timeout. Then, as OpenClaw records a run: its
outcome (`ok` or `error`), how long it took, the tokens it used (the session's count before and
after), the delivery (announce: through the outbox to the job's channel and target, else the
session's own route; webhook: delivery.py), and the job's state and next run. After an error a
recurring job backs off as OpenClaw's does (30 s, 1 min, 5 min, 15 min, 60 min); a one-shot that
failed is kept, disabled, for inspection; one that ran ok is deleted (unless `deleteAfterRun` is false).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import Any, Protocol

from sessions_tui.engine.cron.delivery import DeliveryHost, deliver
from sessions_tui.engine.cron.jobs import CronJob, session_key_of
from sessions_tui.engine.cron.schedules import ScheduleError, next_run_ms
from sessions_tui.engine.events import CronRunStarted, SessionChanged
from sessions_tui.engine.redaction.assistant_text import extract_assistant_text
from sessions_tui.engine.redaction.sanitize import strip_tool_messages
from sessions_tui.engine.runs.runs import TERMINAL, RunRequest, Runs
from sessions_tui.engine.session_operations import (
    OperationsHost,
    SessionOpInvalid,
    SessionOpRefused,
    create_session,
    ensure_main_session,
    is_main_session_key,
)
from sessions_tui.engine.sessions.refusals import SendBlocked
from sessions_tui.engine.store.tables.cron import CronRunRow

log = logging.getLogger(__name__)

ERROR_BACKOFF_MS = (30_000, 60_000, 300_000, 900_000, 3_600_000)
"""OpenClaw's back-off after consecutive errors of a recurring job."""
WAIT_STEP_MS = 3_600_000


class CronHost(DeliveryHost, OperationsHost, Protocol):
    """What a run of a job needs of the engine: an announce's needs, the operations' (sessions made,
    key spellings), the runs and the way into a session."""

    @property
    def runs(self) -> Runs[Any]: ...

    def agent(self, request: RunRequest, *, via: str, requester: str | None = None) -> str: ...


def _tokens(engine: CronHost, key: str) -> int:
    session = engine.store.sessions.get(key)
    value = session.entry.get("totalTokens") if session else None
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def final_reply(engine: CronHost, key: str) -> str | None:
    """The newest assistant text in the session: what the run answered."""
    messages = strip_tool_messages(engine.store.transcripts.history(key, limit=50).messages)
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            text = extract_assistant_text(message)
            if text:
                return text
    return None


def prepare_session(engine: CronHost, job: CronJob) -> str:
    """The key the job's run goes into, its session made when it does not exist yet."""
    key = engine.canonical(session_key_of(job, engine.alias), job.agent)
    if engine.store.sessions.get(key) is not None:
        return key
    if is_main_session_key(engine, key):
        ensure_main_session(engine, key)
        return key
    try:
        create_session(engine, key, agent_id=job.agent, requester="cron")
    except SessionOpRefused:
        pass  # another process made it first
    return key


async def _wait(engine: CronHost, run_id: str) -> tuple[str, str | None]:
    """The run's end: (status, error)."""
    while True:
        result = await engine.runs.wait(run_id, WAIT_STEP_MS)
        if result.status in TERMINAL or result.status == "error":
            return str(result.status), result.error


def next_after_run(job: CronJob, *, now: int, started: int, ok: bool, errors: int) -> int | None:
    """When a recurring job is due after a run that ended at `now` (OpenClaw's back-off after errors)."""
    try:
        natural = next_run_ms(
            job.schedule, job_id=job.id, now_ms=now, created_at_ms=job.created_at_ms, last_run_at_ms=started, last_ok=ok
        )
    except ScheduleError:
        return None
    if ok or errors <= 0 or natural is None:
        return natural
    backoff = now + ERROR_BACKOFF_MS[min(errors, len(ERROR_BACKOFF_MS)) - 1]
    return max(natural, backoff)


async def execute(
    engine: CronHost, job: CronJob, run: CronRunRow, *, owner: str, webhook_token: str | None
) -> CronRunRow:
    """Carry out the claimed run `run` of `job` and record its end; returns the finished row."""
    started = run.started_at
    key: str | None = None
    run_id: str | None = None
    tokens_before = 0
    status, error = "error", None
    try:
        key = prepare_session(engine, job)
        tokens_before = _tokens(engine, key)
        request = RunRequest(
            session_key=key,
            message=job.payload.message,
            model=job.payload.model,
            thinking=job.payload.thinking,
            timeout_seconds=job.payload.timeout_seconds,
            lane="cron",
            label=job.name,
            provenance={"kind": "cron", "jobId": job.id, "jobName": job.name, "cronRunId": run.id},
        )
        run_id = engine.agent(request, via="cron")
        engine.store.cron.run_started(run.id, key, run_id)
        engine.events.publish(
            CronRunStarted(
                ts=engine.now(), session_key=key, job_id=job.id, job_name=job.name, run_id=run_id, trigger=run.trigger
            )
        )
        end, error = await _wait(engine, run_id)
        status = "ok" if end == "ok" else "error"
        if end != "ok" and not error:
            error = end
    except (SendBlocked, SessionOpInvalid, SessionOpRefused) as exc:
        error = str(exc) or type(exc).__name__
    except asyncio.CancelledError:
        raise  # the process stops: its claim is given back at the next start (release_dead)
    except Exception as exc:  # noqa: BLE001 - a failed run is an outcome, recorded
        log.exception("cron: job %s failed", job.id)
        error = f"{type(exc).__name__}: {exc}"
    ended = engine.now()
    tokens = _tokens(engine, key) - tokens_before if key else None
    reply = final_reply(engine, key) if key and status == "ok" else None
    delivery_status, delivery_error = await deliver(
        engine,
        job,
        session_key=key,
        status=status,
        error=error,
        text=reply,
        run=run,
        ended=ended,
        run_id=run_id,
        webhook_token=webhook_token,
    )
    finished = replace(
        run,
        ended_at=ended,
        status=status,
        error=error,
        session_key=key,
        run_id=run_id,
        tokens=tokens,
        delivery_status=delivery_status,
        delivery_error=delivery_error,
    )
    ok = status == "ok"
    errors = 0 if ok else job.state.consecutive_errors + 1
    state = {
        "runningAtMs": None,
        "lastRunAtMs": started,
        "lastRunStatus": status,
        "lastError": error,
        "lastDurationMs": max(0, ended - started),
        "consecutiveErrors": errors,
        "lastDeliveryStatus": delivery_status,
        "lastDeliveryError": delivery_error,
        "startupCatchupAtMs": None,
    }
    manual = run.trigger == "manual"
    enabled: bool | None = None
    delete = False
    if job.one_shot and not manual:
        delete = ok and job.deletes_after_ok_run
        enabled = False if not ok or not job.deletes_after_ok_run else None
    next_run = None if job.one_shot else next_after_run(job, now=ended, started=started, ok=ok, errors=errors)
    engine.store.cron.finish(
        finished,
        owner=owner,
        state=state,
        next_run_at=next_run,
        keep_next=manual,
        enabled=enabled,
        delete_job=delete,
    )
    if key is not None:  # its session shows the job's new state (the dashboard's job line)
        engine.events.publish(SessionChanged(ts=engine.now(), session_key=key))
    return finished
