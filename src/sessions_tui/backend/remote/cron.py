"""The remote backend's cron jobs (`Scheduling`): each call one `cron` op of the server's operator API.

Bad input is the server's 400 on `job` (`ToolInputError`), a refusal its `refused` line
(`OperationRefused`), as the local backend raises them. The server runs its own jobs: a remote face
hosts none (`serve_cron_jobs` does nothing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from sessions_tui.backend.contract.types import OperationRefused
from sessions_tui.backend.remote import wire as w

if TYPE_CHECKING:
    from sessions_tui.engine.cron.jobs import CronJob, CronRun

M = TypeVar("M", bound=w.WireModel)


class _Posts(Protocol):
    async def _post(self, op: str, body: w.WireModel, answer: type[M], *, field: str | None = None) -> M: ...


async def _call(backend: _Posts, action: w.CronAction, **fields: Any) -> w.CronAnswer:
    answer = await backend._post("cron", w.CronRequest(action=action, **fields), w.CronAnswer, field="job")
    if answer.refused is not None:
        raise OperationRefused(answer.refused)
    return answer


def _job(answer: w.CronAnswer) -> CronJob:
    from sessions_tui.engine.cron.jobs import CronJob

    return CronJob.model_validate(answer.job)


class RemoteCron:
    """`Scheduling` over the operator API (the mixin of `RemoteBackend`)."""

    async def cron_jobs(self: _Posts) -> list[CronJob]:
        from sessions_tui.engine.cron.jobs import CronJob

        return [CronJob.model_validate(job) for job in (await _call(self, "jobs")).jobs or []]

    async def cron_job(self: _Posts, job_id: str) -> CronJob:
        return _job(await _call(self, "job", job_id=job_id))

    async def add_cron_job(self: _Posts, job: dict[str, Any]) -> CronJob:
        return _job(await _call(self, "add", job=job))

    async def edit_cron_job(self: _Posts, job_id: str, patch: dict[str, Any]) -> CronJob:
        return _job(await _call(self, "edit", job_id=job_id, job=patch))

    async def remove_cron_job(self: _Posts, job_id: str) -> CronJob:
        return _job(await _call(self, "remove", job_id=job_id))

    async def enable_cron_job(self: _Posts, job_id: str, enabled: bool) -> CronJob:
        return _job(await _call(self, "enable" if enabled else "disable", job_id=job_id))

    async def run_cron_job(self: _Posts, job_id: str) -> CronRun:
        from sessions_tui.engine.cron.jobs import CronRun

        return CronRun.model_validate((await _call(self, "run", job_id=job_id)).run)

    async def cron_runs(self: _Posts, job_id: str, limit: int) -> list[CronRun]:
        from sessions_tui.engine.cron.jobs import CronRun

        return [
            CronRun.model_validate(run) for run in (await _call(self, "runs", job_id=job_id, limit=limit)).runs or []
        ]

    async def cron_job_of(self: _Posts, session_key: str) -> CronJob | None:
        answer = await _call(self, "job_of", session_key=session_key)
        return None if answer.job is None else _job(answer)

    async def serve_cron_jobs(self) -> None:
        return None
