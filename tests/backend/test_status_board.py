"""The status board (backend/toolkit/status_board.py) over a fake backend and a frozen clock: the seed,
events naming keys read again in one burst, streamed progress in memory, one timer at the earliest
clock change, seen clearing `done`, StatusChanged to subscribers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace

from conftest import NOW_MS
from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.toolkit.status_board import StatusBoard
from sessions_tui.backend.values.vocabulary import (
    LOOPING_WINDOW_MS,
    Activity,
    EngineEvent,
    PolicyRefused,
    RunEnded,
    RunStarted,
    RunStreamed,
    StatusChanged,
    StoreChanged,
)
from sessions_tui.engine.clock import FrozenClock

STUCK = 120_000


class FakeBackend:
    """What the board needs of a backend: activity, mark_seen, subscribe, now."""

    def __init__(self, clock: FrozenClock) -> None:
        self.clock = clock
        self.facts: dict[str, Activity] = {}
        self.reads: list[list[str] | None] = []
        self.seen: list[str] = []
        self.callbacks: list[Callable[[EngineEvent], None]] = []

    def now(self) -> int:
        return self.clock.now_ms()

    def subscribe(self, callback: Callable[[EngineEvent], None]) -> Callable[[], None]:
        self.callbacks.append(callback)
        return lambda: self.callbacks.remove(callback)

    async def activity(self, requester: Requester, keys: list[str] | None = None) -> dict[str, Activity]:
        self.reads.append(keys)
        if keys is None:
            return {k: f for k, f in self.facts.items() if f.running or f.failed or f.ended_at or f.refused_at}
        return {k: self.facts[k] for k in keys if k in self.facts}

    async def mark_seen(self, key: str) -> None:
        self.seen.append(key)


async def _board(
    clock: FrozenClock, facts: dict[str, Activity]
) -> tuple[StatusBoard, FakeBackend, list[StatusChanged]]:
    backend = FakeBackend(clock)
    backend.facts = dict(facts)
    board = StatusBoard(backend, Requester, stuck_after_ms=STUCK, debounce_s=0)  # type: ignore[arg-type]
    said: list[StatusChanged] = []
    board.subscribe(said.append)
    await board.start(listen=False)
    return board, backend, said


async def test_the_seed_says_each_status_once_and_counts_them():
    clock = FrozenClock(NOW_MS)
    board, _, said = await _board(
        clock,
        {
            "a": Activity(running=True, progress_at=NOW_MS),
            "b": Activity(running=True, waiting=True, progress_at=NOW_MS),
            "c": Activity(ended_at=NOW_MS - 1),
            "d": Activity(failed=True, ended_at=NOW_MS - 1),
        },
    )
    assert {c.session_key: (c.status, c.previous) for c in said} == {
        "a": ("working", None),
        "b": ("waiting", None),
        "c": ("done", None),
        "d": ("failed", None),
    }
    assert board.counts() == {"working": 1, "waiting": 1, "done": 1, "failed": 1}
    assert board.keys_with("done", "failed") == ["c", "d"] and board.status("zz") == "idle"
    board.close()


async def test_events_read_their_keys_again_in_one_burst():
    clock = FrozenClock(NOW_MS)
    board, backend, said = await _board(clock, {})
    backend.facts["a"] = Activity(running=True, progress_at=NOW_MS)
    board.on_event(RunStarted(run_id="r", session_key="a"))
    board.on_event(RunStreamed(run_id="r", session_key="a", delta="x"))
    await board.read_pending()
    assert backend.reads == [None, ["a"]] and board.status("a") == "working"
    backend.facts["a"] = Activity(ended_at=NOW_MS)
    board.on_event(RunEnded(run_id="r", session_key="a", status="ok"))
    await board.read_pending()
    # After the seed a change is news (previous `idle`, not None): a notice may follow it.
    assert [(c.status, c.previous) for c in said] == [("working", "idle"), ("done", "working")]
    board.close()


async def test_one_timer_at_the_earliest_change_makes_a_run_stuck_and_progress_moves_it_on():
    clock = FrozenClock(NOW_MS)
    board, _, said = await _board(
        clock,
        {"a": Activity(running=True, progress_at=NOW_MS), "b": Activity(running=True, progress_at=NOW_MS + 1000)},
    )
    assert board.next_check_at == NOW_MS + STUCK
    board.on_event(RunStreamed(run_id="r", session_key="a", delta="x", ts=NOW_MS + 5000))
    assert board.next_check_at == NOW_MS + 1000 + STUCK  # b is next now
    clock.advance(1000 + STUCK)
    board.recheck()
    assert board.status("b") == "stuck" and board.status("a") == "working"
    assert board.next_check_at == NOW_MS + 5000 + STUCK
    assert said[-1].session_key == "b" and (said[-1].status, said[-1].previous) == ("stuck", "working")
    board.close()


async def test_a_refusal_loops_both_ends_until_the_window_passes():
    clock = FrozenClock(NOW_MS)
    board, backend, _ = await _board(clock, {})
    backend.facts.update(a=Activity(refused_at=NOW_MS), b=Activity(refused_at=NOW_MS))
    board.on_event(PolicyRefused(session_key="b", via="sessions_send", reason="chain", requester="a"))
    await board.read_pending()
    assert board.keys_with("looping") == ["a", "b"] and board.next_check_at == NOW_MS + LOOPING_WINDOW_MS
    clock.advance(LOOPING_WINDOW_MS)
    board.recheck()
    assert board.counts() == {} and board.next_check_at is None
    board.close()


async def test_seen_clears_done_at_once_and_another_writer_reseeds():
    clock = FrozenClock(NOW_MS)
    board, backend, said = await _board(clock, {"a": Activity(ended_at=NOW_MS - 5)})
    await board.seen("a")
    assert board.status("a") == "idle" and backend.seen == ["a"] and said[-1].status == "idle"
    backend.facts = {"b": replace(Activity(), failed=True, ended_at=NOW_MS)}
    board.on_event(StoreChanged())
    await board.read_pending()
    assert backend.reads[-1] is None and board.keys_with("failed") == ["b"]
    board.close()


async def test_events_from_another_thread_arrive_on_the_loop_and_the_timer_fires():
    clock = FrozenClock(NOW_MS)
    backend = FakeBackend(clock)
    board = StatusBoard(backend, Requester, stuck_after_ms=STUCK, debounce_s=0)  # type: ignore[arg-type]
    changed = asyncio.Event()
    board.subscribe(lambda change: changed.set())
    await board.start()
    backend.facts["a"] = Activity(running=True, progress_at=NOW_MS - STUCK + 1)  # stuck in 1 ms
    await asyncio.to_thread(backend.callbacks[0], RunStarted(run_id="r", session_key="a"))
    await asyncio.wait_for(changed.wait(), 5)
    changed.clear()
    clock.advance(1)
    await asyncio.wait_for(changed.wait(), 5)
    assert board.status("a") == "stuck"
    board.close()
    assert backend.callbacks == []
