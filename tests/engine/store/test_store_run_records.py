"""The store's contract for the engine's run records, on both stores (`store`: SQLite and PostgreSQL):
runs and their claim, run controls, the sub-agent registry and its announce claim, the outbox and its
leases, the audit log, the send ledger, and what start-up has to pick up."""

from sessions_tui.engine.store.tables.registry import SubagentRow
from sessions_tui.engine.store.tables.runs import RunRecord

KEY = "agent:main:main"
CHILD = "agent:main:subagent:1"


def never(_pid: object) -> bool:
    return False


def always(_pid: object) -> bool:
    return True


def test_runs_are_recorded_updated_and_read_back_oldest_first(store):
    store.runs.insert_run(RunRecord("r1", KEY, created_at=10, pid=7), {"message": "hi"})
    store.runs.insert_run(RunRecord("r2", KEY, created_at=10, pid=8, lane="subagent"), {})
    store.runs.insert_run(RunRecord("r3", "agent:main:other", created_at=5), {})
    assert store.runs.get_run("r1") == RunRecord("r1", KEY, created_at=10, pid=7)
    assert store.runs.get_run("nope") is None
    assert store.runs.run_pid("r2") == 8 and store.runs.run_pid("r3") is None and store.runs.run_pid("x") is None
    assert [r.run_id for r in store.runs.live_runs(KEY)] == ["r1", "r2"]  # same time: in the order recorded
    store.runs.update_run("r1", status="ok", error=None, started_at=11, ended_at=12)
    ended = store.runs.get_run("r1")
    assert ended is not None and (ended.status, ended.started_at, ended.ended_at) == ("ok", 11, 12)
    assert [r.run_id for r in store.runs.live_runs(KEY)] == ["r2"]
    assert sorted(store.runs.unfinished_runs()) == [("r2", 8), ("r3", None)]
    assert sorted(store.run_controls.session_run_pids(KEY)) == [8]


def test_a_run_is_claimed_unless_another_live_process_runs_the_session(store, clock):
    store.runs.insert_run(RunRecord("r1", KEY, created_at=1, pid=7), {})
    store.runs.insert_run(RunRecord("r2", KEY, created_at=2, pid=8), {})
    started = store.runs.claim_run("r1", KEY, held_elsewhere=always)  # nothing else running
    assert started == clock.now_ms() and store.runs.get_run("r1").status == "running"
    assert store.runs.claim_run("r2", KEY, held_elsewhere=always) is None
    assert store.runs.get_run("r2").status == "queued"
    assert store.runs.claim_run("r2", KEY, held_elsewhere=never) == started


def test_a_run_control_is_answered_once(store):
    first = store.run_controls.add_run_control("r1", "kill", None, 41)
    second = store.run_controls.add_run_control("r2", "steer", "go left", 42)
    assert second > first > 0
    asked = store.run_controls.get_run_control(second)
    assert asked is not None and (asked.action, asked.message, asked.owner_pid, asked.done_at) == (
        "steer",
        "go left",
        42,
        None,
    )
    assert [c.id for c in store.run_controls.pending_run_controls()] == [first, second]
    assert [c.id for c in store.run_controls.pending_run_controls(41)] == [first]
    assert store.run_controls.finish_run_control(first, {"status": "ok"}) is True
    assert store.run_controls.finish_run_control(first, {"status": "late"}) is False
    done = store.run_controls.get_run_control(first)
    assert done is not None and done.result == {"status": "ok"} and done.done_at is not None
    assert [c.id for c in store.run_controls.pending_run_controls()] == [second]
    assert store.run_controls.get_run_control(999) is None


