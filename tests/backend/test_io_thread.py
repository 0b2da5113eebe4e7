"""The remote backends' I/O loop: a call under way when it stops, or asked for after, ends at once
(a thread worker awaiting one would otherwise wait for ever, and hold its app's exit)."""

import asyncio
from concurrent.futures import CancelledError

import pytest

from sessions_tui.backend.remote.io_thread import IoThread


async def _forever() -> None:
    await asyncio.sleep(3600)


def test_a_call_under_way_when_the_loop_stops_is_cancelled():
    io = IoThread("test-io")
    call = io.submit(_forever())
    io.stop()
    with pytest.raises(CancelledError):
        call.result(5)


def test_a_call_after_the_loop_stopped_is_refused_at_once():
    io = IoThread("test-io")
    io.stop()
    with pytest.raises(RuntimeError, match="the backend is closed"):
        io.submit(_forever()).result(5)
