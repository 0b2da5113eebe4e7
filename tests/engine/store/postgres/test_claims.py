"""Due rows claimed across hosts with `FOR UPDATE SKIP LOCKED`: two hosts claiming 1,000 rows at once
handle each exactly once and lose none; a host claiming while another's claim is still open gets other
rows without waiting; a dead host's claim is claimable again after the timeout; a failure hands rows back."""

from __future__ import annotations

import threading
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from pg_hosts import two_pools
from sessions_tui.engine.store.postgres import claims
from sessions_tui.engine.store.postgres.claims import Claimable, Claims

NOW = 1_776_081_600_000
TIMEOUT_MS = 60_000
OUTBOX = Claimable("deliveries", key="id", due="due_at")


def _deliveries(url: str, count: int, due: int = NOW) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE deliveries (id bigserial PRIMARY KEY, due_at bigint NOT NULL, body text)")
        claims.create(conn, OUTBOX)
        claims.create(conn, OUTBOX)  # twice: nothing changes
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO deliveries (due_at, body) VALUES (%s, %s)", [(due, f"m{i}") for i in range(count)]
            )


def test_two_hosts_claiming_1000_rows_handle_each_exactly_once(pg_url: str) -> None:
    _deliveries(pg_url, 1000)
    with two_pools(pg_url) as (pool_a, pool_b):
        start = threading.Barrier(2)
        handled: dict[str, list[int]] = {"a": [], "b": []}

        def work(name: str, pool: ConnectionPool[Any]) -> None:
            mine: Claims[int] = Claims(pool, OUTBOX, TIMEOUT_MS)
            start.wait()
            while batch := mine.claim(name, NOW, limit=20):
                handled[name].extend(mine.done(name, batch, NOW))

        threads = [threading.Thread(target=work, args=(n, p)) for n, p in (("a", pool_a), ("b", pool_b))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        every = handled["a"] + handled["b"]
        assert len(every) == 1000 and len(set(every)) == 1000  # each once, none lost
        assert Claims[int](pool_a, OUTBOX).pending(NOW) == 0
        with pool_a.connection() as conn:
            done_by = dict(conn.execute("SELECT claimed_by, count(*) FROM deliveries GROUP BY claimed_by").fetchall())
        assert done_by == {name: len(keys) for name, keys in handled.items() if keys}


def test_a_claim_in_progress_is_skipped_not_waited_for(pg_url: str) -> None:
    _deliveries(pg_url, 10)
    with psycopg.connect(pg_url) as conn_a, psycopg.connect(pg_url, autocommit=True) as conn_b:
        a: Claims[int] = Claims(conn_a, OUTBOX, TIMEOUT_MS)
        b: Claims[int] = Claims(conn_b, OUTBOX, TIMEOUT_MS)
        with conn_a.transaction():
            mine = a.claim("A", NOW, limit=4)  # A's transaction holds its rows' locks …
            theirs = b.claim("B", NOW, limit=10)  # … and B, meanwhile, takes the rest at once
        assert mine == [1, 2, 3, 4] and theirs == [5, 6, 7, 8, 9, 10]


def test_a_dead_hosts_claim_is_claimable_after_the_timeout(pg_url: str) -> None:
    _deliveries(pg_url, 5)
    with two_pools(pg_url) as (pool_a, pool_b):
        a: Claims[int] = Claims(pool_a, OUTBOX, TIMEOUT_MS)
        b: Claims[int] = Claims(pool_b, OUTBOX, TIMEOUT_MS)
        assert a.claim("A", NOW, limit=3) == [1, 2, 3]  # then A dies
        assert b.claim("B", NOW + TIMEOUT_MS - 1, limit=10) == [4, 5]
        assert b.claim("B", NOW + TIMEOUT_MS, limit=10) == [1, 2, 3]  # A's claim timed out
        assert a.done("A", [1, 2, 3], NOW + TIMEOUT_MS) == []  # a late A marks nothing
        assert sorted(b.done("B", [1, 2, 3, 4, 5], NOW + TIMEOUT_MS)) == [1, 2, 3, 4, 5]
        assert b.claim("B", NOW + 10 * TIMEOUT_MS) == []


def test_a_failure_hands_rows_back_now_or_at_a_retry_time(pg_url: str) -> None:
    _deliveries(pg_url, 3)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        host: Claims[int] = Claims(conn, OUTBOX, TIMEOUT_MS)
        assert host.claim("A", NOW) == [1, 2, 3]
        assert host.release("B", [1]) == []  # not B's to release
        assert host.release("A", [1]) == [1]  # due again at once
        assert host.release("A", [2], retry_at=NOW + 5_000) == [2]  # backed off
        assert host.claim("A", NOW) == [1]
        assert host.pending(NOW) == 2 and host.pending(NOW + 5_000) == 3
        assert host.claim("A", NOW + 5_000) == [2]
