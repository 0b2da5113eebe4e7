"""The PostgreSQL store against the SQLite store on the same data (issue 32).

One SQLite store seeded as `list_bench.py` seeds its big one (100,000 sessions of every kind over four
agents, 150 listable ones active in the last 5 minutes, frozen clock, agent-to-agent on) and, as
`history_bench.py` does, 100,000 messages appended to `agent:main:main`; then copied as it is into a
database of a throwaway PostgreSQL server (tests/pg_cluster.py) with `copy_store`. Two engines on the
same config and clock, one over each store (the PostgreSQL one: an `Engine` whose store is replaced by
the `PostgresStore` before any use), and the real tools through `invoke` on both, interleaved call by
call: `sessions_list {}` (its default limit), `sessions_list {"limit": 100, "activeMinutes": 5}` and
`sessions_history {"sessionKey": "main", "limit": 200}`; the store calls under them
(`store.browse.list_sessions(limit=100)`, the tool's default, and `store.transcripts.history(key, 200)`)
are timed too, for reference. Each tool's result is checked to be the same on both stores.
`WARMUP` rounds, then `RUNS` timed calls of each; p50 / p90 per store and the ratio.

Requirement: each tool's p50 on PostgreSQL **≤ 2×** its p50 on SQLite, measured in the same run.

    .venv/bin/python bench/pg_store_bench.py
"""

from __future__ import annotations

import json
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests"), str(Path(__file__).resolve().parent)]

from _common import ToolRunner, check, in_temp_dir, time_interleaved, verdicts  # noqa: E402
from history_bench import message_lines  # noqa: E402
from list_bench import ACTIVE, CONFIG, NOW_MS  # noqa: E402
from list_bench import build as build_sessions  # noqa: E402

from pg_cluster import MISSING, Cluster, start_cluster  # noqa: E402
from sessions_tui.engine.clock import FrozenClock  # noqa: E402
from sessions_tui.engine.config import parse_config  # noqa: E402
from sessions_tui.engine.engine import Engine  # noqa: E402
from sessions_tui.engine.store.copy import copy_store  # noqa: E402
from sessions_tui.engine.store.postgres.store import PostgresStore  # noqa: E402
from sessions_tui.tools.reading.sessions_list import DEFAULT_LIMIT  # noqa: E402

SESSIONS = 100_000
MESSAGES = 100_000
KEY = "agent:main:main"
LIMIT = 200
MAX_RATIO = 2.0
WARMUP = 10
RUNS = 40
MINUTE = 60_000
TOOLS = {
    "sessions_list {}": ("sessions_list", {}),
    "sessions_list active 5 min": ("sessions_list", {"limit": 100, "activeMinutes": 5}),
    "sessions_history 200": ("sessions_history", {"sessionKey": "main", "limit": LIMIT}),
}


def seed(state: Path) -> Engine:
    """list_bench's 100,000 sessions, then 100,000 messages in `agent:main:main` (one of them)."""
    engine, _ = build_sessions(state, SESSIONS, seed=1)
    store = engine.store
    with store.write() as conn:
        store.transcripts.append_lines_in(conn, KEY, message_lines(MESSAGES, seed=MESSAGES), raw=None, touch=False)
    return engine


def over_postgres(url: str, state: Path) -> Engine:
    """An engine as `seed`'s (same config, same clock) whose store is the PostgreSQL database."""
    cfg, _ = parse_config(CONFIG)
    clock = FrozenClock(NOW_MS)
    engine = Engine(state / "engine", cfg, clock=clock)
    engine.store.close()
    engine.store = PostgresStore(url, state / "pg", clock)
    engine.store.text_index.text_redactor = engine.redactor
    return engine


def shown(result: dict, state: Path) -> str:
    """A tool's result as JSON, its state directory (in the mirror files' paths) left out."""
    return json.dumps(result, sort_keys=True).replace(str(state), "<state>")


def main() -> int:
    cluster = start_cluster()
    if cluster is None:
        print(f"FAIL: {MISSING}")
        return 1
    try:
        return in_temp_dir("pg-store-bench-", lambda tmp: bench(tmp, cluster))
    finally:
        cluster.stop()