def test_the_registry_records_children_their_end_and_one_announce(store):
    for i, created in enumerate([5, 5, 9]):
        store.registry.insert_subagent_run(
            SubagentRow(f"s{i}", f"{CHILD}{i}", KEY if i < 2 else "agent:main:other", "task", created, data={"n": i})
        )
    assert store.registry.get_subagent_run("s0") == SubagentRow("s0", f"{CHILD}0", KEY, "task", 5, data={"n": 0})
    assert store.registry.get_subagent_run("nope") is None
    assert [r.run_id for r in store.registry.subagent_runs()] == ["s2", "s1", "s0"]  # newest, then last recorded
    assert [r.run_id for r in store.registry.subagent_runs(KEY, limit=1)] == ["s1"]
    assert store.registry.running_children(KEY) == 2
    store.registry.end_subagent_run("s0", ended_at=20, outcome="ok", outcome_error=None)
    assert store.registry.running_children(KEY) == 1
    assert store.registry.get_subagent_run("s0").announce_state == "pending"
    assert store.registry.claim_announce("s0", 41, held_elsewhere=never) is True
    assert store.registry.claim_announce("s0", 42, held_elsewhere=always) is False  # 41 announces it
    assert store.registry.claim_announce("nope", 42, held_elsewhere=never) is False
    store.registry.mark_announced("s0", announced_at=30, archive_at=100, data={"reply": "done"})
    assert store.registry.claim_announce("s0", 42, held_elsewhere=never) is False
    assert sorted(r.run_id for r in store.registry.unannounced_subagent_runs()) == ["s1", "s2"]
    assert store.registry.children_due_for_archive(99) == []
    assert store.registry.children_due_for_archive(100) == [f"{CHILD}0"]
    assert store.registry.get_subagent_run("s0").data == {"reply": "done"}


def _deliver(store, session_key=KEY, channel="telegram", state="pending", owner=None):
    return store.outbox.insert_delivery(
        created_at=1,
        kind="announce",
        session_key=session_key,
        channel=channel,
        target="42",
        account_id=None,
        thread_id=None,
        message="hello",
        state=state,
        data={},
        idempotency_key=f"k-{channel}-{session_key}",
        lease_owner=owner,
        lease_until=None if owner is None else 50,
    )


def test_the_outbox_leases_each_delivery_to_one_process_and_only_the_holder_writes_it(store):
    a = _deliver(store)
    b = _deliver(store, channel="nowhere")
    c = _deliver(store, owner="host-b")
    d = _deliver(store, session_key="agent:main:other")
    assert 0 < a < b < c < d
    claimed, failed = store.outbox.claim_pending_deliveries(
        owner="host-a",
        lease_until=60,
        lease_free=lambda owner, _until: owner is None,
        unsendable=lambda channel: "no such channel" if channel == "nowhere" else None,
    )
    assert [r.id for r in claimed] == [a, d] and [(r.id, why) for r, why in failed] == [(b, "no such channel")]
    refused = store.outbox.get_delivery(b)
    assert (refused.state, refused.last_error) == ("failed", "no such channel")
    assert store.outbox.get_delivery(a).lease_owner == "host-a" and store.outbox.get_delivery(c).lease_owner == "host-b"
    store.outbox.record_attempt(a, "host-b", attempts=1, last_error="not mine", lease_until=99)  # not its lease
    assert store.outbox.get_delivery(a).attempts == 0
    store.outbox.record_attempt(a, "host-a", attempts=1, last_error="timeout", lease_until=70)
    assert (store.outbox.get_delivery(a).attempts, store.outbox.get_delivery(a).lease_until) == (1, 70)
    store.outbox.finish_delivery(a, "host-a", state="delivered", attempts=2, last_error=None, delivered_at=80)
    done = store.outbox.get_delivery(a)
    assert (done.state, done.delivered_at, done.lease_owner, done.lease_until) == ("delivered", 80, None, None)
    store.outbox.release_delivery(d, "host-a")
    assert store.outbox.get_delivery(d).lease_owner is None and store.outbox.get_delivery(d).state == "pending"
    assert [r.id for r in store.outbox.deliveries()] == [d, c, b, a]
    assert [r.id for r in store.outbox.deliveries(limit=1, session_key=KEY)] == [c]
    assert store.outbox.get_delivery(999) is None


