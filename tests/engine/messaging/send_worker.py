"""A separate process that sends into a session and says when the send reached a state in the
ledger (the killed-send test SIGKILLs it there, its run still going).

Usage: python send_worker.py STATE CONFIG KEY TIMEOUT_SECONDS STATE_TO_REACH
prints "RUN_ID" once the ledger holds that state of the send, then waits for the send.
"""

import asyncio
import sys
from pathlib import Path

from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.local.backend import open_local
from sessions_tui.backend.values.vocabulary import EngineEvent, SendLedgerChanged


async def main() -> None:
    state, config, key, timeout, reach = sys.argv[1:6]
    backend = open_local(Path(state), Path(config))
    await backend.start()

    def on_event(event: EngineEvent) -> None:
        if isinstance(event, SendLedgerChanged) and event.state == reach:
            print(event.run_id, flush=True)

    backend.subscribe(on_event)
    params = {"sessionKey": key, "message": "status?", "timeoutSeconds": int(timeout)}
    await backend.call_tool("sessions_send", params, Requester())
    await backend.drain()


asyncio.run(main())
