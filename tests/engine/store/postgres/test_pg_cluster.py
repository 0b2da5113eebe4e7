"""The tests' throwaway PostgreSQL server: it starts, takes connections on loopback, gives each test a
database of its own, and what one test writes another does not see."""

from __future__ import annotations

import psycopg


def test_a_test_gets_a_fresh_database_on_a_running_server(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT current_setting('server_version_num')::int").fetchone()[0] >= 150000
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone() == (0,)
        conn.execute("CREATE TABLE mine (n int)")


def test_another_test_does_not_see_the_first_ones_tables(pg_url: str) -> None:
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE tablename = 'mine'").fetchone() == (0,)
