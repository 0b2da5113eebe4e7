"""The store's contract for the scheduled jobs, the live status's seen marks, usage reports, and the
OpenClaw imports and follows, on both stores (`store`: SQLite and PostgreSQL): a due run claimed exactly
once across stores on one database (other processes, other hosts)."""

import json
import threading

import pytest
from test_store_suite import reopen

from conftest import NOW_MS
from sessions_tui.engine.store.connection import StoreError
from sessions_tui.engine.store.store import Store
from sessions_tui.engine.store.tables.activity import HORIZON
from sessions_tui.engine.store.tables.cron import CronRunRow
from sessions_tui.engine.store.usage_hours import DAY_MS, HOUR_MS

SPEC = {"name": "n", "schedule": {"kind": "every", "everyMs": 60_000}, "payload": {"kind": "agentTurn"}}
DUE = NOW_MS + 60_000


def _run(job_id: str, run_id: str, **more: object) -> CronRunRow:
    return CronRunRow(id=run_id, job_id=job_id, trigger="due", scheduled_at=DUE, started_at=NOW_MS, **more)  # type: ignore[arg-type]


def _claim(store: Store, job_id: str, owner: str, run_id: str, *, free=lambda owner, until: owner is None) -> bool:
    return store.cron.claim(
        _run(job_id, run_id),
        owner=owner,
        lease_until=DUE + 1,
        lease_free=free,
        expected_next=DUE,
        next_run_at=DUE + 60_000,
        state={"runningAtMs": DUE},
    )


# -- cron ----------------------------------------------------------------------------------------


def test_jobs_are_written_changed_listed_and_deleted(store):
    store.cron.insert_job("b", SPEC, True, DUE, NOW_MS)
    store.cron.insert_job("a", SPEC, True, DUE + 5, NOW_MS)
    store.cron.insert_job("never", SPEC, False, None, NOW_MS)
    with pytest.raises(StoreError, match="a job with id a exists already"):
        store.cron.insert_job("a", SPEC, True, DUE, NOW_MS)
    store.cron.apply_declared([("c", SPEC, True, DUE), ("a", {**SPEC, "name": "config"}, True, 1)], [], NOW_MS)
    assert [j.id for j in store.cron.jobs()] == ["b", "c", "a", "never"]  # a command line job left alone
    assert store.cron.get_job("a").spec == SPEC
    assert store.cron.declared_specs() == {"c": json.dumps(SPEC)}
    assert store.cron.update_job("b", now=NOW_MS + 1, enabled=False, next_run_at=None, set_next=True) is True
    assert store.cron.update_job("gone", now=NOW_MS) is False
    got = store.cron.get_job("b")
    assert (got.enabled, got.next_run_at, got.updated_at) == (False, None, NOW_MS + 1)
    assert [j.id for j in store.cron.due(DUE)] == ["c"]
    assert store.cron.soonest_unclaimed() == DUE
    assert store.cron.reschedule("c", DUE, DUE + 10, {"lastRunStatus": "skipped"}) is True
    assert store.cron.reschedule("c", DUE, DUE + 20, {}) is False  # moved meanwhile
    assert (store.cron.get_job("c").next_run_at, store.cron.get_job("c").state) == (
        DUE + 10,
        {"lastRunStatus": "skipped"},
    )
    store.cron.apply_declared([], ["c"], NOW_MS)
    assert store.cron.delete_job("b") is True and store.cron.delete_job("b") is False
    assert [j.id for j in store.cron.jobs()] == ["a", "never"]


