"""Issue 30 in the dashboard: a cron session shows its job (schedule, next run, last outcome) under
the transcript's title, and `J` runs the open session's job now, saying what came of it; on a
session no job runs in, `J` says so."""

from __future__ import annotations

from scenes import DEV, demo_app, select, settle, until
from ui_support import SIZE, text_of

CRON = "agent:main:cron:nightly-report"
JOB = {
    "id": "nightly-report",
    "name": "nightly report",
    "schedule": {"kind": "every", "everyMs": 3_600_000},
    "payload": {"kind": "agentTurn", "message": "write the nightly report"},
}


def badges(app) -> str:
    return text_of(app.main_screen.query_one("#transcript-badges"))


def outcome(app) -> str:
    return text_of(app.main_screen.query_one("#outcome"))


def toasts(app) -> list[str]:
    return [notification.message for notification in app._notifications]


async def test_a_cron_session_shows_its_job_and_j_runs_it_now(tmp_path):
    app = demo_app(tmp_path / "s", {"cron": {"jobs": [JOB]}})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, CRON)
        await until(pilot, lambda: "job nightly report · every 1h · next" in badges(app), "the job under the title")
        assert "last" not in badges(app)  # never run yet
        await pilot.press("J")
        await until(pilot, lambda: "ran job nightly report: ok" in outcome(app), "what came of the run")
        await until(pilot, lambda: "· last ok" in badges(app), "its last outcome")
        runs = await app.backend.cron_runs("nightly-report", 5)
        assert [(run.trigger, run.status) for run in runs] == [("manual", "ok")]


async def test_j_on_a_session_no_job_runs_in_says_so(tmp_path):
    app = demo_app(tmp_path / "s", {"cron": {"jobs": [JOB]}})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        await settle(pilot)
        assert "job " not in badges(app)
        await pilot.press("J")
        shown = "agent:main:discord:group:dev is no cron job's session"
        await until(pilot, lambda: shown in outcome(app) or shown in toasts(app), "the refusal")
