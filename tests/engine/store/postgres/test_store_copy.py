"""`store copy`'s engine part: a store with sessions, transcripts, runs, the ledger and cron jobs moved SQLite →
PostgreSQL → SQLite, every table's count and the data equal; identities moved past the copied ids; a target
holding sessions refused."""

import pytest

from conftest import NOW_MS
from sessions_tui.engine.demo.state import seed_demo
from sessions_tui.engine.store.copy import TABLES, CopyRefused, copy_store
from sessions_tui.engine.store.postgres.store import PostgresStore
from sessions_tui.engine.store.store import Store

SPEC = {"name": "n", "schedule": {"kind": "every", "everyMs": 60_000}, "payload": {"kind": "agentTurn"}}


def _filled(make_engine, tmp_path) -> Store:
    engine = make_engine(state=tmp_path / "from")
    seed_demo(engine, None)
    store = engine.store
    store.ledger.open_send(
        run_id="send-1",
        requester="agent:main:main",
        target="agent:b:main",
        message="hi",
        via="tool",
        chain=["agent:main:main", "agent:b:main"],
        created_at=NOW_MS,
        state="accepted",
        detail=None,
    )
    store.ledger.add_send_state("send-1", "announced", NOW_MS + 5, {"ok": True})
    store.cron.insert_job("job-1", SPEC, True, NOW_MS + 60_000, NOW_MS)
    return store


def test_a_store_goes_to_postgresql_and_back_unchanged(make_engine, tmp_path, pg_url, clock):
    source = _filled(make_engine, tmp_path)
    pg = PostgresStore(pg_url, tmp_path / "from", clock)
    back = Store(tmp_path / "back", clock)
    try:
        there = copy_store(source, pg, batch_rows=7)
        assert there.mismatched == () and [c.table for c in there.counts] == list(TABLES)
        counts = {c.table: c.source for c in there.counts}
        assert all(counts[t] > 0 for t in ("sessions", "transcript", "runs", "send_ledger", "cron_jobs"))
        again = copy_store(pg, back)
        assert again.mismatched == () and {c.table: c.target for c in again.counts} == counts
        for store in (pg, back):
            assert store.ledger.send_entry("send-1") == source.ledger.send_entry("send-1")
            assert store.cron.get_job("job-1") == source.cron.get_job("job-1")
        with source.read() as conn:
            keys = [row[0] for row in conn.execute("SELECT key FROM sessions ORDER BY key")]
            lines = [
                tuple(r) for r in conn.execute("SELECT rowid, session_id, seq, line FROM transcript ORDER BY rowid")
            ]
        for store in (pg, back):
            with store.read() as conn:
                got = [
                    tuple(r) for r in conn.execute("SELECT rowid, session_id, seq, line FROM transcript ORDER BY rowid")
                ]
            assert got == lines
            for k in keys:
                assert store.transcripts.history(k) == source.transcripts.history(k)
        # an identity moved past the copied ids: a new run gets a new rowid
        with pg.write() as conn:
            top = conn.execute("SELECT max(rowid) FROM runs").fetchone()[0]
            conn.execute(
                "INSERT INTO runs (run_id, session_key, status, created_at) VALUES ('new-run', 'k', 'queued', 1)"
            )
            assert conn.execute("SELECT rowid FROM runs WHERE run_id = 'new-run'").fetchone()[0] > top
    finally:
        pg.close()
        back.close()


def test_a_target_holding_sessions_is_refused(make_engine, tmp_path, pg_url, clock):
    source = _filled(make_engine, tmp_path)
    pg = PostgresStore(pg_url, tmp_path / "from", clock)
    try:
        copy_store(source, pg)
        with pytest.raises(CopyRefused, match=r"already holds \d+ sessions"):
            copy_store(source, pg)
    finally:
        pg.close()
