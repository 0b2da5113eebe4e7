"""Usage and estimated cost over 1,000,000 messages: the report the Usage view opens on.

A fresh state directory written through the `Store` APIs in a batch (as an import writes): 2,000
sessions of 500 messages (a user question, an assistant tool call, its result, an assistant answer,
repeated; every assistant message with its `usage`), over 5 agents and 3 models, each session a burst
of work (a message every 15 s) starting at a random time in the last 30 days. The hourly usage sums
are filled as the lines are written. Then `usage_report` (what `sessions-tui usage` and the Usage view
read) since 7 days and since 30 days, by agent, model and session, each bucketed by day and by hour.

`--scatter` spreads every session's messages over the whole 30 days instead (a message every ~80 min:
about one hourly row per turn, the worst case for the sums per session), to see how far the figure
moves: a report not by session reads the hours per agent and model (a few rows an hour however many
sessions work), one by session its groups from the daily sums and its series from the agents' hours.

Requirement: every report over the 1,000,000 messages in under 300 ms (median of >= 10 timed calls
after warm-up).

Run: .venv/bin/python bench/usage_bench.py [--scatter]
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import check, describe, in_temp_dir, verdicts  # noqa: E402

from sessions_tui.engine.clock import FrozenClock  # noqa: E402
from sessions_tui.engine.config import parse_config  # noqa: E402
from sessions_tui.engine.store.store import Store  # noqa: E402
from sessions_tui.engine.store.usage_hours import DAY_MS  # noqa: E402
from sessions_tui.engine.usage import USAGE_BUCKETS, USAGE_GROUPINGS, UsageQuery, usage_report  # noqa: E402

SESSIONS = 2_000
MESSAGES = 500
NOW_MS = 1_776_081_600_000
SPAN_MS = 30 * DAY_MS
AGENTS = ("main", "ops", "research", "review", "cron")
MODELS = (("openai", "gpt-5"), ("anthropic", "claude-sonnet-4"), ("local", "qwen3"))
LIMIT_MS = 300.0
WARMUP = 3
RUNS = 10
CONFIG = {
    "models": {
        "providers": {
            "openai": {"baseUrl": "http://x/v1", "models": [{"id": "gpt-5", "cost": {"input": 1.25, "output": 10}}]},
            "anthropic": {
                "baseUrl": "http://x/v1",
                "models": [{"id": "claude-sonnet-4", "cost": {"input": 3, "output": 15, "cacheRead": 0.3}}],
            },
        }
    }
}


def message(n: int, ts: int, model: tuple[str, str], rng: random.Random) -> dict:
    phase = n % 4
    if phase == 0:
        return {"role": "user", "content": f"question {n}: " + "lorem ipsum " * rng.randint(2, 20), "timestamp": ts}
    if phase == 2:
        return {
            "role": "toolResult",
            "toolCallId": f"call_{n - 1}",
            "toolName": "exec",
            "content": [{"type": "text", "text": "total 0\n" * rng.randint(1, 10)}],
            "isError": False,
            "timestamp": ts,
        }
    input_, output = rng.randint(500, 20_000), rng.randint(10, 2_000)
    content: list[dict] = (
        [{"type": "toolCall", "id": f"call_{n}", "name": "exec", "arguments": {"cmd": "ls -la"}}]
        if phase == 1
        else [{"type": "text", "text": "done. " * rng.randint(1, 30)}]
    )
    return {
        "role": "assistant",
        "content": content,
        "provider": model[0],
        "model": model[1],
        "stopReason": "toolUse" if phase == 1 else "stop",
        "usage": {"input": input_, "output": output, "cacheRead": input_ // 2, "totalTokens": input_ + output},
        "timestamp": ts,
    }


def build(state: Path, scatter: bool) -> Store:
    rng = random.Random(31)
    store = Store(state, FrozenClock(NOW_MS))
    step = SPAN_MS // MESSAGES if scatter else 15_000
    with store.batch(seconds=5) as checkpoint:
        for i in range(SESSIONS):
            agent = AGENTS[i % len(AGENTS)]
            key = f"agent:{agent}:telegram:group:{i}"
            model = MODELS[rng.randrange(len(MODELS))]
            start = NOW_MS - SPAN_MS + (0 if scatter else rng.randrange(SPAN_MS - MESSAGES * step))
            store.sessions.create(key, {"updatedAt": start + MESSAGES * step, "chatType": "group"})
            lines = [{"type": "message", "message": message(n, start + n * step, model, rng)} for n in range(MESSAGES)]
            store.transcripts.append_lines(key, lines, touch=False)
            checkpoint()
    return store


def main() -> int:
    scatter = "--scatter" in sys.argv[1:]
    return in_temp_dir("usage-bench-", lambda tmp: bench(tmp, scatter))


def bench(tmp: Path, scatter: bool) -> int:
    t0 = time.perf_counter()
    store = build(tmp / "state", scatter)
    with store.read() as conn:
        rows = conn.execute("SELECT count(*), sum(turns) FROM usage_hours").fetchone()
        agent_rows = conn.execute("SELECT count(*) FROM usage_agent_hours").fetchone()[0]
    print(
        f"setup: {SESSIONS:,} sessions x {MESSAGES} messages ({SESSIONS * MESSAGES:,}) in "
        f"{time.perf_counter() - t0:.1f} s; {rows[0]:,} hourly usage rows for {rows[1]:,} turns"
        f" ({agent_rows:,} per agent and model)"
        f"{' (scattered)' if scatter else ''}"
    )
    check(rows[1] == SESSIONS * MESSAGES // 2, f"{rows[1]} turns summed, not {SESSIONS * MESSAGES // 2}")
    config, _ = parse_config(CONFIG)
    checks: list[tuple[bool, str]] = []
    try:
        for days in (7, 30):
            for by in USAGE_GROUPINGS:
                for every in USAGE_BUCKETS:
                    query = UsageQuery(since=NOW_MS - days * DAY_MS, by=by, every=every)
                    for _ in range(WARMUP):
                        report = usage_report(store, config, query)
                    samples = []
                    for _ in range(RUNS):
                        t = time.perf_counter()
                        report = usage_report(store, config, query)
                        samples.append(time.perf_counter() - t)
                    median = statistics.median(samples) * 1000
                    print(
                        f"since {days:2d}d by {by:7s} every {every:4s}: {describe(samples)}  "
                        f"({len(report.groups)} groups, {len(report.series)} points, {report.total.turns:,} turns, "
                        f"${report.total.cost_usd:,.2f} + {report.total.unpriced_turns:,} unpriced turns)"
                    )
                    checks.append((median < LIMIT_MS, f"since {days}d by {by} every {every}: median {median:.1f} ms"))
    finally:
        store.close()
    print(f"requirement: every report < {LIMIT_MS:.0f} ms")
    return verdicts(checks)


if __name__ == "__main__":
    sys.exit(main())
