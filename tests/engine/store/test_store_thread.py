"""Never block a loop: store work runs on the store's own thread, and the dashboard calls its
backend one way (async workers on its loop, no thread workers)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from textual.worker import Worker

from scenes import SIZE, demo_app, settle
from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.engine.store.store_thread import StoreThread
from sessions_tui.tools.calling.base import ToolCall
from sessions_tui.tools.calling.registry import invoke
from sessions_tui.tools.reading.browse import BrowseQuery


async def test_run_returns_the_result_from_another_thread_and_raises_its_error():
    thread = StoreThread("test-store")
    try:
        assert await thread.run(threading.get_ident) != threading.get_ident()
        assert await thread.run(lambda a, b=0: a + b, 2, b=3) == 5
        with pytest.raises(ZeroDivisionError):
            await thread.run(lambda: 1 / 0)
    finally:
        thread.close()
    with pytest.raises(RuntimeError):
        await thread.run(int)


async def test_a_cancelled_caller_leaves_the_work_to_finish():
    thread = StoreThread("test-store")
    started, release, finished = threading.Event(), threading.Event(), threading.Event()

    def work() -> int:
        started.set()
        release.wait(10)
        finished.set()
        return 1

    try:
        waiting = asyncio.ensure_future(thread.run(work))
        await asyncio.to_thread(started.wait, 10)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        release.set()
        assert await thread.run(lambda: finished.is_set())  # one thread: queued behind the work, whole
    finally:
        thread.close()


async def test_work_dropped_by_close_ends_its_callers_wait_and_what_runs_finishes():
    thread = StoreThread("test-store")
    started, release = threading.Event(), threading.Event()

    def first() -> int:
        started.set()
        release.wait(10)
        return 1

    running = asyncio.ensure_future(thread.run(first))
    await asyncio.to_thread(started.wait, 10)
    queued = asyncio.ensure_future(thread.run(lambda: 2))
    await asyncio.sleep(0)  # its first step: submitted behind `first`
    closing = asyncio.ensure_future(asyncio.to_thread(thread.close))
    with pytest.raises(asyncio.CancelledError):
        await queued
    release.set()
    await closing
    assert await running == 1


def _noting(method: Any, seen: list[threading.Thread]) -> Any:
    def noting(*args: Any, **kwargs: Any) -> Any:
        seen.append(threading.current_thread())
        return method(*args, **kwargs)

    return noting


async def test_local_backend_browses_on_the_store_thread(engine, monkeypatch):
    backend = LocalBackend(engine)
    seen: list[threading.Thread] = []
    for name in ("page", "keyset", "count"):
        monkeypatch.setattr(engine.store.browse, name, _noting(getattr(engine.store.browse, name), seen))
    await backend.browse(Requester(), BrowseQuery(), offset=0, limit=10)
    assert seen and all(t is not threading.current_thread() for t in seen)
    assert engine.store.thread.is_current() is False


async def test_a_read_only_tool_and_its_redaction_run_on_the_store_thread(engine, monkeypatch):
    on_loop = threading.current_thread()
    threads: list[threading.Thread] = []
    redact_strings = engine.redactor.redact_strings

    def noting(value: Any, **options: Any) -> Any:
        threads.append(threading.current_thread())
        return redact_strings(value, **options)

    monkeypatch.setattr(engine.redactor, "redact_strings", noting)
    result = await invoke(ToolCall(engine=engine), "sessions_list", {})
    assert "sessions" in result
    assert threads and all(t is not on_loop for t in threads)


async def test_the_dashboard_starts_no_thread_worker(tmp_path, monkeypatch):
    workers: list[Worker[Any]] = []
    init = Worker.__init__

    def noting(self: Worker[Any], *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        workers.append(self)

    monkeypatch.setattr(Worker, "__init__", noting)
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("right_square_bracket")  # a page more, read and counted
        await settle(pilot)
        await pilot.press("down")  # another session's transcript
        await settle(pilot)
    assert workers
    assert [w.name for w in workers if w._thread_worker] == []
