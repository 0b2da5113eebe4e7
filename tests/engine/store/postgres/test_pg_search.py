"""Search on PostgreSQL's own: a database of schema 1 (no `tsvector` yet) opened by this version finds
the lines it already held, and a query's words reach `to_tsquery` quoted, never as its syntax."""

from sessions_tui.engine.store.postgres import schema
from sessions_tui.engine.store.postgres.store import PostgresStore
from sessions_tui.engine.store.postgres.text_search import match_words, ts_query
from sessions_tui.engine.store.tables.text_index import TextQuery, fts_query


def test_a_schema_1_database_is_searchable_once_opened(pg_url, tmp_path, clock):
    old = PostgresStore(pg_url, tmp_path, clock)
    old.sessions.create("agent:main:main")
    old.transcripts.append("agent:main:main", {"role": "user", "content": "written before search"})
    with old.write() as conn:  # as schema 1 left it
        conn.execute("ALTER TABLE transcript_text DROP COLUMN words, DROP COLUMN sids")
        conn.execute("UPDATE schema_version SET version = 1 WHERE id = 1")
    old.close()
    store = PostgresStore(pg_url, tmp_path, clock)
    try:
        hits = store.text_index.search_text(TextQuery(match=fts_query("before"), limit=5)).hits
        assert [h.snippet for h in hits] == ["written before search"]
        with store.read() as conn:
            assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == schema.SCHEMA_VERSION
    finally:
        store.close()


def test_words_round_trip_and_are_quoted():
    words = ['say "hi"', "it's", "a\\b", "x:*"]
    assert match_words(fts_query(" ".join(words))) == ["say", '"hi"', "it's", "a\\b", "x:*"]
    assert ts_query(["it's", "a\\b"], prefix_last=True) == "'it''s' & 'a\\\\b':*"
    assert ts_query([]) == ""
