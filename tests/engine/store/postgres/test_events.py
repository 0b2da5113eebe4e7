"""The events table across hosts: each session's events numbered in order, readers going on from their
position never skip an event committed late, and a reader on another host gets every event in order
whether the notifications arrive, are dropped (a later wake or the poll brings them) or never come."""

from __future__ import annotations

import threading
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from pg_hosts import two_pools
from sessions_tui.engine.store.postgres import events
from sessions_tui.engine.store.postgres.events import START, Event, EventReader, Events

NOW = 1_776_081_600_000
WAIT_S = 30  # a bound for the conditions below, never a pause


class Received:
    """What a reader handed over, batch by batch, and a way to wait until there are `n` events."""

    def __init__(self) -> None:
        self.batches: list[list[Event]] = []
        self._changed = threading.Condition()

    def __call__(self, batch: list[Event]) -> None:
        with self._changed:
            self.batches.append(batch)
            self._changed.notify_all()

    @property
    def events(self) -> list[Event]:
        return [event for batch in self.batches for event in batch]

    def wait_for(self, n: int) -> list[Event]:
        with self._changed:
            assert self._changed.wait_for(lambda: len(self.events) >= n, timeout=WAIT_S), self.events
            return self.events


def test_each_session_numbers_its_events_and_readers_read_them_in_order(pg_url: str) -> None:
    with two_pools(pg_url) as (pool_a, pool_b):
        events.create(pool_a)
        start = threading.Barrier(2)

        def append(name: str, pool: ConnectionPool[Any]) -> None:
            host = Events(pool)
            start.wait()
            for i in range(100):
                host.append(f"s{i % 2}", "change", f'{{"host": "{name}", "i": {i}}}', NOW + i)

        threads = [threading.Thread(target=append, args=(n, p)) for n, p in (("a", pool_a), ("b", pool_b))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        read = Events(pool_b).read(START, limit=1000)
        assert len(read) == 200 and len({e.id for e in read}) == 200
        for key in ("s0", "s1"):
            numbers = [e.seq for e in read if e.session_key == key]
            assert sorted(numbers) == list(range(1, 101))
            assert [e.seq for e in Events(pool_a).session(key)] == list(range(1, 101))
            assert [e.seq for e in Events(pool_a).session(key, after_seq=98)] == [99, 100]
        assert Events(pool_a).read(read[-1].position) == []
        assert Events(pool_a).latest() == read[-1].position


def test_an_event_committed_late_is_not_skipped(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as slow, psycopg.connect(pg_url, autocommit=True) as quick:
        events.create(quick)
        reader = Events(quick)
        with slow.transaction():
            first = Events(slow).append("s", "change", "{}", NOW)  # its transaction began first …
            second = Events(quick).append("t", "change", "{}", NOW)  # … this one commits first
            assert second.id > first.id
            assert reader.read(START) == []  # not yet: an older transaction may still add events
        assert [e.id for e in reader.read(START)] == [first.id, second.id]


def test_a_reader_on_another_host_gets_events_notified_dropped_or_only_polled(pg_url: str) -> None:
    with two_pools(pg_url) as (pool_a, _):
        events.create(pool_a)
        host_a = Events(pool_a)
        before = host_a.append("s", "change", '"before"', NOW)
        # Woken by notifications only (the poll an hour away): the dropped ones come with a later wake.
        got = Received()
        with EventReader(pg_url, got, after=before.position, poll_s=3600) as reader:
            assert reader.ready.wait(WAIT_S)
            quiet = [host_a.append("s", "change", f'"{i}"', NOW + i, notify=False) for i in range(5)]
            woke = host_a.append("t", "change", '"wake"', NOW + 5)
            assert got.wait_for(6) == [*quiet, woke]
            assert got.batches == [[*quiet, woke]]  # nothing before the wake; all of it with it
            assert [e.seq for e in got.events] == [2, 3, 4, 5, 6, 1]
        assert reader.error is None
        # No wake at all: the poll brings them, in order.
        polled = Received()
        with EventReader(pg_url, polled, after=woke.position, poll_s=0.05) as reader:
            assert reader.ready.wait(WAIT_S)
            unheard = [host_a.append("u", "change", f'"{i}"', NOW + i, notify=False) for i in range(3)]
            assert polled.wait_for(3) == unheard
        # From the start: everything, in order.
        everything = Received()
        with EventReader(pg_url, everything, batch=4) as reader:
            assert everything.wait_for(10) == [before, *quiet, woke, *unheard]
            assert reader.position == unheard[-1].position


def test_a_reader_whose_callback_fails_stops_and_says_why(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        events.create(conn)
        Events(conn).append("s", "change", "{}", NOW)

    def fail(_: list[Event]) -> None:
        raise ValueError("no")

    reader = EventReader(pg_url, fail).start()
    assert reader.ready.wait(WAIT_S)
    reader.stop()
    assert isinstance(reader.error, ValueError)
