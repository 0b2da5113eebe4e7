"""The store's own thread: where store work runs, so that no event loop waits for SQLite.

SQLite's calls block. An `async` method that reads or writes the store hands its sync part to
`StoreThread.run`, which runs it on one dedicated thread and awaits its result (datasette's
`Database.execute_fn` is the model): the caller's loop goes on meanwhile. One thread per store,
so its work is done in the order it is asked for and never competes with itself for the store's
lock; the store's connection is shared with the threads that still call it directly (it is
opened with `check_same_thread=False` and guarded by the store's lock).

A caller cancelled while its function runs stops waiting; the function runs to its end (a write
stays whole) and its result is dropped. The thread is started by the first call and ends when the
store closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


def _deliver(loop: asyncio.AbstractEventLoop, settle: Callable[..., None], *args: object) -> None:
    """From the store's thread: `settle(*args)` run on the caller's loop. A loop that has closed
    meanwhile has no caller left to tell."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(settle, *args)


def _result(waiter: asyncio.Future[T], result: T) -> None:
    if not waiter.done():  # else the caller stopped waiting
        waiter.set_result(result)


def _error(waiter: asyncio.Future[T], error: BaseException) -> None:
    if not waiter.done():
        waiter.set_exception(error)


def _dropped(waiter: asyncio.Future[T]) -> None:
    waiter.cancel()


class StoreThread:
    """One named thread running a store's sync work for async callers."""

    def __init__(self, name: str = "sessions-tui-store") -> None:
        self.name = name
        self._executor: ThreadPoolExecutor | None = None
        self._ident: int | None = None
        self._lock = threading.Lock()
        self._closed = False

    def _started(self) -> None:
        self._ident = threading.get_ident()

    def _pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._closed:
                raise RuntimeError("the store is closed")
            if self._executor is None:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix=self.name, initializer=self._started)
            return self._executor

    def is_current(self) -> bool:
        """Whether the caller is running on this thread."""
        return self._ident is not None and threading.get_ident() == self._ident

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`fn(*args, **kwargs)` run on the store's thread, its result (or its exception) returned
        to the awaiting loop. Called from the store's thread itself, it runs at once.

        The result goes straight to the loop's own future (one `call_soon_threadsafe`), not through
        a `concurrent.futures.Future` chained to it as `run_in_executor` does: every store call of
        every face pays this hop (~30 µs less CPU a call)."""
        if self.is_current():
            return fn(*args, **kwargs)
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[T] = loop.create_future()

        def job() -> None:
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # noqa: BLE001 - the caller's to raise
                _deliver(loop, _error, waiter, exc)
            else:
                _deliver(loop, _result, waiter, result)

        def dropped(submitted: Future[None]) -> None:  # by `close`, before it ran
            if submitted.cancelled():
                _deliver(loop, _dropped, waiter)

        self._pool().submit(job).add_done_callback(dropped)
        return await waiter

    def close(self) -> None:
        """No more work: what runs is finished (unless this is the store's thread), what waits is dropped."""
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=not self.is_current(), cancel_futures=True)