def test_a_run_is_claimed_started_finished_and_read_back(store):
    store.cron.insert_job("j", SPEC, True, DUE, NOW_MS)
    assert _claim(store, "j", "host/1", "r1") is True
    assert _claim(store, "j", "host/2", "r2") is False  # held, and no longer due as read
    job = store.cron.get_job("j")
    assert (job.lease_owner, job.running_run_id, job.next_run_at) == ("host/1", "r1", DUE + 60_000)
    assert [j.id for j in store.cron.claimed()] == ["j"]
    store.cron.run_started("r1", "agent:main:cron:j", "run-1")
    assert store.cron.job_of_session("agent:main:cron:j") == "j"
    store.cron.finish(
        _run("j", "r1", ended_at=DUE + 5, status="ok", tokens=12),
        owner="host/1",
        state={"lastRunStatus": "ok"},
        next_run_at=None,
        keep_next=True,
        enabled=None,
        delete_job=False,
    )
    job = store.cron.get_job("j")
    assert (job.lease_owner, job.next_run_at, job.state) == (
        None,
        DUE + 60_000,
        {"runningAtMs": DUE, "lastRunStatus": "ok"},
    )
    run = store.cron.get_run("r1")
    assert (run.status, run.tokens, run.session_key, run.run_id, run.owner) == (
        "ok",
        12,
        "agent:main:cron:j",
        "run-1",
        "host/1",
    )
    store.cron.claim(
        _run("j", "r2"), owner="host/2", lease_until=1, lease_free=lambda o, u: True, expected_next=None,
        next_run_at=None, state={}, manual=True,
    )  # fmt: skip
    assert [r.id for r in store.cron.runs("j")] == ["r2", "r1"]  # started at one time: the later first
    assert [r.id for r in store.cron.runs("j", limit=1)] == ["r2"]


def test_a_dead_processs_claim_is_given_back_and_its_run_ended(store):
    store.cron.insert_job("j", SPEC, True, DUE, NOW_MS)
    assert _claim(store, "j", "host/1", "r1")
    assert store.cron.release_dead(lambda owner, until: False, NOW_MS, "interrupted") == []
    ended = store.cron.release_dead(lambda owner, until: owner == "host/1", NOW_MS + 7, "interrupted")
    assert [r.id for r in ended] == ["r1"]
    run = store.cron.get_run("r1")
    assert (run.ended_at, run.status, run.error) == (NOW_MS + 7, "error", "interrupted")
    job = store.cron.get_job("j")
    assert (job.lease_owner, job.state["lastRunStatus"], "runningAtMs" in job.state) == (None, "error", False)


