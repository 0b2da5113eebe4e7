"""OpenClaw interop: SQLite import against legacy import, follow latency, and an idle follow's CPU.

Requirements (issue 8):
1. importing a 10,000-session SQLite store is at least as fast as the legacy import of the same
   sessions (the sessions of `import_bench.py`: header + 10 lines each; in the SQLite store every
   line of 1 KB or more is zstd-compressed, as the gateway stores it); medians of 3 imports of
   each, alternated, into fresh state directories;
2. follow latency, from an event committed to OpenClaw's store to the same message returned by
   `sessions_history`: p50 under 0.5 s (40 events at random moments, follow ticking every 0.25 s);
3. an idle follow (`import-openclaw DIR --follow` on the 10,000-session store, nothing writing)
   uses under 1 % of a CPU, measured from /proc over 20 s after its first sync.

Run: .venv/bin/python bench/openclaw_bench.py
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))
from _common import ToolRunner, check, in_temp_dir, verdict  # noqa: E402
from import_bench import LINES, NOW_MS, build_source  # noqa: E402

from openclaw_fake import make_store, navigation_json  # noqa: E402  - the real store's schema, writable here
from sessions_tui.engine.clock import FrozenClock  # noqa: E402
from sessions_tui.engine.config import parse_config  # noqa: E402
from sessions_tui.engine.engine import Engine  # noqa: E402
from sessions_tui.engine.openclaw.follow import Follower, FollowTick, run_follow  # noqa: E402
from sessions_tui.engine.openclaw.importer import import_openclaw  # noqa: E402

COMPRESS_FROM = 1024  # the gateway compresses lines from this size on
EVENTS = 40
RUNS = 3  # imports of each layout
IDLE_SECONDS = 20.0


def sqlite_from_legacy(legacy: Path, root: Path) -> int:
    """The same sessions in OpenClaw 2026.9's layout: one store per agent, lines as event rows."""
    import zstandard

    zstd = zstandard.ZstdCompressor()
    rows = 0
    for agent_dir in sorted((legacy / "agents").iterdir()):
        store = json.loads((agent_dir / "sessions" / "sessions.json").read_text(encoding="utf-8"))
        path = make_store(root / "agents" / agent_dir.name / "agent" / "openclaw-agent.sqlite", with_rows=False)
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA journal_mode=WAL")
        for key, entry in store.items():
            canonical = key if key.startswith("agent:") else f"agent:{agent_dir.name}:{key}"
            sid = entry["sessionId"]
            conn.execute(
                "INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, label) "
                "VALUES (?, ?, ?, ?, ?)",
                (canonical, sid, json.dumps(entry), entry["updatedAt"], entry.get("label")),
            )
            conn.execute(
                "INSERT INTO session_windows (session_id, session_key, created_at, updated_at) VALUES (?, ?, ?, ?)",
                (sid, canonical, entry["updatedAt"], entry["updatedAt"]),
            )
            lines = (agent_dir / "sessions" / f"{sid}.jsonl").read_text(encoding="utf-8").splitlines()
            for seq, line in enumerate(lines):
                text = json.dumps(json.loads(line), separators=(",", ":"))  # the gateway's spelling
                data = text.encode("utf-8")
                if len(data) >= COMPRESS_FROM and seq > 0:
                    nav = navigation_json(len(data))
                    conn.execute(
                        "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, "
                        "event_utf8_bytes, navigation_json) VALUES (?, ?, NULL, 0, ?, ?, ?)",
                        (sid, seq, zstd.compress(data), len(data), nav),
                    )
                else:
                    conn.execute(
                        "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 0)",
                        (sid, seq, text),
                    )
                rows += 1
        conn.commit()
        conn.close()
    return rows


def engine_at(path: Path) -> Engine:
    cfg, _ = parse_config({})
    return Engine(path, cfg, clock=FrozenClock(NOW_MS))


def timed_import(state: Path, source: Path) -> tuple[float, int, int, int]:
    engine = engine_at(state)
    t0 = time.perf_counter()
    report = import_openclaw(engine.store, engine.canonical, source)
    elapsed = time.perf_counter() - t0
    engine.close()
    return elapsed, report.sessions_imported, report.lines_imported, len(report.problems)


