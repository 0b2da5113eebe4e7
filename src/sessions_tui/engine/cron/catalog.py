"""The jobs as the operator manages them: listed, added, edited, removed, enabled, disabled, and their runs read.

A job is its store row made whole (`job_of`): the spec, with the row's `enabled` and next run, and
its state. Jobs the config declares are listed with the others and may be enabled, disabled and run,
but edited or removed only in the file (`CronRefused`). Every change that moves a job's next run
wakes this process's scheduler (`on_change`); another process's sees it through the store.

Bad input raises `CronInvalid` (a face says it as bad input, exit 2); what the state forbids raises
`CronRefused` (a refusal, exit 1).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from sessions_tui.engine.cron.declared import validation_text
from sessions_tui.engine.cron.jobs import CronJob, CronRun
from sessions_tui.engine.cron.schedules import ScheduleError, check, next_run_ms
from sessions_tui.engine.store.connection import StoreError
from sessions_tui.engine.store.store import Store
from sessions_tui.engine.store.tables.cron import CronJobRow, CronRunRow


class CronInvalid(ValueError):
    """What was asked is not well formed, or names no job: bad input."""


class CronRefused(Exception):
    """Well formed, but the state forbids it (a job the config declares, an id taken, one running)."""


def job_of(row: CronJobRow) -> CronJob:
    """The job a row holds: its spec, `enabled` and next run from the row's columns, its state."""
    state = {**row.state, "nextRunAtMs": row.next_run_at}
    data = {**row.spec, "id": row.id, "enabled": row.enabled, "state": state, "source": row.source}
    data.setdefault("createdAtMs", row.created_at)
    data.setdefault("updatedAtMs", row.updated_at)
    return CronJob.model_validate(data)


def run_of(row: CronRunRow) -> CronRun:
    return CronRun(
        id=row.id,
        job_id=row.job_id,
        trigger=row.trigger,
        scheduled_at_ms=row.scheduled_at,
        started_at_ms=row.started_at,
        ended_at_ms=row.ended_at,
        status=row.status,
        error=row.error,
        session_key=row.session_key,
        run_id=row.run_id,
        tokens=row.tokens,
        delivery_status=row.delivery_status,
        delivery_error=row.delivery_error,
    )


def first_run(job: CronJob, now: int) -> int | None:
    """When a new or changed job is first due (None: disabled, or never)."""
    if not job.enabled:
        return None
    state = job.state
    return next_run_ms(
        job.schedule,
        job_id=job.id,
        now_ms=now,
        created_at_ms=job.created_at_ms or now,
        last_run_at_ms=state.last_run_at_ms,
        last_ok=state.last_run_status == "ok",
    )


def checked(data: dict[str, Any]) -> CronJob:
    """A job from its JSON, or `CronInvalid` saying what is wrong."""
    try:
        job = CronJob.model_validate(data)
        check(job.schedule)
    except ValidationError as exc:
        raise CronInvalid(validation_text(exc)) from None
    except ScheduleError as exc:
        raise CronInvalid(str(exc)) from None
    return job


def new_job_id() -> str:
    return uuid.uuid4().hex[:12]


