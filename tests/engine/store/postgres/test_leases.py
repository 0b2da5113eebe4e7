"""One host per session at a time: two hosts racing for the same sessions each get the ones they won
and are told the other's; a lease not renewed for its time is taken over (the dead host named once,
to end its runs as interrupted), and the late host cannot renew it."""

from __future__ import annotations

import threading
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from pg_hosts import two_pools
from sessions_tui.engine.run_end import INTERRUPTED
from sessions_tui.engine.store.postgres import leases
from sessions_tui.engine.store.postgres.leases import Leases, Take, host_id

NOW = 1_776_081_600_000
LEASE_MS = 10_000


def test_two_hosts_racing_for_100_sessions_leave_each_one_owner(pg_url: str) -> None:
    keys = [f"agent:main:s{i}" for i in range(100)]
    with two_pools(pg_url) as (pool_a, pool_b):
        leases.create(pool_a)
        leases.create(pool_b)  # again, from the other host: nothing changes
        start = threading.Barrier(2)
        results: dict[str, list[Take]] = {"a": [], "b": []}

        def race(name: str, pool: ConnectionPool[Any], order: list[str]) -> None:
            mine = Leases(pool, LEASE_MS)
            start.wait()
            for key in order:
                results[name].append(mine.take(key, f"host-{name}", NOW))

        threads = [
            threading.Thread(target=race, args=("a", pool_a, keys)),
            threading.Thread(target=race, args=("b", pool_b, keys[::-1])),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

        by_key: dict[str, list[Take]] = {}
        for take in results["a"] + results["b"]:
            by_key.setdefault(take.lease.session_key, []).append(take)
        assert sorted(by_key) == sorted(keys)
        for key, takes in by_key.items():
            won = [t for t in takes if t.ours]
            assert len(won) == 1, key  # exactly one host got it …
            lost = [t for t in takes if not t.ours]
            assert [t.lease.host for t in lost] == [won[0].lease.host]  # … and the other was told who
            assert all(t.taken_from is None for t in takes)
        held_a, held_b = Leases(pool_a).held("host-a"), Leases(pool_a).held("host-b")
        assert sorted(held_a + held_b) == sorted(keys) and not set(held_a) & set(held_b)


def test_a_lease_not_renewed_is_taken_over_after_its_time(pg_url: str) -> None:
    with two_pools(pg_url) as (pool_a, pool_b):
        leases.create(pool_a)
        a, b = Leases(pool_a, LEASE_MS), Leases(pool_b, LEASE_MS)
        assert a.take("s", "A", NOW) == Take(leases.Lease("s", "A", NOW, NOW + LEASE_MS), ours=True)
        assert a.take("s", "A", NOW + 1_000).lease.expires_at == NOW + 1_000 + LEASE_MS  # ours: renewed
        assert a.renew("s", "A", NOW + 5_000)  # A renews: good until NOW + 15,000
        held = b.take("s", "B", NOW + 14_999)
        assert not held.ours and held.lease.host == "A"
        assert b.holder("s", NOW + 14_999) == held.lease
        taken = b.take("s", "B", NOW + 15_000)  # A went silent: the lease lapsed
        assert taken.ours and taken.taken_from == "A" and taken.lease.taken_at == NOW + 15_000
        assert not a.renew("s", "A", NOW + 15_001)  # the late host learns it lost the session
        assert not a.release("s", "A")
        assert b.take("s", "B", NOW + 16_000).taken_from is None  # B's own again: no one to end
        assert b.release("s", "B")
        assert a.holder("s", NOW + 16_000) is None
        assert a.take("s", "A", NOW + 16_000).ours  # released: free


def test_lapsed_leases_are_reaped_once_across_hosts(pg_url: str) -> None:
    with two_pools(pg_url) as (pool_a, pool_b):
        leases.create(pool_a)
        a, b = Leases(pool_a, LEASE_MS), Leases(pool_b, LEASE_MS)
        for i in range(50):
            a.take(f"dead{i}", "dead-host", NOW)
        a.take("alive", "A", NOW + 5_000)
        later = NOW + LEASE_MS
        assert [lease.session_key for lease in a.expired(later)] == sorted(f"dead{i}" for i in range(50))
        start = threading.Barrier(2)
        reaped: dict[str, list[leases.Lease]] = {}

        def reap(name: str, mine: Leases) -> None:
            start.wait()
            got = reaped.setdefault(name, [])
            while batch := mine.reap(later, limit=7):
                got.extend(batch)

        threads = [threading.Thread(target=reap, args=(n, h)) for n, h in (("a", a), ("b", b))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        keys = [lease.session_key for lease in reaped["a"] + reaped["b"]]
        assert sorted(keys) == sorted(f"dead{i}" for i in range(50))  # each once, none left
        assert {lease.host for lease in reaped["a"] + reaped["b"]} == {"dead-host"}
        assert a.expired(later) == [] and a.held("A") == ["alive"]
        assert not a.renew("dead0", "dead-host", later + 1)


def test_a_take_in_the_callers_transaction_goes_with_it(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        leases.create(conn)
        mine = Leases(conn, LEASE_MS)
        with conn.transaction() as caller:
            assert mine.take("s", "A", NOW).ours
            raise psycopg.Rollback(caller)  # the run it was for was not recorded: no lease either
        assert mine.holder("s", NOW) is None
        with conn.transaction():
            assert mine.take("s", "A", NOW).ours
        assert mine.holder("s", NOW) is not None


def test_a_host_id_is_this_process_and_unique_to_it() -> None:
    import os
    import socket

    name, pid, rand = host_id().rsplit(":", 2)
    assert name == socket.gethostname() and pid == str(os.getpid()) and len(rand) == 8
    assert host_id() == host_id()


def test_a_dead_hosts_sessions_taken_over_by_two_hosts_end_its_runs_once(pg_url: str) -> None:
    keys = [f"agent:main:s{i}" for i in range(100)]
    with two_pools(pg_url) as (pool_a, pool_b):
        leases.create(pool_a)
        with pool_a.connection() as conn:
            conn.execute("CREATE TABLE runs (session_key text PRIMARY KEY, status text NOT NULL, error text)")
            for key in keys:
                conn.execute("INSERT INTO runs VALUES (%s, 'running', NULL)", (key,))
        dead = Leases(pool_a, LEASE_MS)
        for key in keys:
            dead.take(key, "dead-host", NOW)
        later = NOW + LEASE_MS
        start = threading.Barrier(2)
        ended: dict[str, int] = {"a": 0, "b": 0}
        took: dict[str, set[str]] = {"a": set(), "b": set()}

        def take_over(name: str, pool: ConnectionPool[Any], order: list[str]) -> None:
            start.wait()
            for key in order:
                with pool.connection() as conn, conn.transaction():
                    taken = Leases(conn, LEASE_MS).take(key, name, later)
                    if taken.ours:
                        took[name].add(key)
                    if taken.taken_from is not None:  # the dead host's runs there end with the take
                        cur = conn.execute(
                            "UPDATE runs SET status = 'error', error = %s"
                            " WHERE session_key = %s AND status IN ('queued', 'running')",
                            (INTERRUPTED, key),
                        )
                        ended[name] += cur.rowcount

        threads = [
            threading.Thread(target=take_over, args=("a", pool_a, keys)),
            threading.Thread(target=take_over, args=("b", pool_b, keys[::-1])),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(took["a"] | took["b"]) == sorted(keys) and not took["a"] & took["b"]
        assert ended["a"] + ended["b"] == 100  # each run ended once, by the host that took its session
        with pool_a.connection() as conn:
            assert conn.execute("SELECT status, error, count(*) FROM runs GROUP BY 1, 2").fetchall() == [
                ("error", INTERRUPTED, 100)
            ]
