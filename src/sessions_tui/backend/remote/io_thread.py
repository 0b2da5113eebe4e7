"""An event loop on a thread of its own, for a backend whose work is network I/O.

The faces call a backend from their own loop (the dashboard's, a command's `asyncio.run`) and
from plain threads. An HTTP client's connections belong to the loop that opened
them, so a remote backend keeps one loop for all its I/O and hands each call to it; the caller
awaits the result from whatever loop it is on.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")


class IoThread:
    """A daemon thread running an event loop until `stop`."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()
        # Calls still under way when the loop stops are cancelled and seen to their end, so whoever
        # awaits one (another loop, a plain thread) is told instead of waiting for ever.
        pending = asyncio.all_tasks(self.loop)
        for task in pending:
            task.cancel()
        if pending:
            self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self.loop.close()

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        if self.loop.is_closed() or not self._thread.is_alive():
            coro.close()
            done: Future[T] = Future()
            done.set_exception(RuntimeError("the backend is closed"))
            return done
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the I/O loop and wait for it from the caller's loop."""
        if threading.current_thread() is self._thread:
            return await coro
        return await asyncio.wrap_future(self.submit(coro))

    def call(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run `coro` on the I/O loop and wait for it from a thread with no loop running."""
        return self.submit(coro).result(timeout)

    def stop(self) -> None:
        if self.loop.is_running():
            self.loop.call_soon_threadsafe(self.loop.stop)
        if threading.current_thread() is not self._thread:
            self._thread.join(10)
