"""`GET /events`: the engine's events as server-sent events, for remote dashboards.

Each event is `event: <type>` and `data: <the event as JSON>`, with an `id` that counts up per
stream; a comment line every `KEEPALIVE_S` keeps proxies from closing an idle stream. One
subscription to the backend serves every reader: each event is redacted and dumped once. Text from
agents is redacted before it leaves; streamed model output leaves word by word, only what the
redaction of the whole text so far shows (engine/redaction/stream.py: a delta may hold the start
of a secret that only what follows makes one), and a remote dashboard shows the message whole when
it is appended. A reader that falls `event_queue` events behind gets an `overflow` event and
the end of its stream; it reconnects and reads the state afresh.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.remote.wire import redacted_strings
from sessions_tui.backend.values.vocabulary import EngineEvent, RunStreamed
from sessions_tui.terminal_text import json_text

KEEPALIVE_S = 15.0
_END: dict[str, Any] = {}
"""Put in a reader's queue when the server stops: its stream ends (compared by identity)."""

_REDACTED = (
    "text",
    "error",
    "reason",
    "failure",
    "session_key",
    "target_key",
    "speaker",
    "child_session_key",
    "requester",
    "name",
)
"""Event fields that hold agent or error text (a hook's name too), or a session key (user data,
which may hold a secret: a remote face passes a redacted key back as it got it), redacted on the
way out."""


def wire_event(event: EngineEvent, redact: Callable[[str], str]) -> dict[str, Any]:
    """An event as it leaves the server: free text redacted, streamed text dropped (the stream
    puts back what of it may leave)."""
    data = event.model_dump(mode="json")
    for name in _REDACTED:
        if isinstance(data.get(name), str):
            data[name] = redact(data[name])
    if data.get("type") == "run_streamed":
        data["delta"] = ""
    if isinstance(data.get("detail"), dict):
        data["detail"] = redacted_strings(data["detail"], redact)
    return data


def sse_frame(event_id: int, kind: str, data: dict[str, Any]) -> bytes:
    return f"id: {event_id}\nevent: {kind}\ndata: {json_text(data, indent=None)}\n\n".encode()


class EventStream:
    """The endpoint: one queue per reader, fed from the backend's subscription (from any thread)."""

    def __init__(self, backend: Backend, queue_size: int) -> None:
        self.backend = backend
        self.queue_size = queue_size
        # Each reader's delivery into its queue; an event is made wire-ready once for all of them.
        self._readers: set[Callable[[dict[str, Any]], None]] = set()
        self._unsubscribe: Callable[[], None] | None = None
        self._streamed = backend.stream_redaction()

    @property
    def readers(self) -> int:
        return len(self._readers)

    def broadcast(self, event: EngineEvent) -> None:
        """An event to every reader (the engine's, from any thread, or the server's own)."""
        data = wire_event(event, self.backend.redact)
        if self._streamed is not None:
            shown = self._streamed.observe(event)
            if isinstance(event, RunStreamed):
                data["delta"] = shown
        for deliver in list(self._readers):
            deliver(data)

    def close(self) -> None:
        """The server is stopping: every stream ends now (a reader reconnects to whatever serves
        next), so the server's wait for its connections to finish is not for ever."""
        for deliver in list(self._readers):
            deliver(_END)

    def last_reader_left(self) -> None:
        """No reader is left: the subscription ends, and the runs seen so far are forgotten (a run
        still going missed deltas meanwhile, so none of its text may stream to the next reader)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._streamed = self.backend.stream_redaction()

    async def handle(self, request: Request) -> Response:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        overflowed = False

        def put(data: dict[str, Any]) -> None:
            nonlocal overflowed
            if data is _END:
                queue.put_nowait(_END)
                return
            if overflowed:
                return
            if queue.qsize() >= self.queue_size:
                overflowed = True
                queue.put_nowait(None)
                return
            queue.put_nowait(data)

        def deliver(data: dict[str, Any]) -> None:
            loop.call_soon_threadsafe(put, data)

        self._readers.add(deliver)
        if self._unsubscribe is None:  # the first reader: one subscription serves them all
            self._unsubscribe = self.backend.subscribe(self.broadcast)

        async def frames() -> AsyncIterator[bytes]:
            counter = 0
            try:
                yield sse_frame(counter, "hello", {"type": "hello"})
                while True:
                    try:
                        data = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
                    except TimeoutError:
                        yield b": keepalive\n\n"
                        continue
                    if data is _END:
                        return
                    counter += 1
                    if data is None:
                        yield sse_frame(counter, "overflow", {"type": "overflow"})
                        return
                    yield sse_frame(counter, str(data.get("type", "event")), data)
            finally:
                self._readers.discard(deliver)
                if not self._readers:
                    self.last_reader_left()

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return StreamingResponse(frames(), media_type="text/event-stream", headers=headers)
