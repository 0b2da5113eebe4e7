"""The local backend's cron jobs (`Scheduling`): the engine's catalog and scheduler behind the seam.

The catalog's reads and changes run on the store's thread; its refusals are said in the seam's words
(`CronInvalid` as `ToolInputError`, `CronRefused` as `OperationRefused`). A run now (`run_cron_job`)
is claimed as a due run is, so it never doubles one another process runs, and is awaited here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from sessions_tui.backend.contract.types import OperationRefused
from sessions_tui.tools.calling.base import ToolInputError

if TYPE_CHECKING:
    from sessions_tui.engine.cron.jobs import CronJob, CronRun
    from sessions_tui.engine.engine import Engine


@contextmanager
def _in_seam_words() -> Iterator[None]:
    from sessions_tui.engine.cron.catalog import CronInvalid, CronRefused

    try:
        yield
    except CronInvalid as exc:
        raise ToolInputError(str(exc)) from None
    except CronRefused as exc:
        raise OperationRefused(str(exc)) from None


class LocalCron:
    """`Scheduling` over `self.engine` (the mixin of `LocalBackend`)."""

    engine: Engine

    async def cron_jobs(self) -> list[CronJob]:
        return await self.engine.store.thread.run(self.engine.cron_jobs.jobs)

    async def cron_job(self, job_id: str) -> CronJob:
        with _in_seam_words():
            return await self.engine.store.thread.run(self.engine.cron_jobs.get, job_id)

    async def add_cron_job(self, job: dict[str, Any]) -> CronJob:
        with _in_seam_words():
            return await self.engine.store.thread.run(self.engine.cron_jobs.add, job)

    async def edit_cron_job(self, job_id: str, patch: dict[str, Any]) -> CronJob:
        with _in_seam_words():
            return await self.engine.store.thread.run(self.engine.cron_jobs.edit, job_id, patch)

    async def remove_cron_job(self, job_id: str) -> CronJob:
        with _in_seam_words():
            return await self.engine.store.thread.run(self.engine.cron_jobs.remove, job_id)

    async def enable_cron_job(self, job_id: str, enabled: bool) -> CronJob:
        with _in_seam_words():
            return await self.engine.store.thread.run(self.engine.cron_jobs.set_enabled, job_id, enabled)

    async def run_cron_job(self, job_id: str) -> CronRun:
        from sessions_tui.engine.cron.catalog import run_of

        with _in_seam_words():
            return run_of(await self.engine.scheduler.run_now(job_id))

    async def cron_runs(self, job_id: str, limit: int) -> list[CronRun]:
        with _in_seam_words():
            return await self.engine.store.thread.run(self.engine.cron_jobs.runs, job_id, limit)

    async def cron_job_of(self, session_key: str) -> CronJob | None:
        key = self.engine.canonical(session_key)
        return await self.engine.store.thread.run(self.engine.cron_jobs.job_of_session, key)

    async def serve_cron_jobs(self) -> None:
        if self.engine.store.damage is None:  # a damaged store takes no writes: no job runs
            self.engine.scheduler.start()
