"""The send ledger's store part and API (engine/messaging/ledger.py, engine/store/tables/ledger.py): entries, states,
filters, paging, events, and the schema 5 → 6 migration."""

from __future__ import annotations

import asyncio
import sqlite3

from sessions_tui.engine.events import DeliveryChanged, RunStarted, SendLedgerChanged
from sessions_tui.engine.store.schema import _SCHEMA, SCHEMA_VERSION
from sessions_tui.engine.store.store import Store

A = "agent:main:discord:group:a"
B = "agent:main:discord:group:b"
C = "agent:main:slack:channel:c"


def _open(engine, run_id, requester, target, **kw):
    engine.ledger.open(
        run_id=run_id,
        requester=requester,
        target=target,
        message=kw.pop("message", f"to {target}"),
        via=kw.pop("via", "agent"),
        chain=kw.pop("chain", [k for k in (requester, target) if k]),
        **kw,
    )


def test_an_entry_records_its_states_in_order_with_the_clock(engine, clock):
    _open(engine, "r1", A, B, message="hello")
    clock.advance(5)
    engine.ledger.mark("r1", "started")
    clock.advance(10)
    engine.ledger.mark("r1", "replied", {"text": "hi back"})
    entry = engine.ledger.entry("r1")
    assert entry is not None
    assert (entry.requester, entry.target, entry.message, entry.via, entry.chain) == (A, B, "hello", "agent", [A, B])
    assert [(s.state, s.at - entry.created_at, s.detail) for s in entry.states] == [
        ("accepted", 0, None),
        ("started", 5, None),
        ("replied", 15, {"text": "hi back"}),
    ]
    assert entry.last_state == "replied"


def test_marking_an_unknown_run_does_nothing(engine):
    seen = []
    engine.events.subscribe(seen.append)
    engine.ledger.mark("nobody", "replied", {"text": "x"})
    assert engine.ledger.entry("nobody") is None and engine.ledger.entries() == [] and seen == []


def test_open_and_mark_publish_send_ledger_changed(engine):
    seen = []
    engine.events.subscribe(lambda e: seen.append((e.run_id, e.state)) if isinstance(e, SendLedgerChanged) else None)
    _open(engine, "r1", A, B)
    engine.ledger.mark("r1", "timeout")
    assert seen == [("r1", "accepted"), ("r1", "timeout")]


def test_a_forbidden_send_opens_in_that_state(engine):
    detail = {"error": "agent-to-agent chain limit reached: a → b → a", "chain": [A, B, A]}
    _open(engine, "r1", A, B, state="forbidden", detail=detail, chain=[A, B, A])
    [entry] = engine.ledger.entries(state="forbidden")
    assert entry.last_state == "forbidden" and entry.states[0].detail == detail and entry.chain == [A, B, A]
    assert engine.ledger.entries(state="accepted") == []


def test_entries_newest_first_filtered_by_session_and_state_and_paged(engine, clock):
    for i, (req, tgt) in enumerate([(A, B), (B, C), (None, A), (C, A), (A, C)]):
        clock.advance(1000)
        _open(engine, f"r{i}", req, tgt)
        if i % 2 == 0:
            engine.ledger.mark(f"r{i}", "pingpong", {"turn": 1, "speaker": tgt, "text": "x"})
            engine.ledger.mark(f"r{i}", "pingpong", {"turn": 2, "speaker": req, "text": "REPLY_SKIP"})
    ids = lambda entries: [e.run_id for e in entries]  # noqa: E731
    assert ids(engine.ledger.entries()) == ["r4", "r3", "r2", "r1", "r0"]
    assert ids(engine.ledger.entries(session=A)) == ["r4", "r3", "r2", "r0"]
    assert ids(engine.ledger.entries(session=C)) == ["r4", "r3", "r1"]
    assert ids(engine.ledger.entries(state="pingpong")) == ["r4", "r2", "r0"]
    assert ids(engine.ledger.entries(state="pingpong", session=B)) == ["r0"]
    assert ids(engine.ledger.entries(limit=2)) == ["r4", "r3"]
    page = engine.ledger.entries(limit=2)
    assert ids(engine.ledger.entries(limit=2, before=page[-1].created_at)) == ["r2", "r1"]
    assert ids(engine.ledger.entries(session=A, limit=1, before=page[-1].created_at)) == ["r2"]
    assert ids(engine.ledger.entries(session="agent:main:nobody")) == []


def test_a_self_send_is_listed_once_for_its_session(engine):
    _open(engine, "r1", A, A)
    assert [e.run_id for e in engine.ledger.entries(session=A)] == ["r1"]


