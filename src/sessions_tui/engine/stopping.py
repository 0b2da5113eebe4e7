"""Stopping a part's background task: cancelled, and waited for until it has ended."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


async def cancel_and_wait(task: asyncio.Task[Any] | None, *, closing: bool = False) -> None:
    """Cancel `task` (None, or one that ended, is left alone) and wait for its end; with `closing`,
    a loop found closing meanwhile (RuntimeError) ends the wait too."""
    if task is None or task.done():
        return
    task.cancel()
    ignored: tuple[type[BaseException], ...] = (
        (asyncio.CancelledError, RuntimeError) if closing else (asyncio.CancelledError,)
    )
    with contextlib.suppress(*ignored):
        await task