def test_the_audit_keeps_entries_newest_first(store):
    for i in range(3):
        store.audit.add_audit(
            ts=i, kind="send_refused", session_key=KEY, requester=None, via="tool", reason=f"r{i}", data={"i": i}
        )
    rows = store.audit.audit_rows(limit=2)
    assert [(r.reason, r.data) for r in rows] == [("r2", {"i": 2}), ("r1", {"i": 1})]
    assert rows[0].id > rows[1].id


def _open(store, run_id, requester, target, created_at, state="accepted", detail=None):
    store.ledger.open_send(
        run_id=run_id,
        requester=requester,
        target=target,
        message=f"to {target}",
        via="tool",
        chain=[requester or "", target],
        created_at=created_at,
        state=state,
        detail=detail,
    )


def test_the_send_ledger_appends_states_and_reads_newest_first(store):
    a, b, c = "agent:a:main", "agent:b:main", "agent:c:main"
    _open(store, "s1", a, b, 10)
    _open(store, "s2", b, c, 20, state="forbidden", detail={"why": "chain"})
    _open(store, "s3", None, a, 30)
    _open(store, "s1", a, b, 40, state="started")  # open again: a state appended
    assert store.ledger.add_send_state("s1", "announced", 50, {"ok": True}, outbox_id=7) is True
    assert store.ledger.add_send_state("nope", "announced", 50, None) is False
    entry = store.ledger.send_entry("s1")
    assert entry is not None and entry.chain == [a, b] and entry.message == f"to {b}"
    assert entry.states == [
        {"state": "accepted", "at": 10},
        {"state": "started", "at": 40},
        {"state": "announced", "at": 50, "detail": {"ok": True}},
    ]
    assert store.ledger.send_of_delivery(7) == "s1" and store.ledger.send_of_delivery(8) is None
    entries = store.ledger.send_entries
    assert [e.run_id for e in entries(session=None, state=None, limit=10, before=None)] == ["s3", "s2", "s1"]
    assert [e.run_id for e in entries(session=None, state=None, limit=1, before=30)] == ["s2"]
    assert [e.run_id for e in entries(session=a, state=None, limit=10, before=None)] == ["s3", "s1"]
    assert [e.run_id for e in entries(session=b, state="forbidden", limit=10, before=None)] == ["s2"]
    assert [e.run_id for e in entries(session=None, state="started", limit=10, before=None)] == ["s1"]
    assert entries(session=None, state="accepted", limit=10, before=10) == []


def test_a_send_flow_is_ended_once_by_the_process_running_it(store):
    _open(store, "s1", "agent:a:main", "agent:b:main", 10)
    store.ledger.set_send_flow("s1", 41)
    assert store.ledger.send_flows() == [("s1", 41)]
    assert store.ledger.end_send_flow("s1", 42, "interrupted", 20, None) is False  # not 42's flow
    assert store.ledger.end_send_flow("s1", 41, "interrupted", 20, {"host": "gone"}) is True
    assert store.ledger.end_send_flow("s1", 41, "interrupted", 21, None) is False
    assert store.ledger.send_flows() == []
    assert store.ledger.send_entry("s1").states[-1] == {"state": "interrupted", "at": 20, "detail": {"host": "gone"}}
    interrupted = store.ledger.send_entries(session=None, state="interrupted", limit=5, before=None)
    assert [e.run_id for e in interrupted] == ["s1"]


def test_what_start_up_picks_up_is_seen_in_one_read(store):
    assert store.left_to_pick_up(0) is False
    store.runs.insert_run(RunRecord("r1", KEY, created_at=1), {})
    assert store.left_to_pick_up(0) is True
    store.runs.update_run("r1", status="ok", error=None, started_at=1, ended_at=2)
    assert store.left_to_pick_up(0) is False
    store.sessions.create(CHILD)
    store.registry.insert_subagent_run(SubagentRow("s1", CHILD, KEY, "task", 1, announce_state="done", archive_at=9))
    assert store.left_to_pick_up(8) is False
    assert store.left_to_pick_up(9) is True  # a child due for archiving
