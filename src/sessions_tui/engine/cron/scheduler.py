"""The scheduler: in a process that hosts the engine long-running (`serve`, the dashboard), due jobs run.

It sleeps until the soonest job is due (`store.cron.soonest`: one indexed read), woken sooner when a
job changes in this process (`wake`) or another process commits to the store (its `data_version`,
one PRAGMA a second): it never polls the jobs. When jobs are due, each one's run is claimed in one
write transaction (`CronRepository.claim`: still due as read, no live claim on it), so of the
processes sharing the state directory exactly one runs it; the claimer moves the job's next run on
and carries the run out (runner.py).

On start it takes up the config's jobs (declared.py), gives back the claims of processes that are
gone (their runs recorded as failed, as OpenClaw records an interrupted run), and applies OpenClaw's
catch-up rule to the runs missed while nothing ran: a recurring job missed is run once, not once per
missed slot, or, with `cron.skipMissedJobs`, skipped to its next time; a one-shot missed is run.
As OpenClaw's gateway does at start-up, missed agent turns are run after a delay
(`STARTUP_DELAY_MS`, 2 minutes), 5 s apart (`MISSED_STAGGER_MS`). With `cron.enabled` false nothing
runs on its own; `run_now` (the operator's `cron run`) still does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import Callable
from typing import Any, TypeVar

from sessions_tui.engine.config.model.secret_refs import secret_text
from sessions_tui.engine.cron.catalog import CronRefused, first_run, job_of
from sessions_tui.engine.cron.declared import declared_jobs, sync_declared
from sessions_tui.engine.cron.jobs import CronJob
from sessions_tui.engine.cron.runner import CronHost, execute
from sessions_tui.engine.cron.schedules import CronSchedule, EverySchedule, ScheduleError, next_run_ms
from sessions_tui.engine.messaging.outbox import lease_is_live, lease_owner
from sessions_tui.engine.runs.runs import DEFAULT_RUN_TIMEOUT_SECONDS
from sessions_tui.engine.sessions.ids import new_uuid
from sessions_tui.engine.stopping import cancel_and_wait
from sessions_tui.engine.store.tables.cron import CronJobRow, CronRunRow

log = logging.getLogger(__name__)

CHANGE_CHECK_S = 1.0
"""How often another process's commit is looked for while asleep: one PRAGMA."""
MISSED_GRACE_MS = 2_000
"""A job overdue by more than this when the scheduler starts was missed (a running one starts it within 1 s)."""
STARTUP_DELAY_MS = 120_000
MISSED_STAGGER_MS = 5_000
LEASE_MARGIN_MS = 120_000
CLAIM_CHECK_S = 30.0
"""While another process holds a claim, how often whether it is gone is looked at (a dead one commits nothing)."""
INTERRUPTED = "interrupted: the process running it stopped"

T = TypeVar("T")


def _wall_ms() -> int:
    """Claims are between processes: real time, whatever clock the engine was given."""
    return int(time.time() * 1000)


