"""A separate process that runs one turn in a session (the cross-process run test).

Usage: python run_worker.py STATE KEY MESSAGE   prints "started ended" (ms) of its run.
"""

import asyncio
import sys

from sessions_tui.engine.config import parse_config
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.runs.runs import RunRequest


async def main() -> None:
    state, key, message = sys.argv[1:4]
    config, _ = parse_config({"models": {"demo": {"latencyMs": 400, "chunkMs": 0}}})
    engine = Engine(state, config)
    print("ready", flush=True)
    sys.stdin.readline()  # both processes start together
    run_id = engine.runs.start(RunRequest(session_key=key, message=message))
    await engine.runs.wait(run_id, 30_000)
    record = engine.runs.get(run_id)
    print(record.started_at, record.ended_at, flush=True)
    await engine.aclose()


asyncio.run(main())
