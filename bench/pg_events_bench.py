"""A change on host A seen by a reader on host B through PostgreSQL's events table (issue 32).

A throwaway PostgreSQL server (tests/pg_cluster.py; Debian's `postgresql` package) and two processes
on it: this one is host A, appending events through a connection pool (`Events.append`, which
notifies at commit); host B is a child process of this script (`--reader URL`) running an
`EventReader` (its own connection, LISTEN, reading from its position on each wake), which prints each
event's id and the moment its batch reached the callback (`time.monotonic_ns`: one clock for every
process on the machine). For `WARMUP` + `APPENDS` appends, one at a time: the moment before the
append on A to the moment B's callback has the event, the append's commit included. p50, p90, max;
then again under load: two more threads of host A appending to other sessions all the while (each
transaction still open holds B's reads back: events.py reads only below the oldest running one).

Requirement (the issue's dashboard target, of which this is the store's share): p50 **< 300 ms**.

    .venv/bin/python bench/pg_events_bench.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests"), str(Path(__file__).resolve().parent)]

import psycopg  # noqa: E402
from _common import check, verdicts  # noqa: E402
from psycopg_pool import ConnectionPool  # noqa: E402

from pg_cluster import MISSING, start_cluster  # noqa: E402
from sessions_tui.engine.store.postgres import events  # noqa: E402
from sessions_tui.engine.store.postgres.events import EventReader, Events  # noqa: E402

WARMUP = 20
APPENDS = 200
NOW = 1_776_081_600_000


def reader(url: str) -> None:
    """Host B: print `ready`, then `<id> <monotonic ns>` for every event, as its batch arrives."""

    def show(batch: list[events.Event]) -> None:
        at = time.monotonic_ns()
        sys.stdout.write("".join(f"{event.id} {at}\n" for event in batch))
        sys.stdout.flush()

    with psycopg.connect(url, autocommit=True) as conn:
        after = Events(conn).latest()  # what comes next only
    with EventReader(url, show, after=after) as host_b:
        host_b.ready.wait()
        print("ready", flush=True)
        sys.stdin.read()  # until host A closes our stdin


def measure(url: str, loaded: bool) -> list[float]:
    """Milliseconds from each measured append on host A to host B's reader having it."""
    with ConnectionPool(url, min_size=3, max_size=3, open=True) as pool:
        host_a = Events(pool)
        child = subprocess.Popen(
            [sys.executable, __file__, "--reader", url], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert child.stdin is not None and child.stdout is not None
        check(child.stdout.readline().strip() == "ready", "host B's reader started")
        stop = threading.Event()

        def load(n: int) -> None:
            i = 0
            while not stop.is_set():
                host_a.append(f"agent:main:load{n}-{i % 50}", "change", f'{{"i": {i}}}', NOW + i)
                i += 1

        others = [threading.Thread(target=load, args=(n,)) for n in range(2 if loaded else 0)]
        for thread in others:
            thread.start()
        seen: list[float] = []
        for i in range(WARMUP + APPENDS):
            t0 = time.monotonic_ns()
            event = host_a.append(f"agent:main:s{i % 100}", "change", f'{{"i": {i}}}', NOW + i)
            while True:
                line = child.stdout.readline()
                check(bool(line), f"host B read event {event.id}")
                event_id, at = line.split()
                if int(event_id) == event.id:
                    break
                check(loaded, f"host B read event {event.id} next, in order (got {event_id})")
            if i >= WARMUP:
                seen.append((int(at) - t0) / 1e6)
        stop.set()
        for thread in others:
            thread.join()
        child.stdin.close()
        child.stdout.read()  # what the load left
        child.wait(timeout=30)
    return sorted(seen)


def main() -> int:
    cluster = start_cluster()
    if cluster is None:
        print(f"FAIL: {MISSING}")
        return 1
    try:
        url = cluster.create_database(f"bench_{uuid.uuid4().hex[:12]}")
        with psycopg.connect(url, autocommit=True) as conn:
            events.create(conn)
        figures = {"idle": measure(url, loaded=False), "under load": measure(url, loaded=True)}
    finally:
        cluster.stop()
    print(f"append on A → reader on B, {APPENDS} appends (after {WARMUP} to warm up), ms:")
    p50s = {}
    for name, ms in figures.items():
        p50s[name], p90 = statistics.median(ms), statistics.quantiles(ms, n=10)[-1]
        print(f"  {name:10}  p50 {p50s[name]:7.2f}   p90 {p90:7.2f}   min {ms[0]:7.2f}   max {ms[-1]:7.2f}")
    return verdicts([(p50 < 300, f"{name}: p50 {p50:.2f} ms < 300 ms") for name, p50 in p50s.items()])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--reader"]:
        reader(sys.argv[2])
    else:
        raise SystemExit(main())