class Scheduler:
    """The due jobs of one engine's state directory, run by this process when it claims them."""

    def __init__(
        self,
        engine: CronHost,
        *,
        startup_delay_ms: int = STARTUP_DELAY_MS,
        missed_stagger_ms: int = MISSED_STAGGER_MS,
    ) -> None:
        self.engine = engine
        self.startup_delay_ms = startup_delay_ms
        self.missed_stagger_ms = missed_stagger_ms
        self.owner = lease_owner(engine.store.processes)
        self.problems: list[str] = []
        """What was wrong with the config's jobs (each left out), said once when they were taken up."""
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._runs: dict[asyncio.Task[CronRunRow], str] = {}
        self._held_elsewhere = False

    # -- lifecycle -----------------------------------------------------------------------------

    def serving(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Run due jobs from now on, in the background of the running loop (until `aclose`)."""
        if self.serving():
            return
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._task = self._loop.create_task(self._serve(), name="cron scheduler")

    def wake(self) -> None:
        """Look at the jobs again now (one changed); safe from any thread."""
        loop, event = self._loop, self._wake
        if loop is None or event is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(event.set)
        except RuntimeError:
            pass  # the loop is closing

    async def aclose(self) -> None:
        """Stop: the loop ends, runs under way are stopped and recorded as interrupted, their claims given back."""
        task, self._task = self._task, None
        await cancel_and_wait(task)
        runs = list(self._runs)
        for run in runs:
            run.cancel()
        await asyncio.gather(*runs, return_exceptions=True)
        if runs:
            with contextlib.suppress(sqlite3.Error):
                self.engine.store.cron.release_dead(
                    lambda owner, _: owner == self.owner, self.engine.now(), INTERRUPTED
                )

    async def _store(self, fn: Callable[..., T], *args: Any) -> T:
        return await self.engine.store.thread.run(fn, *args)

    def _lease_free(self, owner: str | None, until: int | None) -> bool:
        return not lease_is_live(owner, until, _wall_ms(), self.engine.store.processes)

    # -- start-up ------------------------------------------------------------------------------

    async def prepare(self) -> None:
        """The config's jobs taken up, the claims of gone processes given back, missed runs handled."""
        declared = declared_jobs(self.engine.config.cron.jobs)
        self.problems = declared.problems
        for problem in declared.problems:
            log.warning("cron: %s", problem)
        await self._store(sync_declared, self.engine.store, declared.jobs, self.engine.now())
        await self._store(self._released)
        await self._store(self.catch_up, self.engine.now())

    def catch_up(self, now: int) -> list[str]:
        """OpenClaw's catch-up rule for the runs missed while nothing ran (the module's text); returns
        the ids of the jobs that will run once, after the start-up delay."""
        skip = self.engine.config.cron.skip_missed_jobs
        missed: list[CronJobRow] = []
        for row in self.engine.store.cron.due(now - MISSED_GRACE_MS):
            if row.lease_owner is not None and not self._lease_free(row.lease_owner, row.lease_until):
                continue
            try:
                job = job_of(row)
            except ValueError:
                continue
            assert row.next_run_at is not None
            if skip and isinstance(job.schedule, (CronSchedule, EverySchedule)):
                try:
                    upcoming = first_run(job, now)  # the next slot, as if it had been run on time
                except ScheduleError:
                    upcoming = None
                self.engine.store.cron.reschedule(row.id, row.next_run_at, upcoming, {})
            else:
                missed.append(row)
        taken: list[str] = []
        for index, row in enumerate(missed):
            at = now + self.startup_delay_ms + index * self.missed_stagger_ms
            assert row.next_run_at is not None
            if self.engine.store.cron.reschedule(row.id, row.next_run_at, at, {"startupCatchupAtMs": at}):
                taken.append(row.id)
        return taken

    # -- running -------------------------------------------------------------------------------

    async def _serve(self) -> None:
        try:
            await self.prepare()
        except sqlite3.ProgrammingError:
            return  # the store closed under us
        except Exception:  # noqa: BLE001 - a bad start leaves the loop to try the jobs as they are
            log.exception("cron: start-up failed")
        while True:
            try:
                await self.run_due()
                soonest = await self._store(self.engine.store.cron.soonest_unclaimed)
            except sqlite3.ProgrammingError:
                return
            except Exception:  # noqa: BLE001 - the scheduler must outlive a failed pass
                log.exception("cron: a pass over the due jobs failed")
                soonest = None
            delay = None if soonest is None else max(0, soonest - self.engine.now()) / 1000
            if self._held_elsewhere:
                delay = CLAIM_CHECK_S if delay is None else min(delay, CLAIM_CHECK_S)
            if delay == 0:
                await asyncio.sleep(0)
                continue
            await self._sleep(delay)

    async def _sleep(self, delay: float | None) -> None:
        """Until `delay` seconds have passed (None: no job is due), this process wakes it, or another
        process commits to the store."""
        assert self._wake is not None
        loop = asyncio.get_running_loop()
        deadline = None if delay is None else loop.time() + delay
        version = self.engine.store.data_version_if_free()
        while True:
            step = CHANGE_CHECK_S if deadline is None else min(CHANGE_CHECK_S, max(0.0, deadline - loop.time()))
            try:  # not wait_for: on 3.11 it may swallow a cancel that comes as the wake does
                async with asyncio.timeout(step):
                    await self._wake.wait()
                self._wake.clear()
                return
            except TimeoutError:
                pass
            if deadline is not None and loop.time() >= deadline:
                return
            now = self.engine.store.data_version_if_free()
            if version is None:
                version = now
            elif now is not None and now != version:
                return

    def _claim_row(self, job: CronJob, trigger: str, scheduled_at: int | None) -> CronRunRow:
        return CronRunRow(
            id=new_uuid(), job_id=job.id, trigger=trigger, scheduled_at=scheduled_at, started_at=self.engine.now()
        )

    def _lease_until(self, job: CronJob) -> int:
        timeout = job.payload.timeout_seconds
        if timeout is None:
            timeout = self.engine.config.agents.defaults.timeout_seconds or DEFAULT_RUN_TIMEOUT_SECONDS
        if timeout == 0:
            timeout = 24 * 3600
        return _wall_ms() + timeout * 1000 + LEASE_MARGIN_MS

    def claim(self, row: CronJobRow, *, manual: bool = False) -> tuple[CronJob, CronRunRow] | None:
        """Claim a run of the job `row` holds (due as read, or `manual`); None when another process has it."""
        job = job_of(row)
        now = self.engine.now()
        catch_up = (
            row.state.get("startupCatchupAtMs") is not None and row.state.get("startupCatchupAtMs") == row.next_run_at
        )
        trigger = "manual" if manual else ("catch-up" if catch_up else "due")
        run = self._claim_row(job, trigger, None if manual else row.next_run_at)
        try:
            upcoming = (
                None
                if job.one_shot
                else next_run_ms(
                    job.schedule, job_id=job.id, now_ms=now, created_at_ms=job.created_at_ms, last_run_at_ms=now
                )
            )
        except ScheduleError:
            upcoming = None
        claimed = self.engine.store.cron.claim(
            run,
            owner=self.owner,
            lease_until=self._lease_until(job),
            lease_free=self._lease_free,
            expected_next=row.next_run_at,
            next_run_at=upcoming,
            state={"runningAtMs": now},
            manual=manual,
        )
        return (job, run) if claimed else None

    def _released(self) -> int:
        """Claims of processes gone since, given back (read first: nothing is written when there are none)."""
        claimed = self.engine.store.cron.claimed()
        self._held_elsewhere = any(r.lease_owner != self.owner for r in claimed)
        stale = [r for r in claimed if self._lease_free(r.lease_owner, r.lease_until)]
        if not stale:
            return 0
        return len(self.engine.store.cron.release_dead(self._lease_free, self.engine.now(), INTERRUPTED))

    def _claim_due(self) -> list[tuple[CronJob, CronRunRow]]:
        self._released()
        out = []
        for row in self.engine.store.cron.due(self.engine.now()):
            if row.lease_owner is not None and not self._lease_free(row.lease_owner, row.lease_until):
                continue
            try:
                got = self.claim(row)
            except ValueError:
                continue
            if got is not None:
                out.append(got)
        return out

    async def run_due(self) -> list[CronRunRow]:
        """Claim every job due now and start its run in the background; returns the runs started."""
        if not self.engine.config.cron.enabled:
            return []
        claimed = await self._store(self._claim_due)
        for job, run in claimed:
            self._start(job, run)
        return [run for _, run in claimed]

    def _start(self, job: CronJob, run: CronRunRow) -> asyncio.Task[CronRunRow]:
        task = asyncio.get_running_loop().create_task(self._execute(job, run), name=f"cron:{job.id}")
        self._runs[task] = run.id
        task.add_done_callback(lambda done: self._runs.pop(done, None))
        return task

    async def _execute(self, job: CronJob, run: CronRunRow) -> CronRunRow:
        token = secret_text(self.engine.config.cron.webhook_token)
        finished = await execute(self.engine, job, run, owner=self.owner, webhook_token=token)
        self.wake()  # its next run was just written
        return finished

    async def run_now(self, job_id: str) -> CronRunRow:
        """The operator's `cron run`: the job run once now, whatever its schedule and enabled flag,
        and waited for; `CronRefused` when a run of it is under way."""
        row = await self._store(self.engine.store.cron.get_job, job_id.strip())
        if row is None:
            from sessions_tui.engine.cron.catalog import CronInvalid

            raise CronInvalid(f"No cron job found: {job_id}")
        got = await self._store(lambda: self.claim(row, manual=True))
        if got is None:
            raise CronRefused(f"cron job {row.id} is running already")
        return await self._start(*got)

    async def drain(self) -> None:
        """Wait for the runs this process started."""
        while self._runs:
            await asyncio.gather(*list(self._runs), return_exceptions=True)
