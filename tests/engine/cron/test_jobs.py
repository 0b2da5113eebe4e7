"""Jobs: the config's declarations taken up, the operator's changes (catalog), the job's session, and
the store's tables (schema 11) with their claims."""

from __future__ import annotations

import sqlite3

import pytest

from conftest import NOW_MS
from sessions_tui.engine.cron.catalog import Catalog, CronInvalid, CronRefused
from sessions_tui.engine.cron.declared import declared_jobs, id_from_name, sync_declared
from sessions_tui.engine.cron.jobs import CronJob, cron_job_id_of, session_key_of
from sessions_tui.engine.sessions.keys import MainAlias
from sessions_tui.engine.store.schema import DB_NAME, SCHEMA_VERSION
from sessions_tui.engine.store.store import Store
from sessions_tui.engine.store.tables.cron import CronRunRow

EVERY = {"kind": "every", "everyMs": 60_000}
TURN = {"kind": "agentTurn", "message": "status?"}


def _declared(**extra):
    return {"name": "Morning brief", "schedule": EVERY, "payload": TURN, **extra}


def test_declared_jobs_are_checked_one_by_one():
    found = declared_jobs(
        [
            _declared(),
            _declared(),  # the same id again
            {"name": "bad", "schedule": {"kind": "cron", "expr": "61 * * * *"}, "payload": TURN},
            {"name": "no zone", "schedule": {"kind": "cron", "expr": "0 7 * * *", "tz": "Mars/Base"}, "payload": TURN},
            {"name": "no message", "schedule": EVERY, "payload": {"kind": "agentTurn"}},
            "not a job",
            {"id": "own-id", "name": "x", "schedule": {"kind": "at", "at": "2027-01-01T00:00:00Z"}, "payload": TURN},
        ]
    )
    assert [job.id for job in found.jobs] == ["morning-brief", "own-id"]
    assert all(job.source == "config" for job in found.jobs)
    assert found.problems[0] == "cron.jobs[1]: id morning-brief is declared twice; the first is used"
    assert "cron.jobs[2]: cron expression '61 * * * *': minute: 61 is out of range (0-59)" in found.problems
    assert found.problems[2].startswith("cron.jobs[3]: not a time zone: 'Mars/Base'")
    assert found.problems[3].startswith("cron.jobs[4]: payload.message: Field required")
    assert found.problems[4] == "cron.jobs[5]: not an object"
    assert id_from_name("  Ops: daily *sweep* ") == "ops-daily-sweep"


def test_declarations_are_taken_up_and_kept_in_step(engine):
    store = engine.store
    jobs = declared_jobs([_declared(), _declared(name="Other")]).jobs
    assert sync_declared(store, jobs, NOW_MS) == 2
    assert store.cron.get_job("morning-brief").next_run_at == NOW_MS + 60_000
    assert sync_declared(store, jobs, NOW_MS + 5000) == 0  # unchanged: its next run stays
    assert store.cron.get_job("morning-brief").next_run_at == NOW_MS + 60_000
    changed = declared_jobs([_declared(schedule={"kind": "every", "everyMs": 10_000})]).jobs
    assert sync_declared(store, changed, NOW_MS + 5000) == 2  # one rescheduled, one no longer declared
    assert store.cron.get_job("morning-brief").next_run_at == NOW_MS + 15_000
    assert store.cron.get_job("other") is None


def test_the_operator_manages_jobs(engine):
    woken = []
    catalog = Catalog(engine.store, engine.now, on_change=lambda: woken.append(1))
    job = catalog.add({"name": "Ops", "schedule": EVERY, "payload": TURN, "sessionTarget": "main"})
    assert job.source == "cli" and job.state.next_run_at_ms == NOW_MS + 60_000 and len(job.id) == 12
    assert job.public()["state"]["nextRunAtMs"] == NOW_MS + 60_000
    edited = catalog.edit(job.id, {"payload": {"message": "new"}, "name": "Ops 2"})
    assert (edited.name, edited.payload.message, edited.state.next_run_at_ms) == ("Ops 2", "new", NOW_MS + 60_000)
    rescheduled = catalog.edit(job.id, {"schedule": {"kind": "every", "everyMs": 5000}})
    assert rescheduled.state.next_run_at_ms == NOW_MS + 5000
    cleared = catalog.edit(job.id, {"payload": {"model": "openai/gpt-5"}})
    assert catalog.edit(job.id, {"payload": {"model": None}}).payload.model is None and cleared.payload.model
    assert catalog.set_enabled(job.id, False).state.next_run_at_ms is None
    assert catalog.set_enabled(job.id, True).state.next_run_at_ms == NOW_MS + 5000
    assert catalog.remove(job.id).id == job.id and catalog.jobs() == []
    assert len(woken) == 8  # each change woke the scheduler
    with pytest.raises(CronInvalid, match="No cron job found: nope"):
        catalog.get("nope")
    with pytest.raises(CronInvalid, match="schedule"):
        catalog.add({"name": "x", "payload": TURN})
    with pytest.raises(CronInvalid, match="not a time zone"):
        catalog.add({"name": "x", "schedule": {"kind": "cron", "expr": "0 7 * * *", "tz": "X/Y"}, "payload": TURN})
    with pytest.raises(CronInvalid, match="sessionTarget 'current'"):
        catalog.add({"name": "x", "schedule": EVERY, "payload": TURN, "sessionTarget": "current"})
    catalog.add({"id": "mine", "name": "x", "schedule": EVERY, "payload": TURN})
    with pytest.raises(CronRefused, match="a job with id mine exists already"):
        catalog.add({"id": "mine", "name": "x", "schedule": EVERY, "payload": TURN})


