"""sessions_history on a 100,000-message session vs a 200-message one.

Requirement: the newest 200 messages of a 100,000-message session come back no slower than
1.5x the same call on a 200-message session (median of >= 30 timed calls after warm-up),
i.e. the cost does not grow with the transcript's length.

Run: .venv/bin/python bench/history_bench.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ToolRunner, check, describe, in_temp_dir, time_interleaved, verdict  # noqa: E402

from sessions_tui.engine.clock import FrozenClock, iso_from_ms  # noqa: E402
from sessions_tui.engine.config import parse_config  # noqa: E402
from sessions_tui.engine.engine import Engine  # noqa: E402

BIG = 100_000
SMALL = 200
LIMIT = 200
MAX_RATIO = 1.5
WARMUP = 10
RUNS = 60
NOW_MS = 1_776_081_600_000
KEY = "agent:main:main"
WORDS = (
    "deploy",
    "config",
    "the",
    "session",
    "agent",
    "retry",
    "queue",
    "token",
    "cron",
    "report",
    "latency",
    "webhook",
    "build",
    "ok",
    "check",
    "logs",
    "please",
    "user",
    "done",
    "again",
)


def message_lines(count: int, seed: int) -> list[dict]:
    """A realistic repeating pattern of 4: user, assistant calling a tool, tool result, answer."""
    rng = random.Random(seed)
    start = NOW_MS - count * 15_000

    def text(n: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(n))

    lines = []
    for i in range(count):
        ts = start + i * 15_000
        phase = i % 4
        if phase == 0:
            msg = {"role": "user", "content": text(rng.randint(5, 40)), "timestamp": ts}
        elif phase == 1:
            msg = {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": text(rng.randint(5, 20))},
                    {"type": "toolCall", "id": f"call_{i}", "name": "exec", "arguments": {"cmd": text(3)}},
                ],
                "provider": "openai",
                "model": "gpt-5",
                "stopReason": "toolUse",
                "usage": {"input": 900, "output": 40, "totalTokens": 940},
                "timestamp": ts,
            }
        elif phase == 2:
            msg = {
                "role": "toolResult",
                "toolCallId": f"call_{i - 1}",
                "toolName": "exec",
                "content": [{"type": "text", "text": text(rng.randint(10, 60))}],
                "isError": False,
                "timestamp": ts,
            }
        else:
            msg = {
                "role": "assistant",
                "content": [{"type": "text", "text": text(rng.randint(10, 80))}],
                "provider": "openai",
                "model": "gpt-5",
                "stopReason": "stop",
                "usage": {"input": 1000, "output": 80, "totalTokens": 1080},
                "timestamp": ts,
            }
        lines.append({"type": "message", "timestamp": iso_from_ms(ts), "message": msg})
    return lines


def build(state: Path, count: int) -> Engine:
    cfg, _ = parse_config({})
    engine = Engine(state, cfg, clock=FrozenClock(NOW_MS))
    store = engine.store
    lines = message_lines(count, seed=count)
    with store.write() as conn:
        store.sessions.create_in(conn, KEY, {"updatedAt": NOW_MS, "lastChannel": "webchat"})
        store.transcripts.append_lines_in(conn, KEY, lines, raw=None, touch=False)
    return engine


def main() -> int:
    return in_temp_dir("history-bench-", bench)


def bench(tmp: Path) -> int:
    t0 = time.perf_counter()
    big = build(tmp / "big", BIG)
    small = build(tmp / "small", SMALL)
    print(f"setup: {BIG} + {SMALL} messages in {time.perf_counter() - t0:.1f} s ({tmp})")

    run = ToolRunner()
    params = {"sessionKey": "main", "limit": LIMIT}
    r_big = run(big, "sessions_history", params)
    r_small = run(small, "sessions_history", params)
    # Sanity: the right window, same shape in both.
    check(r_big.get("totalMessages") == BIG and r_big.get("hasMore") is True, f"big result {r_big}")
    check(r_small.get("totalMessages") == SMALL and r_small.get("hasMore") is False, "small result")
    check(r_big["messages"][-1]["__openclaw"]["seq"] == BIG, "newest message last")
    check(r_big["messages"][0]["__openclaw"]["seq"] == BIG - LIMIT + 1, "window of the newest 200")
    check(
        len(r_big["messages"]) == len(r_small["messages"]) == LIMIT * 3 // 4,  # tool results dropped
        "same number of messages from both sessions",
    )
    print(f"result: {len(r_big['messages'])} messages, {r_big['bytes']} bytes (big) / {r_small['bytes']} bytes (small)")

    samples = time_interleaved(
        {
            "big": lambda: run(big, "sessions_history", params),
            "small": lambda: run(small, "sessions_history", params),
            "store.transcripts.history big": lambda: big.store.transcripts.history(KEY, limit=LIMIT),
            "store.transcripts.history small": lambda: small.store.transcripts.history(KEY, limit=LIMIT),
        },
        warmup=WARMUP,
        runs=RUNS,
    )
    for name, values in samples.items():
        print(f"{name:<20} {describe(values)}")
    m_big = statistics.median(samples["big"])
    m_small = statistics.median(samples["small"])
    ratio = m_big / m_small
    print(
        f"sessions_history median: {BIG}-message session {m_big * 1000:.3f} ms, "
        f"{SMALL}-message session {m_small * 1000:.3f} ms, ratio {ratio:.3f}"
    )
    run.close()
    big.close()
    small.close()
    ok = ratio <= MAX_RATIO
    return verdict(ok, f"history ratio {ratio:.3f} {'<=' if ok else '>'} {MAX_RATIO}")


if __name__ == "__main__":
    sys.exit(main())