def follow_latency(tmp: Path, source: Path) -> list[float]:
    """Seconds from a committed event to `sessions_history` returning it, per event."""
    state = tmp / "follow-state"
    follower_engine = engine_at(state)
    stop = asyncio.Event()
    loop = asyncio.new_event_loop()
    follower = Follower(follower_engine.store, follower_engine.canonical, source)
    synced = threading.Event()

    def on_tick(tick: FollowTick) -> None:
        if tick.first:
            synced.set()

    thread = threading.Thread(target=loop.run_until_complete, args=(run_follow(follower, stop, on_tick),), daemon=True)
    thread.start()
    reader = Engine(state)  # the reader is another connection, as the dashboard or a `tool` is
    tools = ToolRunner()
    store = source / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    writer = sqlite3.connect(store, isolation_level=None)
    key, sid = writer.execute(
        "SELECT session_key, current_session_id FROM session_nodes ORDER BY updated_at DESC LIMIT 1"
    ).fetchone()
    check(synced.wait(timeout=300), "the follow's first sync finished")
    rng = random.Random(3)
    samples = []
    seq = writer.execute("SELECT max(seq) FROM transcript_events WHERE session_id = ?", (sid,)).fetchone()[0]
    for n in range(EVENTS):
        time.sleep(rng.uniform(0.05, 0.4))  # at random moments against the 0.25 s tick
        seq += 1
        marker = f"latency probe {n}"
        message = {"role": "user", "content": marker, "timestamp": NOW_MS}
        line = json.dumps(
            {
                "type": "message",
                "id": f"probe{n:04d}",
                "parentId": None,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": message,
            },
            separators=(",", ":"),
        )
        writer.execute(
            "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 0)",
            (sid, seq, line),
        )
        written = time.perf_counter()
        while True:
            messages = tools(reader, "sessions_history", {"sessionKey": key, "limit": 1})["messages"]
            if messages and messages[-1].get("content") == marker:
                samples.append(time.perf_counter() - written)
                break
            check(time.perf_counter() - written < 10, f"event {n} visible within 10 s")
            time.sleep(0.005)
    loop.call_soon_threadsafe(stop.set)
    thread.join(timeout=10)
    tools.close()
    writer.close()
    reader.close()
    follower_engine.close()
    return samples


def idle_cpu(tmp: Path, source: Path) -> float:
    """Percent of one CPU an idle `import-openclaw --follow` uses after its first sync."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sessions_tui",
            "import-openclaw",
            str(source),
            "--follow",
            "--state",
            str(tmp / "idle-state"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "SESSIONS_TUI_HOME": str(tmp / "home")},
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("imported "):
                break
        time.sleep(1.0)
        ticks = os.sysconf("SC_CLK_TCK")
        cpu0, t0 = _cpu_seconds(proc.pid, ticks), time.monotonic()
        time.sleep(IDLE_SECONDS)
        cpu1, t1 = _cpu_seconds(proc.pid, ticks), time.monotonic()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    check(proc.returncode == 0, f"the follow stopped cleanly on SIGTERM (exit {proc.returncode})")
    return 100.0 * (cpu1 - cpu0) / (t1 - t0)


def _cpu_seconds(pid: int, ticks: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime (fields 14 and 15)


def bench(tmp: Path) -> int:
    t0 = time.perf_counter()
    expected = build_source(tmp / "legacy")
    rows = sqlite_from_legacy(tmp / "legacy", tmp / "sqlite")
    print(
        f"setup: {expected} sessions x (header + {LINES} lines) in both layouts ({rows} event rows) "
        f"in {time.perf_counter() - t0:.1f} s"
    )
    times: dict[str, list[float]] = {"legacy": [], "sqlite": []}
    for run in range(RUNS):  # alternated, so a slow spell of the disk hits both layouts alike
        for layout in ("legacy", "sqlite"):
            seconds, n, lines, problems = timed_import(tmp / f"state-{layout}-{run}", tmp / layout)
            check(
                n == expected and lines == expected * LINES and not problems,
                f"the {layout} import took every session and line",
            )
            times[layout].append(seconds)
    legacy_s, sqlite_s = statistics.median(times["legacy"]), statistics.median(times["sqlite"])
    for name, layout, median in (("legacy", "legacy", legacy_s), ("SQLite", "sqlite", sqlite_s)):
        runs = ", ".join(f"{t:.2f}" for t in times[layout])
        print(f"{name:6} import: median {median:6.2f} s  {expected / median:7,.0f} sessions/s  (runs: {runs})")
    print(f"ratio SQLite/legacy {sqlite_s / legacy_s:.2f} (medians of {RUNS}; required <= 1.00)")

    samples = follow_latency(tmp, tmp / "sqlite")
    ms = sorted(s * 1000 for s in samples)
    p50 = statistics.median(ms)
    print(
        f"follow latency over {len(ms)} events: p50 {p50:.0f} ms  p90 {statistics.quantiles(ms, n=10)[-1]:.0f} ms  "
        f"max {ms[-1]:.0f} ms (required p50 < 500 ms)"
    )

    cpu = idle_cpu(tmp, tmp / "sqlite")
    print(f"idle follow of {expected} sessions: {cpu:.2f} % of one CPU over {IDLE_SECONDS:.0f} s (required < 1 %)")
    ok = sqlite_s <= legacy_s and p50 < 500 and cpu < 1.0
    return verdict(ok, f"SQLite/legacy import {sqlite_s / legacy_s:.2f}, follow p50 {p50:.0f} ms, idle CPU {cpu:.2f} %")


def main() -> int:
    return in_temp_dir("openclaw-bench-", bench)


if __name__ == "__main__":
    sys.exit(main())