def test_the_run_start_marks_started_and_the_delivery_outcome_marks_the_announce(engine, clock):
    _open(engine, "r1", A, B)
    _open(engine, "r2", A, C)
    engine.events.publish(RunStarted(ts=clock.now_ms() + 7, run_id="r1", session_key=B))
    engine.events.publish(RunStarted(ts=clock.now_ms() + 8, run_id="r1", session_key=B))  # only once
    engine.events.publish(RunStarted(ts=clock.now_ms(), run_id="other", session_key=B))
    engine.ledger.mark("r1", "announce", {"text": "done", "outboxId": 41, "delivery": "pending"})
    engine.ledger.mark("r2", "announce", {"text": "done", "outboxId": 42, "delivery": "pending"})
    engine.events.publish(DeliveryChanged(ts=clock.now_ms(), outbox_id=41, state="delivered"))
    engine.events.publish(DeliveryChanged(ts=clock.now_ms(), outbox_id=42, state="failed", error="HTTP 500"))
    engine.events.publish(DeliveryChanged(ts=clock.now_ms(), outbox_id=43, state="failed", error="not ours"))
    one, two = engine.ledger.entry("r1"), engine.ledger.entry("r2")
    assert [s.state for s in one.states] == ["accepted", "started", "announce", "delivered"]
    assert one.states[1].at == one.created_at + 7 and one.states[-1].detail == {"outboxId": 41}
    assert [s.state for s in two.states] == ["accepted", "announce", "delivery_failed"]
    assert two.states[-1].detail == {"outboxId": 42, "error": "HTTP 500"}


def test_entries_survive_a_reopened_store(make_engine, tmp_path):
    first = make_engine(state=tmp_path / "s")
    _open(first, "r1", A, B, message="kept")
    first.ledger.mark("r1", "replied", {"text": "yes"})
    first.close()
    again = make_engine(state=tmp_path / "s")
    assert [s.state for s in again.ledger.entry("r1").states] == ["accepted", "replied"]


def test_a_schema_7_file_gets_the_flow_owner_column(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    conn = sqlite3.connect(state / "sessions.sqlite3")
    schema_7 = _SCHEMA.replace("outbox_id INTEGER,\n    flow_pid INTEGER\n", "outbox_id INTEGER\n")
    assert "flow_pid" not in schema_7
    conn.executescript(schema_7)
    conn.execute(
        "INSERT INTO send_ledger (run_id, target, message, via, created_at) VALUES ('r1', ?, 'm', 'owner', 1)", (B,)
    )
    conn.execute("PRAGMA user_version=7")
    conn.commit()
    conn.close()
    store = Store(state)
    try:
        with store.read() as c:
            assert c.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
            assert "send_ledger_in_flow" in {r[0] for r in c.execute("SELECT name FROM sqlite_master")}
        assert store.ledger.send_flows() == []
        store.ledger.set_send_flow("r1", 4242)
        assert store.ledger.send_flows() == [("r1", 4242)]
    finally:
        store.close()


def test_a_schema_5_file_gets_the_ledger_tables(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    conn = sqlite3.connect(state / "sessions.sqlite3")
    conn.executescript(_SCHEMA.split("CREATE TABLE IF NOT EXISTS send_ledger (")[0])
    conn.execute("PRAGMA user_version=5")
    conn.commit()
    conn.close()
    store = Store(state)
    try:
        with store.read() as c:
            assert c.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
            names = {r[0] for r in c.execute("SELECT name FROM sqlite_master")}
        assert {"send_ledger", "send_ledger_state", "send_ledger_by_target", "send_ledger_by_requester"} <= names
        store.ledger.open_send(
            run_id="r1", requester=None, target=B, message="m", via="owner", chain=[B], created_at=1, state="accepted",
            detail=None,
        )  # fmt: skip
        assert [r.run_id for r in store.ledger.send_entries(session=B, state="accepted", limit=10, before=None)] == [
            "r1"
        ]
    finally:
        store.close()


async def test_in_a_loop_states_are_written_together_at_the_next_turn(engine):
    seen = []
    engine.events.subscribe(lambda e: seen.append(e.state) if isinstance(e, SendLedgerChanged) else None)
    _open(engine, "r1", A, B)
    engine.ledger.mark("r1", "started")
    engine.ledger.mark("r1", "replied", {"text": "ok"})
    assert engine.store.ledger.send_entry("r1") is None and seen == []  # not written yet
    await asyncio.sleep(0)  # the loop's next turn
    assert [s["state"] for s in engine.store.ledger.send_entry("r1").states] == ["accepted", "started", "replied"]
    assert seen == ["accepted", "started", "replied"]


async def test_a_read_or_close_writes_what_is_pending_first(make_engine, tmp_path):
    engine = make_engine(state=tmp_path / "s")
    _open(engine, "r1", A, B)
    assert [e.run_id for e in engine.ledger.entries()] == ["r1"]
    engine.ledger.mark("r1", "timeout")
    engine.close()
    again = make_engine(state=tmp_path / "s")
    assert again.ledger.entry("r1").last_state == "timeout"
