"""The session table's pages on PostgreSQL: a text filter of three characters or more is looked up in
the trigram index where the server has `pg_trgm`, and the same sessions are found without it; each sort
reads its column's index; a database of schema 4 gets both once opened; a count cancelled while the
server runs it is stopped there."""

import threading

from sessions_tui.engine.store.browsing.browse import SessionFilter
from sessions_tui.engine.store.postgres import schema
from sessions_tui.engine.store.postgres.browse import PgBrowseRepository
from sessions_tui.engine.store.postgres.store import PostgresStore


def _plan(store, flt, order_by="updated"):  # type: ignore[no-untyped-def]
    """The plan of the keyset page's query for `flt`."""
    browse = store.browse
    with store.read() as conn:
        where, args, _ = browse._where(conn, flt)
        column = schema.SORTED[list(("updated", "model")).index(order_by)]
        sql = f"SELECT {column}, key FROM sessions WHERE {' AND '.join(where)} ORDER BY {column} DESC, key DESC LIMIT 5"
        return "\n".join(r[0] for r in conn.execute(f"EXPLAIN {sql}", args))


def test_the_trigram_index_narrows_and_its_absence_finds_the_same(pg_url, tmp_path, clock):
    store = PostgresStore(pg_url, tmp_path, clock)
    try:
        for i in range(30):
            store.sessions.create(f"agent:main:discord:group:g{i}", {"label": f"Team {i}", "model": "gpt-5"})
        store.sessions.create("agent:main:discord:group:ops", {"displayName": "Deploy Room"})
        with store.write() as conn:  # enough sessions for the planner to tell a rare needle
            conn.execute(
                "INSERT INTO sessions (key, agent_id, session_id, created_at, updated_at, label, rest, kind, "
                "channel, mirror_path, entry) SELECT 'agent:ops:discord:group:x' || i, 'ops', 'sid-' || i, i, i, "
                "'Crew ' || i, 'discord:group:x' || i, 'group', 'discord', 'x.jsonl', '{}' "
                "FROM generate_series(1, 5000) AS i"
            )
            conn.execute("ANALYZE sessions")
        with store.read() as conn:
            assert conn.execute("SELECT to_regclass('sessions_search')").fetchone()[0] is not None
        flt = SessionFilter(search="ploy ro")
        assert "sessions_search" in _plan(store, flt)
        assert "sessions_search" not in _plan(store, SessionFilter(search="ro"))  # too short for trigrams
        assert "sessions_sort_updated_at" in _plan(store, SessionFilter())
        assert "sessions_sort_sort_model" in _plan(store, SessionFilter(), "model")
        found = {
            n: [s.key for s in store.browse.keyset(SessionFilter(search=n))[0]] for n in ("ploy ro", "TEAM 1", "t")
        }
        assert found["ploy ro"] == ["agent:main:discord:group:ops"] and len(found["TEAM 1"]) == 11
        with store.write() as conn:
            conn.execute("DROP INDEX sessions_search")
        plain = PgBrowseRepository(store)  # a database without `pg_trgm`: every row tested
        assert {n: [s.key for s in plain.keyset(SessionFilter(search=n))[0]] for n in found} == found
        assert plain.count(SessionFilter(search="TEAM 1")) == 11 and not plain._trigrams
    finally:
        store.close()


def test_a_schema_4_database_gets_the_browse_indexes(pg_url, tmp_path, clock):
    old = PostgresStore(pg_url, tmp_path, clock)
    old.sessions.create("agent:main:discord:group:dev", {"label": "Dev Chat"})
    with old.write() as conn:  # as schema 4 left it
        conn.execute("DROP INDEX sessions_search")
        for column in schema.SORTED:
            conn.execute(f"DROP INDEX sessions_sort_{column}")
        conn.execute("UPDATE schema_version SET version = 4 WHERE id = 1")
    old.close()
    store = PostgresStore(pg_url, tmp_path, clock)
    try:
        with store.read() as conn:
            indexes = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'sessions'")}
        assert {"sessions_search", *(f"sessions_sort_{c}" for c in schema.SORTED)} <= indexes
        assert [s.key for s in store.browse.keyset(SessionFilter(search="dev chat"))[0]] == [
            "agent:main:discord:group:dev"
        ]
    finally:
        store.close()


def test_a_count_cancelled_while_it_runs_is_stopped(pg_url, tmp_path, clock):
    """The count waits on a lock another transaction holds: only the server's cancel can end it."""
    store = PostgresStore(pg_url, tmp_path, clock)
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        with store.write() as conn:
            conn.execute("LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE")
            locked.set()
            release.wait(60)

    holder = threading.Thread(target=hold)
    try:
        store.sessions.create("agent:main:main")
        holder.start()
        assert locked.wait(60)
        asked = []

        def cancelled() -> bool:  # wanted when it begins, not after
            asked.append(1)
            return len(asked) > 1

        assert store.browse.count(SessionFilter(), cancelled=cancelled) == -1
        release.set()
        holder.join()
        assert store.browse.count(SessionFilter(), cancelled=lambda: False) == 1  # the connection is fine after
    finally:
        release.set()
        if holder.is_alive():
            holder.join()
        store.close()
