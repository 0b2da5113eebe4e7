"""Several hosts on one PostgreSQL store (issue 32): each process a host with a lease (store/processes.py,
store/postgres/hosts.py); a session's runs on one host at a time; a lapsed host's runs ended as interrupted
and its work taken over by another (runs/takeover.py); every change in the events table, waking watchers."""

import asyncio
import threading

import pytest

from conftest import add_session
from sessions_tui.engine.config import parse_config
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.messaging.outbox import lease_is_live
from sessions_tui.engine.run_end import INTERRUPTED
from sessions_tui.engine.runs.runs import RunRequest
from sessions_tui.engine.store.postgres.hosts import FIRST_ID, TAG

KEY = "agent:main:main"


@pytest.fixture
def hosts(tmp_path, pg_url):
    """Two engines on one database, each with a state directory of its own: two hosts."""
    made: list[Engine] = []

    def make(name: str, latency_ms: int = 0) -> Engine:
        config, _ = parse_config({"models": {"demo": {"latencyMs": latency_ms, "chunkMs": 0}}})
        engine = Engine(tmp_path / name, config, store_url=pg_url)
        from sessions_tui.tools.calling.host import EngineToolHost

        EngineToolHost(engine)
        made.append(engine)
        return engine

    yield make
    for engine in made:
        engine.close()


def lapse(engine: Engine) -> None:
    """What a host that died (or stalled) leaves: its renewals stopped and its lease run out."""
    processes = engine.store.processes
    processes._stop.set()  # noqa: SLF001 - the host stops renewing, as a killed one does
    with processes.pool.connection() as conn:
        conn.execute("UPDATE hosts SET expires_at = 0 WHERE id = %s", (processes.me,))


def test_each_process_is_a_host_with_an_id_no_pid_can_be_and_its_row_goes_when_it_stops(pg_stores):
    a = pg_stores("a")
    b = pg_stores("b")
    assert not a.processes.registered  # reading registers nothing
    me, other = a.processes.me, b.processes.me
    assert me >= FIRST_ID and other >= FIRST_ID and other != me
    assert b.processes.alive(me) and a.processes.alive(me) and not b.processes.alive(4242)
    b.close()
    c = pg_stores("c")
    assert not c.processes.alive(other)  # a stopped host's row is gone: what it left is free at once
    assert c.processes.alive(me)


def test_a_host_that_stops_renewing_is_dead_once_its_lease_lapses(pg_stores):
    a = pg_stores("a", lease_ms=300)
    b = pg_stores("b", lease_ms=300)
    me = a.processes.me
    assert b.processes.alive(me)
    a.processes._stop.set()  # noqa: SLF001
    lapsed = threading.Event()
    for _ in range(200):
        b.processes._known.clear()  # noqa: SLF001 - ask the database each time
        if not b.processes.alive(me):
            lapsed.set()
            break
        threading.Event().wait(0.02)
    assert lapsed.is_set()
    assert b.processes.lapsed() == [me]
    b.processes.forget([me])
    assert b.processes.lapsed() == []


def test_a_delivery_lease_of_a_host_holds_while_it_lives_and_is_free_when_it_lapsed(pg_stores):
    a = pg_stores("a")
    b = pg_stores("b")
    owner = f"{TAG}/{a.processes.me}/abc"
    assert lease_is_live(owner, 10**15, 0, b.processes)
    assert lease_is_live("some-machine/123/abc", 10**15, 0, b.processes)  # another namespace: its expiry
    a.processes._stop.set()  # noqa: SLF001
    with b.processes.pool.connection() as conn:
        conn.execute("UPDATE hosts SET expires_at = 0 WHERE id = %s", (a.processes.me,))
    b.processes._known.clear()  # noqa: SLF001
    assert not lease_is_live(owner, 10**15, 0, b.processes)