def test_due_runs_claimed_by_two_stores_at_once_are_each_claimed_exactly_once(store, tmp_path, clock):
    jobs = [f"j{i:02d}" for i in range(40)]
    for job_id in jobs:
        store.cron.insert_job(job_id, SPEC, True, DUE, NOW_MS)
    other = reopen(store, tmp_path, clock)
    start = threading.Barrier(2)
    won: dict[str, list[str]] = {"a": [], "b": []}

    def work(name: str, host: Store) -> None:
        start.wait()
        for job_id in jobs:
            if _claim(host, job_id, f"{name}/1", f"{name}-{job_id}", free=lambda owner, until: False):
                won[name].append(job_id)

    try:
        threads = [threading.Thread(target=work, args=a) for a in (("a", store), ("b", other))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        other.close()
    assert sorted(won["a"] + won["b"]) == jobs  # each once, none lost
    for job_id in jobs:
        runs = store.cron.runs(job_id)
        assert len(runs) == 1 and store.cron.get_job(job_id).running_run_id == runs[0].id


# -- the live status's seen marks ----------------------------------------------------------------


def _seen(store: Store) -> dict[str, int]:
    with store.read() as conn:
        return {r[0]: int(r[1]) for r in conn.execute("SELECT key, seen_at FROM session_seen")}


def test_the_horizon_is_the_stores_creation_and_a_seen_mark_only_moves_on(store):
    assert _seen(store) == {HORIZON: NOW_MS}
    store.activity.mark_seen("agent:main:main", NOW_MS + 10)
    store.activity.mark_seen("agent:main:main", NOW_MS + 5)
    assert _seen(store)["agent:main:main"] == NOW_MS + 10
    store.activity.mark_seen("agent:main:main", NOW_MS + 20)
    assert _seen(store)["agent:main:main"] == NOW_MS + 20


def test_the_live_status_facts_read_runs_seen_marks_and_chain_guard_refusals(store, clock):
    from sessions_tui.engine.store.tables.runs import RunRecord

    a, b = "agent:main:a", "agent:main:b"
    store.sessions.create(a)
    store.sessions.create(b)
    clock.advance(1000)
    record = RunRecord(run_id="r1", session_key=a, status="error", created_at=clock.now_ms())  # type: ignore[arg-type]
    record.started_at, record.ended_at = clock.now_ms(), clock.now_ms()
    store.runs.insert_run(record, {})
    data = {"chain": [a, b], "rule": "cycle"}
    store.audit.add_audit(
        ts=clock.now_ms(), kind="send_refused", session_key=b, requester=a, via="x", reason="r", data=data
    )
    store.audit.add_audit(
        ts=clock.now_ms(), kind="send_refused", session_key=b, requester=None, via="x", reason="r", data={}
    )
    facts = store.activity.facts(None, clock.now_ms())
    assert set(facts) == {a, b}
    assert (facts[a].ended_at, facts[a].failed, facts[a].refused_at) == (clock.now_ms(), True, clock.now_ms())
    store.activity.mark_seen(a, clock.now_ms() + 1)
    assert store.activity.facts([a], clock.now_ms())[a].seen_at == clock.now_ms() + 1


# -- usage reports -------------------------------------------------------------------------------


def _assistant(ts: int, tokens: int, model: str = "m1", **usage: object) -> dict:
    usage = {"input": tokens, "output": 1, "totalTokens": tokens + 1, **usage}
    return {"role": "assistant", "content": "ok", "provider": "acme", "model": model, "usage": usage, "timestamp": ts}


def test_usage_is_read_by_column_by_bucket_and_by_session(store):
    store.sessions.create("agent:main:main")
    store.sessions.create("agent:ops:main")
    store.transcripts.append("agent:main:main", _assistant(NOW_MS - 3 * DAY_MS, 1000))
    store.transcripts.append("agent:ops:main", _assistant(NOW_MS - HOUR_MS, 100))
    store.transcripts.append("agent:ops:main", _assistant(NOW_MS, 10, model="m2", cost={"total": 0.25}))
    since = NOW_MS - 7 * DAY_MS
    by_agent = {(r.group, r.sums.model): r.sums for r in store.usage.by_column("agent_id", since)}
    assert {k: s.input for k, s in by_agent.items()} == {("main", "m1"): 1000, ("ops", "m1"): 100, ("ops", "m2"): 10}
    assert by_agent[("ops", "m2")].reported_cost == 0.25 and by_agent[("ops", "m1")].unreported_turns == 1
    by_session = sorted(
        (r.group, r.sums.model, r.sums.total) for r in store.usage.by_column("session_key", since, agents=["ops"])
    )
    assert by_session == [("agent:ops:main", "m1", 101), ("agent:ops:main", "m2", 11)]
    today, earlier = NOW_MS // DAY_MS * DAY_MS, (NOW_MS - 3 * DAY_MS) // DAY_MS * DAY_MS
    days = sorted((r.group, r.sums.model, r.sums.turns) for r in store.usage.by_bucket(DAY_MS, since))
    assert days == [(earlier, "m1", 1), (today, "m1", 1), (today, "m2", 1)]
    hours = store.usage.by_bucket(HOUR_MS, NOW_MS - HOUR_MS, keys=["agent:ops:main"])
    assert [(r.group, r.sums.model) for r in hours] == [(NOW_MS - HOUR_MS, "m1"), (NOW_MS, "m2")]
    assert store.usage.tokens_by_session(["agent:ops:main", "agent:main:main"], NOW_MS - DAY_MS, HOUR_MS) == {
        "agent:ops:main": {NOW_MS - HOUR_MS: 101, NOW_MS: 11}
    }
    assert store.usage.tokens_by_session([], since, HOUR_MS) == {}


# -- imports and follows -------------------------------------------------------------------------


def _line(n: int) -> dict:
    return {"type": "message", "id": f"{n:08x}", "message": {"role": "user", "content": f"hello {n}"}}


def _ids(store: Store, key: str) -> list[str]:
    return [
        line["id"] for line in map(json.loads, store.transcripts.transcript_lines(key)) if line["type"] == "message"
    ]


def _import(store: Store, key: str, lines: list[dict], **more: object) -> None:
    store.imports.import_session(
        key,
        {"updatedAt": 1_000, "label": "imported"},
        session_id="0b5c5a3e-0000-4000-8000-000000000001",
        lines=lines,
        raw=[json.dumps(x) for x in lines],
        source="/oc/sessions/a.jsonl",
        source_lines=len(lines) + 1,
        **more,
    )


def test_an_import_is_recorded_updated_replaced_and_adopted(store):
    key, source = "agent:main:telegram:direct:1", "/oc/sessions/a.jsonl"
    assert store.imports.import_state(source, key) == (None, None, None)
    _import(store, key, [_line(1), _line(2)])
    sid = store.sessions.session_id_of(key)
    assert store.imports.import_state(source, key) == (3, sid, None)
    assert store.imports.imported_lines(source) == 3
    assert store.imports.imported_entry(source) == {"updatedAt": 1_000, "label": "imported"}
    assert store.imports.imported_session_id(source) == sid
    assert store.imports.import_source_of(key) == source
    store.imports.update_import(
        key, changes={"label": "renamed"}, lines=[_line(3)], raw=[json.dumps(_line(3))], source=source,
        source_lines=4, entry={"label": "renamed"},
    )  # fmt: skip
    assert store.imports.imported_lines(source) == 4
    assert _ids(store, key) == ["00000001", "00000002", "00000003"]
    assert store.sessions.get(key).entry["label"] == "renamed"
    store.imports.replace_import(
        key, entry={"label": "compacted"}, lines=[_line(9)], raw=[json.dumps(_line(9))], source=source,
        source_lines=2, adopt=True,
    )  # fmt: skip
    assert _ids(store, key) == ["00000009"]
    state = store.imports.import_state(source, key)
    assert state.lines == 2 and state.adopted == store.imports.engine_mark(key) != ""
    assert store.imports.import_source_of(key) is None  # the engine's now
    store.transcripts.append(key, {"role": "user", "content": "after"})
    assert store.imports.engine_mark(key) != state.adopted  # the engine wrote into it since
    store.imports.adopt(key)
    assert store.imports.import_state(source, key).adopted == store.imports.engine_mark(key)
    assert store.imports.engine_mark("agent:main:none") == ""


def test_an_import_that_fails_writes_nothing(store):
    store.sessions.create("agent:main:taken", session_id="0b5c5a3e-0000-4000-8000-000000000001")
    with pytest.raises(StoreError):
        _import(store, "agent:main:other", [_line(1)])
    assert store.imports.imported_lines("/oc/sessions/a.jsonl") is None
    assert store.sessions.get("agent:main:other") is None


def test_a_follow_is_recorded_once(store, clock):
    assert store.follows.follows("/home/x/.openclaw") is False
    store.follows.record("/home/x/.openclaw")
    clock.advance(1000)
    store.follows.record("/home/x/.openclaw")
    assert store.follows.follows("/home/x/.openclaw") is True
    with store.read() as conn:
        assert [tuple(r) for r in conn.execute("SELECT root, since FROM openclaw_follows")] == [
            ("/home/x/.openclaw", NOW_MS)
        ]


def test_a_postgresql_database_of_an_earlier_schema_gets_the_jobs_seen_marks_and_imports(pg_url, tmp_path, clock):
    import psycopg

    from sessions_tui.engine.store.postgres import schema
    from sessions_tui.engine.store.postgres.store import PostgresStore

    PostgresStore(pg_url, tmp_path, clock).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP TABLE cron_jobs, cron_runs, session_seen, imports, openclaw_follows")
        conn.execute("UPDATE schema_version SET version = 1")
    clock.advance(5)
    store = PostgresStore(pg_url, tmp_path, clock)
    try:
        assert _seen(store) == {HORIZON: NOW_MS + 5}  # the horizon: when the seen marks came to be
        store.cron.insert_job("j", SPEC, True, DUE, NOW_MS)
        assert [j.id for j in store.cron.jobs()] == ["j"]
    finally:
        store.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute(schema.VERSION).fetchone() == (schema.SCHEMA_VERSION,)
