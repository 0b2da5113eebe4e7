"""Bytes on disk of the embedded store: per 1,000 sessions with no messages, and per 100,000 messages.

Two fresh state directories, written through the `Store` APIs in a batch (as an import writes):
1,000 sessions with no messages; 1,000 sessions of 100 messages each (a user question, an
assistant tool call, its result, an assistant answer, repeated; the sizes of import_bench.py's).
For each: the SQLite file with its WAL (and shared-memory index) while the store is open, then
the SQLite file once it is closed (SQLite folds the WAL in and removes it), and the JSONL mirror
files. Every figure both as allocated (st_blocks * 512) and as apparent size (st_size).

Requirement: 1,000 sessions with no messages create no mirror file.

Run: .venv/bin/python bench/storage_bench.py
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import check, in_temp_dir, verdict  # noqa: E402
from import_bench import message  # noqa: E402 - the same message mix and sizes

from sessions_tui.engine.clock import FrozenClock  # noqa: E402
from sessions_tui.engine.store.schema import DB_NAME  # noqa: E402
from sessions_tui.engine.store.store import Store  # noqa: E402

SESSIONS = 1_000
MESSAGES = 100
NOW_MS = 1_776_081_600_000


@dataclass
class Usage:
    files: int = 0
    allocated: int = 0
    apparent: int = 0

    def add(self, path: Path) -> None:
        st = path.stat()
        self.files += 1
        self.allocated += st.st_blocks * 512
        self.apparent += st.st_size

    def __str__(self) -> str:
        return (
            f"{self.files:5d} files  {self.allocated / 1e6:9.3f} MB allocated  {self.apparent / 1e6:9.3f} MB apparent"
        )


def sqlite_usage(state: Path) -> Usage:
    usage = Usage()
    for suffix in ("", "-wal", "-shm"):
        path = state / f"{DB_NAME}{suffix}"
        if path.exists():
            usage.add(path)
    return usage


def mirror_usage(state: Path) -> Usage:
    usage = Usage()
    for path in (state / "agents").rglob("*.jsonl") if (state / "agents").exists() else ():
        usage.add(path)
    return usage


def build(state: Path, messages: int) -> tuple[Usage, Usage, Usage]:
    """(SQLite while open, SQLite once closed, mirrors) of SESSIONS sessions of `messages` each."""
    rng = random.Random(11)
    store = Store(state, FrozenClock(NOW_MS))
    with store.batch() as checkpoint:
        for i in range(SESSIONS):
            key = f"agent:main:telegram:group:{i}" if i % 2 else f"agent:main:subagent:{i}"
            entry = {"updatedAt": NOW_MS - i * 60_000, "chatType": "group", "lastChannel": "telegram", "model": "gpt-5"}
            store.sessions.create(key, entry)
            if messages:
                lines = [{"type": "message", "message": message(n, NOW_MS + n * 1000, rng)} for n in range(messages)]
                store.transcripts.append_lines(key, lines, touch=False)
            checkpoint()
    check(store.sessions.count() == SESSIONS, f"{store.sessions.count()} sessions stored, not {SESSIONS}")
    open_usage = sqlite_usage(state)
    store.close()
    return open_usage, sqlite_usage(state), mirror_usage(state)


def main() -> int:
    return in_temp_dir("storage-bench-", bench)


def bench(tmp: Path) -> int:
    empty_open, empty_closed, empty_mirrors = build(tmp / "empty", 0)
    print(f"{SESSIONS:,} sessions with no messages:")
    print(f"  SQLite + WAL, open   {empty_open}")
    print(f"  SQLite, closed       {empty_closed}")
    print(f"  mirror files         {empty_mirrors}")
    full_open, full_closed, full_mirrors = build(tmp / "full", MESSAGES)
    total = SESSIONS * MESSAGES
    print(f"{SESSIONS:,} sessions x {MESSAGES} messages ({total:,} messages):")
    print(f"  SQLite + WAL, open   {full_open}")
    print(f"  SQLite, closed       {full_closed}")
    print(f"  mirror files         {full_mirrors}")
    check(full_mirrors.files == SESSIONS, f"{full_mirrors.files} mirror files for {SESSIONS} sessions with messages")
    per = (full_closed.allocated - empty_closed.allocated + full_mirrors.allocated) / total * 100_000
    print(
        f"per 100,000 messages (closed SQLite beyond the empty sessions' + mirrors, allocated): {per / 1e6:.1f} MB; "
        f"per 1,000 empty sessions: {empty_closed.allocated / SESSIONS * 1000 / 1e6:.3f} MB"
    )
    return verdict(
        empty_mirrors.files == 0,
        f"{SESSIONS:,} sessions with no messages created {empty_mirrors.files} mirror files (requirement: 0)",
    )


if __name__ == "__main__":
    sys.exit(main())