async def test_a_session_s_runs_go_one_host_at_a_time(hosts):
    a, b = hosts("a", latency_ms=300), hosts("b")
    add_session(a, "main")
    first = a.runs.start(RunRequest(session_key=KEY, message="on a"))
    started = asyncio.Event()
    a.events.subscribe(lambda e: started.set() if getattr(e, "run_id", None) == first else None)
    await started.wait()
    second = b.runs.start(RunRequest(session_key=KEY, message="on b"))
    assert (await b.runs.wait(second, 10_000)).status == "ok"
    one, two = a.runs.get(first), b.runs.get(second)
    assert one.status == "ok" and two.status == "ok"
    assert one.pid == a.store.processes.me and two.pid == b.store.processes.me
    assert two.started_at >= one.ended_at  # b's turn began only once a's had ended
    users = [m["content"] for m in b.store.transcripts.history(KEY).messages if m["role"] == "user"]
    assert users == ["on a", "on b"]
    await a.drain()


async def running_forever(engine: Engine) -> str:
    """A run of `engine`'s in the main session, started (the demo model answering after a minute)."""
    add_session(engine, "main")
    run_id = engine.runs.start(RunRequest(session_key=KEY, message="never ends"))
    started = asyncio.Event()
    engine.events.subscribe(lambda e: started.set() if getattr(e, "run_id", None) == run_id else None)
    await started.wait()
    return run_id


async def test_a_lapsed_host_s_run_ends_interrupted_and_another_host_takes_the_session_over(hosts):
    a, b = hosts("a", latency_ms=60_000), hosts("b")
    stuck = await running_forever(a)
    waiting = b.runs.start(RunRequest(session_key=KEY, message="after the takeover"))
    assert (await b.runs.wait(waiting, 50)).status == "timeout"  # a's run holds the session
    lapse(a)
    lapsed = await b.store.thread.run(b.store.processes.lapsed)
    assert lapsed == [a.store.processes.me]
    b.takeover.take_over(lapsed)
    record = b.runs.get(stuck)
    assert record.status == "error" and record.error == INTERRUPTED
    assert (await b.runs.wait(waiting, 10_000)).status == "ok"
    # its end is its host's lease's end, never after the run that took the session over began
    assert record.ended_at <= b.runs.get(waiting).started_at
    assert b.takeover.taken_over == lapsed and b.store.processes.lapsed() == []
    await a.runs.cancel_all()  # the stalled host comes back and stops its run: the end written first stays
    again = b.runs.get(stuck)
    assert (again.status, again.error, again.ended_at) == ("error", INTERRUPTED, record.ended_at)


async def test_a_serving_host_takes_a_lapsed_one_over_by_itself(hosts):
    a, b = hosts("a", latency_ms=60_000), hosts("b")
    stuck = await running_forever(a)
    ended = asyncio.Event()
    loop = asyncio.get_running_loop()
    b.events.subscribe(lambda e: loop.call_soon_threadsafe(ended.set) if getattr(e, "run_id", None) == stuck else None)
    b.takeover.period_s = 0.05
    b.takeover.start()
    lapse(a)
    await asyncio.wait_for(ended.wait(), 10)
    assert b.runs.get(stuck).error == INTERRUPTED
    await b.takeover.aclose()
    await a.runs.cancel_all()


def test_every_change_is_an_event_and_wakes_a_watcher_of_another_host(pg_stores):
    a = pg_stores("a")
    b = pg_stores("b")
    woken = threading.Event()
    told: list[frozenset[str]] = []
    assert b.watch_changes(lambda sessions: (told.append(sessions), woken.set()))
    before = b.data_version()
    a.sessions.create(KEY)
    assert woken.wait(10)
    assert KEY in told[0]  # the sessions a batch of changes touched
    assert b.data_version() != before
    with a.peek() as conn:
        rows = conn.execute("SELECT session_key, seq, kind FROM events ORDER BY id").fetchall()
    assert (KEY, 1, "sessions.insert") in [tuple(r) for r in rows]
