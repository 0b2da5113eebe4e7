"""1,000 fire-and-forget sends over 100 sessions on the zero-latency demo model.

Requirement (issue: runs and sessions_send): every one of the 1,000 runs completes, none is
lost and none runs twice. Reports sends per second (the tool calls themselves), the time until
every run and its announce step have finished, and p50/p99 from send to reply.

    .venv/bin/python bench/send_bench.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import in_temp_dir  # noqa: E402

from sessions_tui.engine.config import parse_config
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.events import RunEnded
from sessions_tui.tools.calling.base import ToolCall
from sessions_tui.tools.calling.host import EngineToolHost
from sessions_tui.tools.calling.registry import invoke

SESSIONS = 100
SENDS = 1000


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


async def run(tmp: Path) -> int:
    config, _ = parse_config({"models": {"demo": {"latencyMs": 0, "chunkMs": 0}}})
    engine = Engine(tmp / "state", config)
    EngineToolHost(engine)
    keys = [f"agent:main:bench:group:{i:03d}" for i in range(SESSIONS)]
    for key in keys:
        engine.store.sessions.create(key)
    sent_at: dict[str, float] = {}
    replied: dict[str, float] = {}
    ended = Counter()

    def on_event(event):
        if isinstance(event, RunEnded):
            ended[event.run_id] += 1
            if event.run_id in sent_at and event.status == "ok":
                replied[event.run_id] = time.perf_counter()

    engine.events.subscribe(on_event)
    call = ToolCall(engine=engine)
    start = time.perf_counter()
    run_ids = []
    for i in range(SENDS):
        key = keys[i % SESSIONS]
        t0 = time.perf_counter()
        result = await invoke(
            call, "sessions_send", {"sessionKey": key, "message": f"bench message {i}", "timeoutSeconds": 0}
        )
        assert result["status"] == "accepted", result
        sent_at[result["runId"]] = t0
        run_ids.append(result["runId"])
        if i % 50 == 0:
            await asyncio.sleep(0)  # let workers start, as a real caller would
    send_seconds = time.perf_counter() - start
    await engine.drain()
    total_seconds = time.perf_counter() - start

    statuses = Counter(engine.runs.get(r).status for r in run_ids)
    twice = [r for r in run_ids if ended[r] != 1]
    counts = Counter()
    for key in keys:
        for message in engine.store.transcripts.history(key, limit=None).messages:
            if message["role"] == "user" and str(message["content"]).startswith("bench message "):
                counts[message["content"]] += 1
    lost = [i for i in range(SENDS) if counts[f"bench message {i}"] != 1]
    latencies = [(replied[r] - sent_at[r]) * 1000 for r in run_ids if r in replied]

    print(f"sends:               {SENDS} over {SESSIONS} sessions (demo model, zero latency)")
    print(f"send calls:          {SENDS / send_seconds:,.0f} sends/s ({send_seconds:.2f} s for all tool calls)")
    print(f"all work finished:   {total_seconds:.2f} s (runs + announce steps: {sum(ended.values())} runs)")
    print(f"send -> reply:       p50 {statistics.median(latencies):.0f} ms, p99 {percentile(latencies, 99):.0f} ms")
    print(f"run statuses:        {dict(statuses)}")
    ok = statuses.get("ok") == SENDS and not twice and not lost and len(latencies) == SENDS
    print(f"lost: {len(lost)}, run twice: {len(twice)}")
    print("PASS" if ok else "FAIL")
    await engine.aclose()
    return 0 if ok else 1


def main() -> int:
    return in_temp_dir("send-bench-", lambda tmp: asyncio.run(run(tmp)))


if __name__ == "__main__":
    sys.exit(main())
