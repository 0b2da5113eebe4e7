"""The scheduler with a frozen clock: due runs as normal runs in the job's session, OpenClaw's catch-up
rule for missed runs, two engines on one state directory racing for one due run, claims of dead
processes, back-off after errors, one-shots, and delivery (announce, webhook)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time

from conftest import NOW_MS
from sessions_tui.engine.cron.scheduler import INTERRUPTED, STARTUP_DELAY_MS
from sessions_tui.engine.cron.schedules import parse_at_ms
from sessions_tui.engine.store.tables.cron import CronRunRow

TURN = {"kind": "agentTurn", "message": "status?"}


def _job(**extra):
    return {"name": "Tick", "schedule": {"kind": "every", "everyMs": 2000}, "payload": TURN, **extra}


def _config(*jobs, **cron):
    return {"cron": {"jobs": list(jobs), **cron}}


async def _tick(engine, ms):
    """Move the frozen clock and let the scheduler run what is due, to its end."""
    engine.clock.advance(ms)
    started = await engine.scheduler.run_due()
    await engine.scheduler.drain()
    return started


async def test_a_due_job_runs_as_a_normal_run_in_its_own_session(live_engine):
    engine = live_engine(_config(_job()))
    seen = []
    engine.events.subscribe(lambda event: seen.append(event.type))
    await engine.scheduler.prepare()
    assert await _tick(engine, 1999) == []  # not due yet
    [run] = await _tick(engine, 1)
    [done] = engine.store.cron.runs("tick")
    assert (done.id, done.trigger, done.status, done.session_key) == (run.id, "due", "ok", "agent:main:cron:tick")
    assert done.scheduled_at == NOW_MS + 2000 and done.tokens and done.tokens > 0
    assert engine.store.runs.get_run(done.run_id).status == "ok"
    messages = engine.store.transcripts.history("agent:main:cron:tick", limit=10).messages
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["provenance"] == {"kind": "cron", "jobId": "tick", "jobName": "Tick", "cronRunId": run.id}
    assert {"session_changed", "run_started", "run_ended"} <= set(seen)  # visible live
    job = engine.cron_jobs.get("tick")
    assert job.state.last_run_status == "ok" and job.state.next_run_at_ms == NOW_MS + 4000
    assert engine.cron_jobs.job_of_session("agent:main:cron:tick").id == "tick"
    [second] = await _tick(engine, 2000)  # the next one, into the same session
    assert len(engine.store.transcripts.history("agent:main:cron:tick", limit=10).messages) == 4
    assert [r.id for r in engine.store.cron.runs("tick")] == [second.id, run.id]


async def test_a_run_starting_is_published_as_cron_run_started(live_engine):
    engine = live_engine(_config(_job()))
    seen = []
    engine.events.subscribe(lambda event: seen.append(event) if event.type == "cron_run_started" else None)
    await engine.scheduler.prepare()
    [run] = await _tick(engine, 2000)
    [started] = seen
    [done] = engine.store.cron.runs("tick")
    assert (started.session_key, started.job_id, started.job_name) == ("agent:main:cron:tick", "tick", "Tick")
    assert (started.run_id, started.trigger) == (done.run_id, "due")


async def test_main_and_named_sessions_and_overrides(live_engine):
    engine = live_engine(
        _config(
            _job(id="m", sessionTarget="main"),
            _job(id="n", sessionTarget="session:agent:main:discord:group:ops", payload={**TURN, "thinking": "low"}),
        )
    )
    await engine.scheduler.prepare()
    await _tick(engine, 2000)
    assert engine.store.cron.runs("m")[0].session_key == "agent:main:main"
    assert engine.store.cron.runs("n")[0].session_key == "agent:main:discord:group:ops"
    assert engine.store.sessions.get("agent:main:discord:group:ops") is not None


async def test_a_missed_run_is_caught_up_once_after_the_start_delay(live_engine):
    engine = live_engine(_config(_job(schedule={"kind": "every", "everyMs": 60_000})))
    await engine.scheduler.prepare()
    engine.clock.advance(3_600_000)  # an hour with nothing running: 60 slots missed
    await engine.scheduler.prepare()  # the next start
    start = engine.now()
    job = engine.cron_jobs.get("tick")
    assert job.state.next_run_at_ms == job.state.startup_catchup_at_ms == start + STARTUP_DELAY_MS
    assert await _tick(engine, STARTUP_DELAY_MS - 1) == []
    [run] = await _tick(engine, 1)
    assert run.trigger == "catch-up" and len(engine.store.cron.runs("tick")) == 1  # once, not 60 times
    after = engine.cron_jobs.get("tick").state
    assert after.startup_catchup_at_ms is None and after.next_run_at_ms > engine.now()


async def test_with_skip_missed_jobs_a_missed_recurring_run_is_skipped(live_engine):
    engine = live_engine(_config(_job(schedule={"kind": "every", "everyMs": 60_000}), skipMissedJobs=True))
    await engine.scheduler.prepare()
    engine.clock.advance(3_600_000 + 30_000)
    await engine.scheduler.prepare()
    assert engine.cron_jobs.get("tick").state.next_run_at_ms == engine.now() + 30_000  # its next slot
    assert await _tick(engine, 29_999) == [] and engine.store.cron.runs("tick") == []


async def test_a_missed_one_shot_runs_at_the_next_start_and_is_then_deleted(live_engine):
    at = {"kind": "at", "at": "2026-04-13T12:01:00Z"}  # a minute after NOW_MS
    engine = live_engine(_config())
    added = engine.cron_jobs.add({"id": "once", "name": "Once", "schedule": at, "payload": TURN})
    assert added.state.next_run_at_ms == NOW_MS + 60_000
    engine.clock.advance(600_000)  # nothing ran at its time
    await engine.scheduler.prepare()
    assert engine.cron_jobs.get("once").state.next_run_at_ms == engine.now() + STARTUP_DELAY_MS
    [run] = await _tick(engine, STARTUP_DELAY_MS)
    assert engine.store.cron.get_run(run.id).status == "ok"
    assert engine.store.cron.get_job("once") is None  # an ok one-shot is deleted; its history stays
    assert engine.store.cron.runs("once")[0].status == "ok"


async def test_two_engines_on_one_state_dir_run_a_due_job_exactly_once(live_engine, make_engine, tmp_path):
    config = _config(_job())
    one = live_engine(config)
    from sessions_tui.tools.calling.host import EngineToolHost

    two = make_engine(config | {"models": {"demo": {"latencyMs": 0, "chunkMs": 0}}}, state=one.state_dir)
    EngineToolHost(two)
    await one.scheduler.prepare()
    await two.scheduler.prepare()
    for _ in range(5):
        one.clock.advance(2000)  # one clock: both engines share it
        started = await asyncio.gather(one.scheduler.run_due(), two.scheduler.run_due())
        assert sum(len(s) for s in started) == 1
        await asyncio.gather(one.scheduler.drain(), two.scheduler.drain())
    runs = one.store.cron.runs("tick")
    assert len(runs) == 5 and {r.status for r in runs} == {"ok"}
    assert len(one.store.transcripts.history("agent:main:cron:tick", limit=50).messages) == 10


def _dead_owner() -> str:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return f"{socket.gethostname()}/{proc.pid}/gone"


async def test_a_run_left_by_a_dead_process_is_recorded_interrupted_and_the_job_goes_on(live_engine):
    engine = live_engine(_config(_job()))
    await engine.scheduler.prepare()
    row = engine.store.cron.get_job("tick")
    left = CronRunRow(id="left", job_id="tick", trigger="due", scheduled_at=row.next_run_at, started_at=NOW_MS)
    claimed = engine.store.cron.claim(
        left,
        owner=_dead_owner(),
        lease_until=NOW_MS * 2,
        lease_free=lambda owner, until: True,
        expected_next=row.next_run_at,
        next_run_at=row.next_run_at,
        state={"runningAtMs": NOW_MS},
    )
    assert claimed
    assert await _tick(engine, 2000)  # the dead claim given back, the job claimed by this process
    interrupted = engine.store.cron.get_run("left")
    assert (interrupted.status, interrupted.error) == ("error", INTERRUPTED)


async def test_a_live_claim_elsewhere_is_left_alone(live_engine):
    engine = live_engine(_config(_job()))
    await engine.scheduler.prepare()
    row = engine.store.cron.get_job("tick")
    run = CronRunRow(id="elsewhere", job_id="tick", trigger="due", scheduled_at=row.next_run_at, started_at=NOW_MS)
    engine.store.cron.claim(
        run,
        owner="another-host/1/x",
        lease_until=int(time.time() * 1000) + 600_000,
        lease_free=lambda owner, until: True,
        expected_next=row.next_run_at,
        next_run_at=row.next_run_at,
        state={},
    )
    assert await _tick(engine, 2000) == []  # due, but another process runs it


async def test_errors_back_off_and_a_failed_one_shot_is_kept_disabled(live_engine):
    engine = live_engine(_config(_job(payload={**TURN, "model": "nowhere/none"})))
    await engine.scheduler.prepare()
    await _tick(engine, 2000)
    [failed] = engine.store.cron.runs("tick")
    assert failed.status == "error" and failed.error
    state = engine.cron_jobs.get("tick").state
    assert state.consecutive_errors == 1 and state.next_run_at_ms == engine.now() + 30_000  # OpenClaw's first back-off
    at = {"kind": "at", "at": "2026-04-13T12:10:00Z"}
    engine.cron_jobs.add({"id": "once", "name": "Once", "schedule": at, "payload": {**TURN, "model": "nowhere/none"}})
    await _tick(engine, 600_000)
    kept = engine.cron_jobs.get("once")
    assert kept.enabled is False and kept.state.last_run_status == "error"


async def test_a_manual_run_keeps_the_schedule(live_engine):
    engine = live_engine(_config(_job(schedule={"kind": "every", "everyMs": 60_000}, enabled=False)))
    await engine.scheduler.prepare()
    done = await engine.scheduler.run_now("tick")
    assert (done.trigger, done.status) == ("manual", "ok")
    assert engine.cron_jobs.get("tick").state.next_run_at_ms is None  # still disabled


async def test_the_reply_is_announced_through_the_outbox(live_engine):
    delivery = {"mode": "announce", "channel": "telegram", "to": "-100123"}
    engine = live_engine(_config(_job(delivery=delivery)))
    announced = []
    engine.events.subscribe(lambda event: announced.append(event) if event.type == "announced" else None)
    await engine.scheduler.prepare()
    await _tick(engine, 2000)
    [run] = engine.store.cron.runs("tick")
    assert run.delivery_status == "delivered"
    [row] = engine.outbox.list()
    assert (row.kind, row.channel, row.to, row.session_key) == ("cron", "telegram", "-100123", "agent:main:cron:tick")
    assert row.message == "(demo) You said: status?" and announced[0].kind == "cron"


async def test_a_webhook_gets_the_finished_run(live_engine, httpserver):
    httpserver.expect_request("/done", method="POST").respond_with_json({"ok": True})
    delivery = {"mode": "webhook", "to": httpserver.url_for("/done")}
    engine = live_engine(_config(_job(delivery=delivery), webhookToken="hook-secret"))
    await engine.scheduler.prepare()
    await _tick(engine, 2000)
    [run] = engine.store.cron.runs("tick")
    assert run.delivery_status == "delivered"
    [(request, _)] = httpserver.log
    body = json.loads(request.data)
    assert (body["action"], body["jobId"], body["runId"], body["status"]) == ("finished", "tick", run.id, "ok")
    assert body["summary"] == "(demo) You said: status?" and body["sessionKey"] == "agent:main:cron:tick"
    assert request.headers["Authorization"] == "Bearer hook-secret"


async def test_nothing_runs_on_its_own_when_cron_is_disabled(live_engine):
    engine = live_engine(_config(_job(), enabled=False))
    await engine.scheduler.prepare()
    assert await _tick(engine, 10_000) == []
    assert (await engine.scheduler.run_now("tick")).status == "ok"  # the operator's run still runs


async def test_across_the_autumn_change_a_daily_job_runs_once_and_in_spring_skips_the_missing_time(live_engine):
    """New York: 01:30 happens twice on 1 November 2026 (run the first time only), 02:30 never on 14 March 2027."""
    engine = live_engine(_config())
    autumn = engine.cron_jobs.add(
        {
            "id": "fall",
            "name": "Fall",
            "schedule": {"kind": "cron", "expr": "30 1 * * *", "tz": "America/New_York"},
            "payload": TURN,
        }  # fmt: skip
    )
    spring = engine.cron_jobs.add(
        {
            "id": "spring",
            "name": "Spring",
            "schedule": {"kind": "cron", "expr": "30 2 * * *", "tz": "America/New_York"},
            "payload": TURN,
        }  # fmt: skip
    )
    assert autumn.state.next_run_at_ms and spring.state.next_run_at_ms
    await engine.scheduler.prepare()

    async def at(iso: str) -> list[str]:
        engine.clock.advance(parse_at_ms(iso) - engine.now())
        return [run.job_id for run in await _tick(engine, 0)]

    await at("2026-11-01T04:00:00Z")  # the runs due until then go
    assert await at("2026-11-01T05:30:00Z") == ["fall"]  # 01:30 EDT, the first 01:30
    assert await at("2026-11-01T06:30:00Z") == []  # 01:30 EST, the second: not again
    assert engine.cron_jobs.get("fall").state.next_run_at_ms == parse_at_ms("2026-11-02T06:30:00Z")
    await at("2027-03-14T05:00:00Z")  # before the spring change (2027-03-14, 02:00 EST -> 03:00 EDT)
    assert engine.cron_jobs.get("spring").state.next_run_at_ms == parse_at_ms("2027-03-15T06:30:00Z")  # not the 14th
    assert "spring" not in await at("2027-03-14T07:30:00Z")  # 03:30 EDT: 02:30 never came (01:30 did)
    assert "spring" in await at("2027-03-15T06:30:00Z")  # 02:30 EDT the next day
