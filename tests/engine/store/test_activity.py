"""The live-status facts the store reads (store/tables/activity.py): running runs, waits, ends since the
horizon or a seen mark, chain-guard refusals; the seed reads only what may not be idle."""

from __future__ import annotations

from conftest import NOW_MS, add_session
from sessions_tui.engine.messaging.audit import record_refusal
from sessions_tui.engine.sessions.live_status import LOOPING_WINDOW_MS, live_status
from sessions_tui.engine.store.tables.runs import RunRecord

STUCK = 120_000


def _run(engine, key: str, run_id: str, *, status: str, started: int | None = None, ended: int | None = None):
    record = RunRecord(run_id=run_id, session_key=key, status=status, created_at=started or NOW_MS)  # type: ignore[arg-type]
    record.started_at, record.ended_at = started, ended
    engine.store.runs.insert_run(record, {})


def _statuses(engine, keys=None):
    facts = engine.store.activity.facts(keys, engine.now())
    return {key: live_status(one, engine.now(), STUCK) for key, one in facts.items()}


def test_the_seed_names_only_sessions_that_may_not_be_idle(engine, clock):
    for name in ("idle", "run", "ok", "bad", "seen"):
        add_session(engine, f"agent:main:{name}")
    clock.advance(1000)
    _run(engine, "agent:main:run", "r1", status="running", started=engine.now())
    _run(engine, "agent:main:ok", "r2", status="ok", started=engine.now(), ended=engine.now())
    _run(engine, "agent:main:bad", "r3", status="error", started=engine.now(), ended=engine.now())
    _run(engine, "agent:main:seen", "r4", status="ok", started=engine.now(), ended=engine.now())
    clock.advance(1000)
    engine.store.activity.mark_seen("agent:main:seen", engine.now())
    assert _statuses(engine) == {
        "agent:main:run": "working",
        "agent:main:ok": "done",
        "agent:main:bad": "failed",
    }
    assert _statuses(engine, ["agent:main:idle", "agent:main:ok"]) == {
        "agent:main:idle": "idle",
        "agent:main:ok": "done",
    }


def test_what_ended_before_the_seen_marks_existed_counts_as_seen(engine, clock):
    add_session(engine, "agent:main:old")
    _run(engine, "agent:main:old", "r0", status="error", started=NOW_MS - 5000, ended=NOW_MS - 4000)
    assert _statuses(engine) == {}
    assert _statuses(engine, ["agent:main:old"]) == {"agent:main:old": "idle"}


def test_a_run_without_progress_becomes_stuck_and_a_message_moves_it_on(engine, clock):
    key = add_session(engine, "agent:main:slow")
    _run(engine, key, "r1", status="running", started=engine.now())
    clock.advance(STUCK)
    assert _statuses(engine) == {key: "stuck"}
    engine.store.transcripts.append(key, {"role": "assistant", "content": "still here"})
    assert _statuses(engine) == {key: "working"}


def test_a_run_waiting_on_a_running_child_is_waiting(engine):
    parent = add_session(engine, "agent:main:main")
    child = add_session(engine, "agent:main:subagent:c1", spawnedBy=parent)
    _run(engine, parent, "p1", status="running", started=engine.now())
    _run(engine, child, "c1", status="running", started=engine.now())
    assert _statuses(engine)[parent] == "waiting"
    assert _statuses(engine)[child] == "working"


def test_a_chain_guard_refusal_makes_both_ends_loop_for_the_window(engine, clock):
    a, b = add_session(engine, "agent:main:a"), add_session(engine, "agent:main:b")
    record_refusal(
        engine, b, via="sessions_send", reason="chain", requester=a, data={"chain": [a, b, a, b], "rule": "cycle"}
    )
    record_refusal(engine, b, via="sessions_send", reason="policy says no", requester=a)  # not the chain guard
    assert _statuses(engine) == {a: "looping", b: "looping"}
    clock.advance(LOOPING_WINDOW_MS)
    assert _statuses(engine) == {}