def bench(tmp: Path, cluster: Cluster) -> int:
    t0 = time.perf_counter()
    lite = seed(tmp / "sqlite")
    print(f"setup: SQLite, {SESSIONS} sessions + {MESSAGES} messages in {time.perf_counter() - t0:.1f} s")
    t0 = time.perf_counter()
    pg = over_postgres(cluster.create_database(f"bench_{uuid.uuid4().hex[:12]}"), tmp)
    report = copy_store(lite.store, pg.store)
    check(not report.mismatched, f"copy_store counts match ({report.mismatched})")
    with pg.store.write() as conn:
        conn.execute("ANALYZE")
    print(f"setup: copy_store into PostgreSQL (then ANALYZE) in {time.perf_counter() - t0:.1f} s")
    for name, engine in (("SQLite", lite), ("PostgreSQL", pg)):
        check(engine.store.sessions.count(include_archived=True) == SESSIONS, f"{name}: {SESSIONS} sessions")

    run = ToolRunner()
    results = {}
    for label, (tool, params) in TOOLS.items():
        a, b = run(lite, tool, params), run(pg, tool, params)
        same = shown(a, tmp / "sqlite") == shown(b, tmp / "pg")
        check(same, f"{label}: the same result from both stores (mirror paths apart)")
        results[label] = a
    check(results["sessions_list {}"]["count"] > 0, "sessions_list {} lists sessions")
    active = results["sessions_list active 5 min"]
    check(active["count"] == 100 and active["hasMore"] is True, "active: 100 rows and more")
    check(all(row["updatedAt"] >= NOW_MS - 5 * MINUTE for row in active["sessions"]), "active: only active rows")
    history = results["sessions_history 200"]
    check(history.get("totalMessages") == MESSAGES and history.get("hasMore") is True, "history: 100,000 messages")
    check(history["messages"][-1]["__openclaw"]["seq"] == MESSAGES, "history: newest message last")
    print(
        f"results (identical on both): sessions_list {{}} {results['sessions_list {}']['count']} rows; "
        f"active {active['count']} of {ACTIVE}; history {len(history['messages'])} messages, {history['bytes']} bytes"
    )

    calls = {}
    for name, engine in (("SQLite", lite), ("PostgreSQL", pg)):
        for label, (tool, params) in TOOLS.items():
            calls[f"{label} | {name}"] = lambda e=engine, t=tool, p=params: run(e, t, p)
        store = engine.store
        calls[f"store list_sessions(100) | {name}"] = lambda s=store: s.browse.list_sessions(limit=DEFAULT_LIMIT)
        calls[f"store history({LIMIT}) | {name}"] = lambda s=store: s.transcripts.history(KEY, limit=LIMIT)
    samples = time_interleaved(calls, warmup=WARMUP, runs=RUNS)
    run.close()
    lite.close()
    pg.close()

    print(f"{WARMUP} warm-up rounds, {RUNS} timed calls of each, interleaved; ms:")
    print(f"  {'call':<30} {'SQLite p50':>10} {'p90':>8}   {'PG p50':>8} {'p90':>8}   {'ratio':>6}")
    checks = []
    for label in [*TOOLS, "store list_sessions(100)", f"store history({LIMIT})"]:
        figures = []
        for name in ("SQLite", "PostgreSQL"):
            ms = [s * 1000 for s in samples[f"{label} | {name}"]]
            figures += [statistics.median(ms), statistics.quantiles(ms, n=10)[-1]]
        ratio = figures[2] / figures[0]
        print(
            f"  {label:<30} {figures[0]:10.3f} {figures[1]:8.3f}   {figures[2]:8.3f} {figures[3]:8.3f}   {ratio:6.2f}"
        )
        if label in TOOLS:
            checks.append(
                (
                    ratio <= MAX_RATIO,
                    f"{label}: p50 PostgreSQL {figures[2]:.3f} ms / SQLite {figures[0]:.3f} ms = {ratio:.2f} "
                    f"{'<=' if ratio <= MAX_RATIO else '>'} {MAX_RATIO}",
                )
            )
    return verdicts(checks)


if __name__ == "__main__":
    sys.exit(main())
