"""What the seam's cron calls answer (`Scheduling`): a job as OpenClaw stores one, a run of it, and the
schedule's words and parsing a face needs to build a job from its options. Loaded only by the faces
that manage jobs (`cron`, the dashboard's cron column): the engine's own, handed on."""

from __future__ import annotations

from sessions_tui.engine.cron.jobs import CronJob, CronRun, cron_job_id_of
from sessions_tui.engine.cron.schedules import (
    ScheduleError,
    at_from_text,
    describe,
    duration_text,
    iso_utc,
    parse_duration_ms,
)

__all__ = [
    "CronJob",
    "CronRun",
    "ScheduleError",
    "at_from_text",
    "cron_job_id_of",
    "describe",
    "duration_text",
    "iso_utc",
    "parse_duration_ms",
]