class Catalog:
    """The jobs of one store (`store.cron`), as the operator changes them."""

    def __init__(
        self,
        store: Store,
        now: Callable[[], int],
        on_change: Callable[[], None] = lambda: None,
        declared: Callable[[], list[dict[str, Any]]] = list,
        warn: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.store = store
        self.now = now
        self.on_change = on_change
        self.declared = declared
        """The config's `cron.jobs`: taken up on first use, so a command lists them before any scheduler ran."""
        self.warn = warn
        """Where a declaration that does not check out is said (the engine's config warnings)."""
        self._taken_up = False
        self.problems: list[str] = []

    def _take_up(self) -> None:
        if self._taken_up:
            return
        self._taken_up = True
        from sessions_tui.engine.cron.declared import declared_jobs, sync_declared

        found = declared_jobs(self.declared())
        self.problems = found.problems
        for problem in found.problems:
            self.warn(f"{problem}; that job is left out")
        sync_declared(self.store, found.jobs, self.now())

    def jobs(self) -> list[CronJob]:
        self._take_up()
        out = []
        for row in self.store.cron.jobs():
            try:
                out.append(job_of(row))
            except ValidationError:
                continue  # a row a newer version wrote: not this one's to show
        return out

    def get(self, job_id: str) -> CronJob:
        self._take_up()
        row = self.store.cron.get_job(job_id.strip())
        if row is None:
            raise CronInvalid(f"No cron job found: {job_id}")
        return job_of(row)

    def runs(self, job_id: str, limit: int = 50) -> list[CronRun]:
        """A job's runs, newest first (those of a job removed since too)."""
        self._take_up()
        rows = self.store.cron.runs(job_id.strip(), limit)
        if not rows and self.store.cron.get_job(job_id.strip()) is None:
            raise CronInvalid(f"No cron job found: {job_id}")
        return [run_of(row) for row in rows]

    def add(self, data: dict[str, Any]) -> CronJob:
        """A new job from OpenClaw's JSON (`id` made when not given); `CronRefused` when the id is taken."""
        self._take_up()
        now = self.now()
        data = {**data, "id": data.get("id") or new_job_id(), "createdAtMs": now, "updatedAtMs": now, "source": "cli"}
        data.pop("state", None)
        job = checked(data)
        due = first_run(job, now)
        try:
            self.store.cron.insert_job(job.id, job.spec(), job.enabled, due, now)
        except StoreError as exc:
            raise CronRefused(str(exc)) from None
        self.on_change()
        return self.get(job.id)

    def _own(self, job_id: str) -> CronJob:
        job = self.get(job_id)
        if job.source == "config":
            raise CronRefused(f"cron job {job.id} is declared in the config file: change it there")
        return job

    def edit(self, job_id: str, patch: dict[str, Any]) -> CronJob:
        """The job with `patch` applied (its fields in OpenClaw's names; `payload` and `delivery`
        merged, a None value clears a field); a changed schedule is a new scheduling decision."""
        job = self._own(job_id)
        data = job.spec()
        for name in ("payload", "delivery"):
            if isinstance(patch.get(name), dict):
                merged = {**data.get(name, {}), **patch[name]}
                patch = {**patch, name: {k: v for k, v in merged.items() if v is not None}}
        data.update({k: v for k, v in patch.items() if k not in ("id", "state", "source", "createdAtMs")})
        data = {k: v for k, v in data.items() if v is not None}
        now = self.now()
        data.update(id=job.id, updatedAtMs=now, source="cli", state=job.state.model_dump(by_alias=True))
        changed = checked(data)
        scheduled = changed.schedule != job.schedule or changed.enabled != job.enabled
        self.store.cron.update_job(
            job.id,
            now=now,
            spec=changed.spec(),
            enabled=changed.enabled,
            next_run_at=first_run(changed, now) if scheduled else None,
            set_next=scheduled,
        )
        self.on_change()
        return self.get(job.id)

    def remove(self, job_id: str) -> CronJob:
        job = self._own(job_id)
        self.store.cron.delete_job(job.id)
        self.on_change()
        return job

    def set_enabled(self, job_id: str, enabled: bool) -> CronJob:
        """Enabled (its next run from now) or disabled (no next run); a job the config declares too."""
        job = self.get(job_id)
        now = self.now()
        turned = job.model_copy(update={"enabled": enabled})
        due = first_run(turned, now) if enabled else None
        self.store.cron.update_job(job.id, now=now, enabled=enabled, next_run_at=due, set_next=True)
        self.on_change()
        return self.get(job.id)

    def job_of_session(self, session_key: str) -> CronJob | None:
        """The job whose runs go into `session_key`: its own `cron:<jobId>` session, else the last one run there."""
        from sessions_tui.engine.cron.jobs import cron_job_id_of

        job_id = cron_job_id_of(session_key) or self.store.cron.job_of_session(session_key)
        row = self.store.cron.get_job(job_id) if job_id else None
        return job_of(row) if row is not None else None
