"""A separate process that sends from one session to another and stops at a point of the send's
agent-to-agent flow (the killed-flow tests SIGKILL it there).

Usage: python flow_worker.py STATE CONFIG REQUESTER TARGET POINT
POINT: `waiting` (fire and forget: the model never answers the send's own run, the flow waiting on
it), `turn` (it never answers ping-pong turn 2), `announce` (it never answers the announce step),
`between` (the whole process stops once the ledger holds `replied`: the reply's run is over and
the first ping-pong turn's run not begun). Prints the send's run id there, then waits; `closed`:
as `turn`, but the process closes its engine there and exits.
"""

import asyncio
import sys
import time
from collections.abc import AsyncGenerator
from pathlib import Path

from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.local.backend import open_local
from sessions_tui.backend.values.vocabulary import EngineEvent, SendLedgerChanged
from sessions_tui.engine.llm.base import ModelEvent, ModelRequest
from sessions_tui.engine.llm.demo import DemoModel

STALL_ON = {
    "waiting": "Agent-to-agent message context",
    "turn": "Turn 2 of",
    "closed": "Turn 2 of",
    "announce": "Agent-to-agent announce step",
}


class Stalling(DemoModel):
    """The demo model, at once, except that it never answers a request whose system text holds `marker`."""

    def __init__(self, marker: str | None, reached: asyncio.Event) -> None:
        super().__init__(latency_ms=0, chunk_ms=0)
        self.marker, self.reached = marker, reached

    async def stream(self, request: ModelRequest) -> AsyncGenerator[ModelEvent, None]:
        if self.marker is not None and self.marker in request.system:
            self.reached.set()
            await asyncio.Event().wait()  # killed here
        async for event in super().stream(request):
            yield event


async def main() -> None:
    state, config, requester, target, point = sys.argv[1:6]
    backend = open_local(Path(state), Path(config))
    await backend.start()
    reached = asyncio.Event()
    backend.engine.models.use_client("demo", Stalling(STALL_ON.get(point), reached))
    run_ids: list[str] = []

    def on_event(event: EngineEvent) -> None:
        if isinstance(event, SendLedgerChanged) and event.state == "accepted":
            run_ids.append(event.run_id)
        if point == "between" and isinstance(event, SendLedgerChanged) and event.state == "replied":
            print(event.run_id, flush=True)
            time.sleep(600)  # the process stops between two steps of the flow: killed here

    backend.subscribe(on_event)
    timeout = 0 if point == "waiting" else 60
    params = {"sessionKey": target, "message": "status?", "timeoutSeconds": timeout}
    send = asyncio.create_task(backend.call_tool("sessions_send", params, Requester(key=requester)))
    await reached.wait()
    print(run_ids[0], flush=True)
    await send
    if point == "closed":
        await backend.aclose()
        return
    await backend.drain()  # the flow never ends: the process is killed first


asyncio.run(main())
