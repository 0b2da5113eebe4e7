"""The `cron` section: OpenClaw's scheduler settings, and the jobs the file declares.

OpenClaw's keys as far as they apply here: `enabled` (false: no job runs on its own; `cron run`
still runs one), `skipMissedJobs` (recurring runs missed while nothing ran are skipped instead of
caught up), `webhookToken` (sent as `Authorization: Bearer` with webhook deliveries). `jobs` is this
engine's own: jobs declared in the file, each a job as OpenClaw stores one (`name`, `schedule`,
`sessionTarget`, `payload`, `delivery`, …; `id` defaults to the name made into an id), checked when
the scheduler takes them up (engine/cron/declared.py), so a bad one is named without stopping the rest.
"""

from typing import Any

from pydantic import Field, SecretStr

from sessions_tui.engine.config.model.base import ConfigModel

__all__ = ["CronConfig"]


class CronConfig(ConfigModel):
    """`cron`: the scheduler's settings and the declared jobs."""

    enabled: bool = Field(default=True, description="Run jobs when they are due; default true.")
    skip_missed_jobs: bool = Field(
        default=False,
        alias="skipMissedJobs",
        description="Skip the recurring runs missed while nothing ran, instead of one catch-up run; default false.",
    )
    webhook_token: SecretStr | None = Field(
        default=None,
        alias="webhookToken",
        description="The bearer token sent with webhook deliveries of finished runs; default none. Never shown.",
    )
    jobs: list[dict[str, Any]] = Field(
        default_factory=list, description="Jobs declared here, each as OpenClaw stores a job; default []."
    )
