"""Claims by several hosts at once (issue 32): a store's claims of deliveries, announces and due jobs read
their rows `FOR UPDATE SKIP LOCKED` under the write lock held shared, so two hosts claiming together each
take other rows, and every row is claimed exactly once."""

import threading

from sessions_tui.engine.store.connection import CLAIM
from sessions_tui.engine.store.postgres.store import PostgresStore

DELIVERIES = 300


def pending(store: PostgresStore, count: int) -> None:
    for n in range(count):
        store.outbox.insert_delivery(
            created_at=n,
            kind="announce",
            session_key=None,
            channel="ops",
            target=None,
            account_id=None,
            thread_id=None,
            message=f"m{n}",
            state="pending",
            data={},
            idempotency_key=f"k{n}",
            lease_owner=None,
            lease_until=None,
        )


def test_two_hosts_claiming_at_once_take_every_delivery_once(pg_stores):
    a = pg_stores("a")
    b = pg_stores("b")
    pending(a, DELIVERIES)
    start = threading.Barrier(2)
    claimed: dict[str, list[int]] = {"a": [], "b": []}

    def claim(name: str, store: PostgresStore) -> None:
        start.wait()
        for _ in range(3):  # each host keeps claiming what is left
            leased, _failed = store.outbox.claim_pending_deliveries(
                owner=name,
                lease_until=10**15,
                lease_free=lambda owner, _until: owner is None,
                unsendable=lambda _channel: None,
            )
            claimed[name] += [row.id for row in leased]

    threads = [threading.Thread(target=claim, args=(n, s)) for n, s in (("a", a), ("b", b))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not set(claimed["a"]) & set(claimed["b"])  # none claimed twice
    assert len(claimed["a"]) + len(claimed["b"]) == DELIVERIES  # none left behind
    owners = {row.id: row.lease_owner for row in a.outbox.deliveries(limit=DELIVERIES * 2)}
    assert all(owners[i] == "a" for i in claimed["a"]) and all(owners[i] == "b" for i in claimed["b"])


def test_a_claim_skips_the_rows_another_host_is_claiming(pg_stores):
    a = pg_stores("a")
    b = pg_stores("b")
    pending(a, 2)
    with a.write(claim=True) as conn:  # host A is claiming: its rows are locked until it commits
        held = conn.execute(f"SELECT id FROM outbox WHERE id = 1 {CLAIM}").fetchall()
        assert [row[0] for row in held] == [1]
        leased, _ = b.outbox.claim_pending_deliveries(
            owner="b",
            lease_until=10**15,
            lease_free=lambda owner, _until: owner is None,
            unsendable=lambda _c: None,
        )
        assert [row.id for row in leased] == [2]  # B took the other, without waiting for A
