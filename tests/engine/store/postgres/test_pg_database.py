"""The PostgreSQL store's own: its schema versioned (a newer one refused), what is not on it yet named,
and its writes seen by a watcher's `data_version`."""

import psycopg
import pytest

from sessions_tui.engine.store.connection import StoreError
from sessions_tui.engine.store.postgres import schema
from sessions_tui.engine.store.postgres.store import PostgresStore


def test_the_schema_is_created_once_and_a_newer_one_is_refused(pg_url, tmp_path, clock):
    PostgresStore(pg_url, tmp_path, clock).close()
    again = PostgresStore(pg_url, tmp_path, clock)  # a current database: opened as it is
    again.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute(schema.VERSION).fetchone() == (schema.SCHEMA_VERSION,)
        conn.execute("UPDATE schema_version SET version = version + 1")
    with pytest.raises(StoreError, match="written by a newer sessions-tui"):
        PostgresStore(pg_url, tmp_path, clock)


def test_a_database_of_schema_1_gets_the_run_records_on_open(pg_url, tmp_path, clock):
    PostgresStore(pg_url, tmp_path, clock).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP TABLE runs, run_controls, subagent_runs, outbox, audit, send_ledger, send_ledger_state")
        conn.execute("UPDATE schema_version SET version = 1")
    store = PostgresStore(pg_url, tmp_path, clock)
    try:
        assert store.left_to_pick_up(0) is False  # reads every table of the run records
        assert store.run_controls.add_run_control("r1", "kill", None, 7) == 1
    finally:
        store.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute(schema.VERSION).fetchone() == (schema.SCHEMA_VERSION,)


def test_every_repository_of_the_store_is_on_postgresql(pg_url, tmp_path, clock):
    store = PostgresStore(pg_url, tmp_path, clock)
    try:
        for part in ("sessions", "transcripts", "runs", "outbox", "ledger", "audit", "registry", "cron", "activity"):
            assert getattr(store, part).db is store, part
        assert store.usage is not None and store.imports is not None and store.follows is not None
    finally:
        store.close()


def test_a_write_from_another_store_moves_data_version(pg_url, tmp_path, clock):
    watcher = PostgresStore(pg_url, tmp_path, clock)
    writer = PostgresStore(pg_url, tmp_path, clock)
    try:
        before = watcher.data_version()
        writer.sessions.create("agent:main:main")
        assert watcher.data_version() != before
        assert watcher.sessions.get("agent:main:main") is not None
    finally:
        writer.close()
        watcher.close()
