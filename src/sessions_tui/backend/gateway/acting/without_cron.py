"""Cron jobs on an OpenClaw gateway: not carried yet (its `cron.*` methods are the way), so both
gateway backends answer each call with the line of what they lack (`not_offered(Capability.CRON)`),
and run no job themselves: the gateway runs its own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from sessions_tui.backend.contract.types import BackendUnavailable, Capability

if TYPE_CHECKING:
    from sessions_tui.engine.cron.jobs import CronJob, CronRun


class _SaysWhatItLacks(Protocol):
    def not_offered(self: _SaysWhatItLacks, capability: Capability) -> str: ...


def _without(backend: _SaysWhatItLacks) -> BackendUnavailable:
    return BackendUnavailable(backend.not_offered(Capability.CRON))


class WithoutCron:
    """The cron calls, each refused with the backend's own `not_offered` line."""

    async def cron_jobs(self: _SaysWhatItLacks) -> list[CronJob]:
        raise _without(self)

    async def cron_job(self: _SaysWhatItLacks, job_id: str) -> CronJob:
        raise _without(self)

    async def add_cron_job(self: _SaysWhatItLacks, job: dict[str, Any]) -> CronJob:
        raise _without(self)

    async def edit_cron_job(self: _SaysWhatItLacks, job_id: str, patch: dict[str, Any]) -> CronJob:
        raise _without(self)

    async def remove_cron_job(self: _SaysWhatItLacks, job_id: str) -> CronJob:
        raise _without(self)

    async def enable_cron_job(self: _SaysWhatItLacks, job_id: str, enabled: bool) -> CronJob:
        raise _without(self)

    async def run_cron_job(self: _SaysWhatItLacks, job_id: str) -> CronRun:
        raise _without(self)

    async def cron_runs(self: _SaysWhatItLacks, job_id: str, limit: int) -> list[CronRun]:
        raise _without(self)

    async def cron_job_of(self, session_key: str) -> CronJob | None:
        return None

    async def serve_cron_jobs(self) -> None:
        return None
