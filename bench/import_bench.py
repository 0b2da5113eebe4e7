"""import_openclaw of a legacy OpenClaw state directory of 10,000 sessions.

Requirement: the import takes at most 2 s (wall clock, from the call to its return, the store's
final WAL checkpoint included). Also reports sessions (and transcript lines) per second, and
checks that all 10,000 sessions and their lines came in with no problem reported.

The source: two agents (`main`, `ops`) of 5,000 sessions each, every transcript a
`{"type":"session"}` header plus 10 message lines (user / assistant / tool call / tool result).

Run: .venv/bin/python bench/import_bench.py
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import check, in_temp_dir, verdict  # noqa: E402

from sessions_tui.engine.clock import FrozenClock, iso_from_ms  # noqa: E402
from sessions_tui.engine.config import parse_config  # noqa: E402
from sessions_tui.engine.engine import Engine  # noqa: E402
from sessions_tui.engine.openclaw.importer import import_openclaw  # noqa: E402

SESSIONS = 10_000
AGENTS = ("main", "ops")
LINES = 10
NOW_MS = 1_776_081_600_000
MINUTE = 60_000
LIMIT_S = 2.0


def legacy_key(agent: str, i: int, rng: random.Random) -> str:
    r = rng.random()
    if i == 0:
        return "main" if agent == "main" else f"agent:{agent}:main"
    if r < 0.4:
        channel = rng.choice(("discord", "telegram", "whatsapp"))
        return f"agent:{agent}:{channel}:group:{i}"
    if r < 0.6:
        return f"agent:{agent}:telegram:direct:{i}"
    if r < 0.75:
        return f"cron:job-{i}" if agent == "main" else f"agent:{agent}:cron:job-{i}"  # bare legacy keys too
    if r < 0.85:
        return f"agent:{agent}:hook:{i}"
    return f"agent:{agent}:subagent:{i}"


def message(n: int, ts: int, rng: random.Random) -> dict:
    """The n-th message of a transcript: a user question, an assistant tool call, its result, an answer."""
    phase = n % 4
    if phase == 0:
        return {"role": "user", "content": f"question {n}: " + "lorem ipsum " * rng.randint(2, 20), "timestamp": ts}
    if phase == 1:
        return {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "let me check"},
                {"type": "toolCall", "id": f"call_{n}", "name": "exec", "arguments": {"cmd": "ls -la"}},
            ],
            "provider": "openai",
            "model": "gpt-5",
            "stopReason": "toolUse",
            "usage": {"input": 900, "output": 30, "totalTokens": 930},
            "timestamp": ts,
        }
    if phase == 2:
        return {
            "role": "toolResult",
            "toolCallId": f"call_{n - 1}",
            "toolName": "exec",
            "content": [{"type": "text", "text": "total 0\n" * rng.randint(1, 10)}],
            "isError": False,
            "timestamp": ts,
        }
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": "done. " * rng.randint(1, 30)}],
        "provider": "openai",
        "model": "gpt-5",
        "stopReason": "stop",
        "timestamp": ts,
    }


def transcript(session_id: str, start: int, rng: random.Random) -> str:
    lines = [
        json.dumps(
            {"type": "session", "version": 3, "id": session_id, "timestamp": iso_from_ms(start), "cwd": "/home/op/work"}
        )
    ]
    parent = None
    for n in range(LINES):
        ts = start + (n + 1) * 1000
        msg = message(n, ts, rng)
        entry_id = f"{rng.getrandbits(32):08x}"
        lines.append(
            json.dumps(
                {"type": "message", "id": entry_id, "parentId": parent, "timestamp": iso_from_ms(ts), "message": msg}
            )
        )
        parent = entry_id
    return "\n".join(lines) + "\n"


def build_source(root: Path) -> int:
    rng = random.Random(7)
    per_agent = SESSIONS // len(AGENTS)
    for agent in AGENTS:
        sdir = root / "agents" / agent / "sessions"
        sdir.mkdir(parents=True)
        store: dict[str, dict] = {}
        for i in range(per_agent):
            sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            updated = NOW_MS - rng.randint(0, 60 * 24 * 60 * MINUTE)
            key = legacy_key(agent, i, rng)
            store[key] = {
                "sessionId": sid,
                "updatedAt": updated,
                "chatType": "group" if ":group:" in key else "direct",
                "lastChannel": "telegram",
                "model": "gpt-5",
                "totalTokens": rng.randint(0, 50000),
                "label": f"session {i}" if rng.random() < 0.3 else None,
            }
            store[key] = {k: v for k, v in store[key].items() if v is not None}
            (sdir / f"{sid}.jsonl").write_text(transcript(sid, updated - LINES * 1000 - 1000, rng), encoding="utf-8")
        (sdir / "sessions.json").write_text(json.dumps(store, indent=2), encoding="utf-8")
    return per_agent * len(AGENTS)


def file_creation_us(where: Path, count: int = 1000) -> float:
    """Microseconds this filesystem takes to create an empty file now. It varies fiftyfold: ext4
    without a journal will not reuse an inode freed in the last 1 to 5 minutes, and each creation
    scans past every such one (the kernel's `recently_deleted`), so for minutes after many
    deletions (another run's cleanup included) each creation costs up to a millisecond. The files
    are left in place (deleting them would slow the import's)."""
    where.mkdir()
    t0 = time.perf_counter()
    for n in range(count):
        os.close(os.open(where / f"{uuid.UUID(int=n, version=4)}.jsonl", os.O_WRONLY | os.O_CREAT, 0o600))
    return (time.perf_counter() - t0) / count * 1e6


def main() -> int:
    return in_temp_dir("import-bench-", bench)


def bench(tmp: Path) -> int:
    t0 = time.perf_counter()
    expected = build_source(tmp / "openclaw")
    print(
        f"setup: legacy store of {expected} sessions x (header + {LINES} lines) "
        f"in {time.perf_counter() - t0:.1f} s ({tmp})"
    )
    probe = file_creation_us(tmp / "probe")
    print(
        f"this filesystem creates a file in {probe:.0f} us now (x {expected} mirrors = {probe * expected / 1e6:.1f} s)"
    )
    cfg, _ = parse_config({})
    engine = Engine(tmp / "state", cfg, clock=FrozenClock(NOW_MS))
    t0, cpu0 = time.perf_counter(), os.times()
    report = import_openclaw(engine.store, engine.canonical, tmp / "openclaw")
    elapsed, cpu = time.perf_counter() - t0, os.times()
    print(report.summary())
    for problem in report.problems[:10]:
        print(f"  problem: {problem}")
    print(
        f"import: {elapsed:.2f} s, {report.sessions_imported / elapsed:,.0f} sessions/s, "
        f"{report.lines_imported / elapsed:,.0f} transcript lines/s; CPU user {cpu.user - cpu0.user:.2f} s, "
        f"system {cpu.system - cpu0.system:.2f} s (creating files on a filesystem that has just deleted many "
        "shows here as system time)"
    )
    print(
        f"  the mirror-writing process: CPU user {cpu.children_user - cpu0.children_user:.2f} s, "
        f"system {cpu.children_system - cpu0.children_system:.2f} s (on the other core, alongside the import)"
    )
    stored = engine.store.sessions.count(include_archived=True)
    engine.close()
    check(
        report.sessions_imported == expected == stored
        and report.lines_imported == expected * LINES
        and not report.problems,
        f"imported {report.sessions_imported}/{expected} sessions ({stored} stored), "
        f"{report.lines_imported}/{expected * LINES} lines, {len(report.problems)} problems",
    )
    return verdict(
        elapsed <= LIMIT_S,
        f"imported {expected} sessions ({expected * LINES} lines) in {elapsed:.2f} s (requirement <= {LIMIT_S:.0f} s)",
    )


if __name__ == "__main__":
    sys.exit(main())
