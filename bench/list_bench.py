"""sessions_list over 100,000 sessions vs over 1,000 sessions.

Requirement: `sessions_list {"limit": 100, "activeMinutes": 5}` over a store of 100,000
sessions is no slower than 2x the same call over 1,000 sessions (medians of >= 30 timed calls
after warm-up). In both stores ~150 sessions were active within the last 5 minutes and the
rest are older; keys are of every kind (main, group/channel, cron and cron runs, hook, node,
direct, sub-agent, some archived) across four agents.

Run: .venv/bin/python bench/list_bench.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ToolRunner, check, describe, in_temp_dir, time_interleaved, verdict  # noqa: E402

from sessions_tui.engine.clock import FrozenClock  # noqa: E402
from sessions_tui.engine.config import parse_config  # noqa: E402
from sessions_tui.engine.engine import Engine  # noqa: E402

BIG = 100_000
SMALL = 1_000
ACTIVE = 150
MAX_RATIO = 2.0
WARMUP = 10
RUNS = 50
NOW_MS = 1_776_081_600_000
MINUTE = 60_000
DAY = 24 * 60 * MINUTE
AGENTS = ("main", "ops", "research", "support")
PARAMS = {"limit": 100, "activeMinutes": 5}
CONFIG = {"tools": {"agentToAgent": {"enabled": True}}}  # every agent's sessions are visible


def session_specs(count: int, rng: random.Random) -> list[tuple[str, dict, bool]]:
    """(key, entry, archived) for `count` sessions of realistic kinds; updatedAt set later."""
    out: list[tuple[str, dict, bool]] = []
    keys: set[str] = set()

    def uid() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    def add(key: str, entry: dict, archived: bool = False) -> None:
        if key not in keys:
            keys.add(key)
            out.append((key, entry, archived))

    for agent in AGENTS:
        add(f"agent:{agent}:main", {"lastChannel": "webchat", "model": "gpt-5", "totalTokens": 12000})
    cron_jobs = [f"job-{i}" for i in range(max(5, count // 500))]
    while len(out) < count:
        agent = rng.choices(AGENTS, weights=(70, 15, 10, 5))[0]
        r = rng.random()
        if r < 0.30:
            channel = rng.choice(("discord", "telegram", "whatsapp", "slack"))
            shape = "channel" if channel == "slack" else "group"
            gid = rng.randint(1, 10**12)
            add(
                f"agent:{agent}:{channel}:{shape}:{gid}",
                {
                    "chatType": shape,
                    "displayName": f"{channel}:#room-{gid % 9973}",
                    "subject": f"Room {gid % 9973}",
                    "lastChannel": channel,
                    "deliveryContext": {"channel": channel, "to": f"{shape}:{gid}", "accountId": "default"},
                    "model": "gpt-5",
                    "totalTokens": rng.randint(100, 200000),
                },
            )
        elif r < 0.45:
            channel = rng.choice(("telegram", "whatsapp", "signal"))
            add(
                f"agent:{agent}:{channel}:direct:{rng.randint(10**9, 10**10)}",
                {
                    "chatType": "direct",
                    "lastChannel": channel,
                    "lastTo": f"user:{rng.randint(1, 10**6)}",
                },
            )
        elif r < 0.50:
            add(f"agent:main:cron:{rng.choice(cron_jobs)}", {"label": "cron job"})
        elif r < 0.70:  # cron run sessions: stored, never listed
            add(f"agent:main:cron:{rng.choice(cron_jobs)}:run:{uid()}", {"label": "cron run"})
        elif r < 0.78:
            add(f"agent:main:hook:{uid()}", {"label": "github webhook"})
        elif r < 0.80:
            add(f"agent:main:node-{rng.randint(1, 500)}", {"displayName": "node"})
        else:
            parent = f"agent:{agent}:main"
            add(
                f"agent:{agent}:subagent:{uid()}",
                {
                    "spawnedBy": parent,
                    "parentSessionKey": parent,
                    "label": f"task {rng.randint(1, 9999)}",
                    "status": rng.choice(("done", "done", "failed", "timeout")),
                    "spawnDepth": 1,
                    "runtimeMs": rng.randint(1000, 600000),
                },
                archived=rng.random() < 0.5,
            )
    return out


def build(state: Path, count: int, seed: int) -> tuple[Engine, int]:
    """A store of `count` sessions, `ACTIVE` of them listable and active in the last 5 minutes."""
    rng = random.Random(seed)
    cfg, _ = parse_config(CONFIG)
    engine = Engine(state, cfg, clock=FrozenClock(NOW_MS))
    store = engine.store
    specs = session_specs(count, rng)
    listable = [i for i, (key, _, archived) in enumerate(specs) if not archived and ":run:" not in key]
    active = set(rng.sample(listable, ACTIVE))
    with store.write() as conn:
        for i, (key, entry, archived) in enumerate(specs):
            if i in active:
                updated = NOW_MS - rng.randint(0, 4 * MINUTE + 30_000)
            else:
                updated = NOW_MS - rng.randint(6 * MINUTE, 90 * DAY)
            entry = dict(entry, updatedAt=updated)
            store.sessions.create_in(conn, key, entry, created_at=updated - rng.randint(0, 30 * DAY))
            if archived:
                conn.execute("UPDATE sessions SET archived_at = ? WHERE key = ?", (updated + MINUTE, key))
    return engine, len(active)


def main() -> int:
    return in_temp_dir("list-bench-", bench)


def bench(tmp: Path) -> int:
    t0 = time.perf_counter()
    big, _ = build(tmp / "big", BIG, seed=1)
    small, _ = build(tmp / "small", SMALL, seed=2)
    print(f"setup: {BIG} + {SMALL} sessions in {time.perf_counter() - t0:.1f} s ({tmp})")
    check(big.store.sessions.count(include_archived=True) == BIG, "big store holds 100,000 sessions")
    check(small.store.sessions.count(include_archived=True) == SMALL, "small store holds 1,000 sessions")

    run = ToolRunner()
    for name, engine in (("big", big), ("small", small)):
        result = run(engine, "sessions_list", PARAMS)
        check(result["count"] == 100 and result["hasMore"] is True, f"{name}: 100 rows and more")
        cutoff = NOW_MS - 5 * MINUTE
        check(all(row["updatedAt"] >= cutoff for row in result["sessions"]), f"{name}: only active rows")
        kinds = sorted({row["kind"] for row in result["sessions"]})
        everything = run(engine, "sessions_list", {"activeMinutes": 5, "limit": 200})
        check(everything["count"] == ACTIVE, f"{name}: {ACTIVE} active sessions in all")
        print(f"{name}: {result['count']} rows of {ACTIVE} active; kinds {', '.join(kinds)}")

    samples = time_interleaved(
        {
            "100,000 sessions": lambda: run(big, "sessions_list", PARAMS),
            "1,000 sessions": lambda: run(small, "sessions_list", PARAMS),
        },
        warmup=WARMUP,
        runs=RUNS,
    )
    for name, values in samples.items():
        print(f"{name:<18} {describe(values)}")
    m_big = statistics.median(samples["100,000 sessions"])
    m_small = statistics.median(samples["1,000 sessions"])
    ratio = m_big / m_small
    print(
        f"sessions_list median: {BIG} sessions {m_big * 1000:.3f} ms, {SMALL} sessions "
        f"{m_small * 1000:.3f} ms, ratio {ratio:.3f}"
    )
    run.close()
    big.close()
    small.close()
    ok = ratio <= MAX_RATIO
    return verdict(ok, f"list ratio {ratio:.3f} {'<=' if ok else '>'} {MAX_RATIO}")


if __name__ == "__main__":
    sys.exit(main())