def test_a_declared_job_is_changed_in_the_file_only(engine):
    catalog = Catalog(engine.store, engine.now, declared=lambda: [_declared()])  # taken up on first use
    for change in (lambda: catalog.edit("morning-brief", {"name": "x"}), lambda: catalog.remove("morning-brief")):
        with pytest.raises(CronRefused, match="declared in the config file: change it there"):
            change()
    assert catalog.set_enabled("morning-brief", False).enabled is False  # but paused and resumed
    sync_declared(engine.store, declared_jobs([_declared()]).jobs, NOW_MS)
    assert catalog.get("morning-brief").enabled is False  # the file's unchanged declaration keeps it paused


def test_where_a_jobs_runs_go():
    alias = MainAlias()

    def job(target):
        return CronJob(id="j1", name="n", schedule=EVERY, payload=TURN, sessionTarget=target, agentId="Ops")

    assert session_key_of(job("isolated"), alias) == "agent:ops:cron:j1"
    assert session_key_of(job("main"), alias) == "agent:ops:main"
    assert session_key_of(job("session:agent:main:discord:group:dev"), alias) == "agent:main:discord:group:dev"
    assert cron_job_id_of("agent:ops:cron:j1") == "j1" and cron_job_id_of("cron:j1") == "j1"
    assert cron_job_id_of("agent:main:main") is None


def test_schema_11_comes_with_a_file_of_10(tmp_path):
    state = tmp_path / "s"
    Store(state).close()
    conn = sqlite3.connect(state / DB_NAME)
    conn.execute("DROP TABLE cron_jobs")
    conn.execute("DROP TABLE cron_runs")
    conn.execute("PRAGMA user_version=10")
    conn.commit()
    conn.close()
    store = Store(state)
    try:
        assert store.cron.jobs() == [] and store.cron.runs("x") == []
        with store.read() as c:
            assert c.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        store.close()


def _run(job_id: str, run_id: str) -> CronRunRow:
    return CronRunRow(id=run_id, job_id=job_id, trigger="due", scheduled_at=NOW_MS, started_at=NOW_MS)


def test_a_due_run_is_claimed_once_across_connections(tmp_path, clock):
    state = tmp_path / "s"
    one, two = Store(state, clock), Store(state, clock)
    try:
        Catalog(one, clock.now_ms).add({"id": "j", "name": "n", "schedule": EVERY, "payload": TURN})
        due = NOW_MS + 60_000

        def claim(store, owner, run_id, free=lambda owner, until: owner is None):
            return store.cron.claim(
                _run("j", run_id),
                owner=owner,
                lease_until=due + 1,
                lease_free=free,
                expected_next=due,
                next_run_at=due + 60_000,
                state={"runningAtMs": due},
            )

        assert claim(one, "a", "r1") is True
        assert claim(two, "b", "r2") is False  # held, and no longer due as read
        assert [r.id for r in two.cron.runs("j")] == ["r1"]
        one.cron.finish(
            CronRunRow(**{**_run("j", "r1").__dict__, "ended_at": due, "status": "ok"}),
            owner="a",
            state={"runningAtMs": None, "lastRunStatus": "ok"},
            next_run_at=due + 60_000,
            keep_next=False,
            enabled=None,
            delete_job=False,
        )
        row = two.cron.get_job("j")
        assert (row.lease_owner, row.next_run_at, row.state["lastRunStatus"]) == (None, due + 60_000, "ok")
        assert two.cron.runs("j")[0].status == "ok"
    finally:
        one.close()
        two.close()
