"""An `import-openclaw` SIGKILLed part-way, again and again, never duplicates or loses a line.

The import batches sessions into transactions; each session's appended lines and its import
cursor share one. So whatever the moment of the kill, the run that completes afterwards leaves
every transcript equal to its source's lines exactly once, in order, and every JSONL mirror
equal to the database. Both layouts, a first import and a re-import of grown transcripts. Each
kill is synchronised on the import's progress (the bytes its JSONL mirrors gained, which grow
inside a transaction, so kills land before, between and in the middle of commits), never on a
fixed sleep.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from openclaw_fake import FakeGateway
from sessions_tui.engine.store.schema import DB_NAME
from sessions_tui.engine.store.store import Store

SESSIONS_PER_AGENT = 1500
AGENTS = ("main", "ops")
NOW_MS = 1_776_081_600_000


@dataclass
class Source:
    """One legacy OpenClaw session: its transcript file and the lines after its header."""

    key: str  # canonical
    path: Path  # its transcript file (legacy) or its agent's store (SQLite)
    lines: list[str] = field(default_factory=list)
    session_id: str = ""


def message(sid: str, n: int, text: str) -> str:
    entry = {
        "type": "message",
        "id": f"{sid[:4]}{n:04x}",
        "parentId": None,
        "timestamp": "2026-04-13T12:00:00.000Z",
        "message": {"role": "user" if n % 2 else "assistant", "content": f"{text} {n}", "timestamp": NOW_MS + n},
    }
    return json.dumps(entry, separators=(",", ":"), ensure_ascii=False)  # as the fake gateway writes it


def legacy_source(root: Path) -> list[Source]:
    """Two agents' legacy stores (`sessions.json` and one JSONL transcript per session)."""
    sources = []
    for agent in AGENTS:
        sdir = root / "agents" / agent / "sessions"
        sdir.mkdir(parents=True)
        store = {}
        for i in range(SESSIONS_PER_AGENT):
            sid = session_id(agent, i)
            raw_key = f"agent:{agent}:telegram:direct:{i}"
            store[raw_key] = {"sessionId": sid, "updatedAt": NOW_MS - i, "chatType": "direct"}
            source = Source(key=raw_key, path=sdir / f"{sid}.jsonl")
            source.lines = [message(sid, n, "first") for n in range(1 + i % 7)]
            header = json.dumps({"type": "session", "version": 3, "id": sid, "timestamp": "2026-04-13T11:00:00.000Z"})
            source.path.write_text("\n".join([header, *source.lines]) + "\n", encoding="utf-8")
            sources.append(source)
        (sdir / "sessions.json").write_text(json.dumps(store), encoding="utf-8")
    return sources


def legacy_grow(root: Path, sources: list[Source]) -> None:
    """OpenClaw went on: most transcripts gained a few lines."""
    for number, source in enumerate(sources):
        new = more_lines(number, source)
        with source.path.open("a", encoding="utf-8") as handle:
            handle.write("".join(line + "\n" for line in new))


def sqlite_source(root: Path) -> list[Source]:
    """Two agents' SQLite stores (OpenClaw 2026.9's schema), written in one transaction each."""
    sources = []
    for agent in AGENTS:
        gateway = FakeGateway(root, agent, with_rows=False)
        gateway.conn.execute("BEGIN IMMEDIATE")
        for i in range(SESSIONS_PER_AGENT):
            sid = session_id(agent, i)
            raw_key = f"agent:{agent}:telegram:direct:{i}"
            entry = {"sessionId": sid, "updatedAt": NOW_MS - i, "chatType": "direct"}
            gateway.conn.execute(
                "INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (raw_key, sid, json.dumps(entry), NOW_MS - i, NOW_MS - i),
            )
            gateway.conn.execute(
                "INSERT INTO session_windows (session_id, session_key, created_at, updated_at) VALUES (?, ?, ?, ?)",
                (sid, raw_key, NOW_MS - i, NOW_MS - i),
            )
            source = Source(key=raw_key, path=gateway.path, session_id=sid)
            source.lines = [message(sid, n, "first") for n in range(1 + i % 7)]
            header = {"type": "session", "version": 3, "id": sid, "timestamp": "2026-04-13T11:00:00.000Z"}
            for seq, line in enumerate([header, *map(json.loads, source.lines)]):
                gateway._insert(sid, seq, line)
            sources.append(source)
        gateway.conn.execute("COMMIT")
        gateway.close()
    return sources


def sqlite_grow(root: Path, sources: list[Source]) -> None:
    gateways = {agent: FakeGateway(root, agent) for agent in AGENTS}
    for gateway in gateways.values():
        gateway.conn.execute("BEGIN IMMEDIATE")
    for number, source in enumerate(sources):
        gateway = gateways[source.key.split(":")[1]]
        first = len(source.lines) + 1
        for seq, line in enumerate(more_lines(number, source), start=first):
            gateway._insert(source.session_id, seq, json.loads(line))
    for gateway in gateways.values():
        gateway.conn.execute("COMMIT")
        gateway.close()


LAYOUTS = {"legacy": (legacy_source, legacy_grow), "sqlite": (sqlite_source, sqlite_grow)}


def session_id(agent: str, i: int) -> str:
    return str(uuid.UUID(int=AGENTS.index(agent) << 64 | i, version=4))


def more_lines(number: int, source: Source) -> list[str]:
    """The lines session `number` gains (most gain some), added to `source.lines`."""
    if number % 5 == 0:
        return []
    sid = source.session_id or source.path.stem
    new = [message(sid, 100 + len(source.lines) + n, "later") for n in range(1 + number % 3)]
    source.lines += new
    return new


def lines_bytes(sources: list[Source]) -> int:
    return sum(len(line) + 1 for source in sources for line in source.lines)


def start_import(root: Path, state: Path, home: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    env["HOME"] = str(home)
    env["XDG_DATA_HOME"] = str(home / "xdg")
    return subprocess.Popen(
        [sys.executable, "-m", "sessions_tui", "import-openclaw", str(root), "--state", str(state)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def progress(state: Path) -> int:
    """Sessions plus import cursors committed so far (0 while the database is not there yet)."""
    if not (state / DB_NAME).exists():
        return 0
    conn = sqlite3.connect(f"file:{state / DB_NAME}?mode=ro", uri=True, timeout=30)
    try:
        sql = "SELECT (SELECT COUNT(*) FROM sessions) + (SELECT COALESCE(SUM(lines), 0) FROM imports)"
        return int(conn.execute(sql).fetchone()[0])
    except sqlite3.OperationalError:  # the schema is being created
        return 0
    finally:
        conn.close()


def mirror_bytes(state: Path) -> int:
    """Bytes in the JSONL mirrors: they grow inside the import's transactions, before each commit."""
    total = 0
    for agent in AGENTS:
        try:
            entries = list(os.scandir(state / "agents" / agent / "sessions"))
        except FileNotFoundError:
            continue
        for entry in entries:
            try:
                total += entry.stat().st_size
            except FileNotFoundError:
                continue
    return total


def kill_after_progress(root: Path, state: Path, home: Path, rise: int) -> bool:
    """Start an import and SIGKILL it once its mirrors grew by `rise` bytes (committed or not:
    the kill lands anywhere in a batch); False if it ended first."""
    before = mirror_bytes(state)
    proc = start_import(root, state, home)
    try:
        while proc.poll() is None:
            if mirror_bytes(state) >= before + rise:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                return True
            time.sleep(0.002)  # polling the mirrors: the kill lands at whatever point it reached
        return False
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        proc.stderr.close()


def import_to_completion(root: Path, state: Path, home: Path) -> str:
    proc = start_import(root, state, home)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()
    assert err.decode() == ""
    return out.decode()


def assert_exact(state: Path, sources: list[Source]) -> None:
    store = Store(state)
    try:
        assert store.sessions.count() == len(sources)
        for source in sources:
            key = source.key
            stored = store.transcripts.transcript_lines(key)
            assert stored == source.lines, key
            session = store.sessions.get(key)
            assert session is not None
            mirror = Path(session.mirror_path).read_text(encoding="utf-8").splitlines()
            assert json.loads(mirror[0])["type"] == "session"
            assert mirror[1:] == stored, key
            with store.read() as conn:
                cursor = conn.execute("SELECT lines FROM imports WHERE session_key = ?", (key,)).fetchone()[0]
            assert cursor == len(source.lines) + 1, key  # the header and every line, consumed once
    finally:
        store.close()
    assert_search_exact(state)


def assert_search_exact(state: Path) -> None:
    """The search index holds exactly the stored sessions (a batch indexes its sessions just before
    each commit), its insert trigger in place."""
    conn = sqlite3.connect(state / DB_NAME)
    try:
        columns = "rowid, key, label, display_name, session_id, channel"
        rows = sorted(conn.execute(f"SELECT {columns} FROM sessions"))
        assert sorted(conn.execute(f"SELECT {columns} FROM sessions_search")) == rows
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'sessions_search_insert'").fetchone()[0]
    finally:
        conn.close()


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_an_import_killed_again_and_again_leaves_every_line_exactly_once(tmp_path, layout):
    build, grow = LAYOUTS[layout]
    root = tmp_path / "openclaw"
    state = tmp_path / "state"
    sources = build(root)
    total = len(sources)
    size = lines_bytes(sources) + 150 * total  # the mirrors' size, about, with their headers

    # First import: killed before its first commit, then at a few points of the way through.
    killed = 0
    for rise in (1, size // 9, size // 4, size // 6):
        killed += kill_after_progress(root, state, home=tmp_path, rise=rise)
    assert killed >= 3, "the import finished before it could be killed: make the source bigger"
    assert 0 < progress(state) < 2 * total + sum(len(s.lines) for s in sources)
    assert_search_exact(state)  # as the kills left it
    import_to_completion(root, state, tmp_path)
    assert_exact(state, sources)

    # OpenClaw went on; the re-import that takes the new lines is killed part-way too.
    before = lines_bytes(sources)
    grow(root, sources)
    growth = lines_bytes(sources) - before
    killed = 0
    for rise in (1, growth // 5, growth // 3):
        killed += kill_after_progress(root, state, home=tmp_path, rise=rise)
    assert killed >= 2
    out = import_to_completion(root, state, tmp_path)
    assert out.splitlines()[-1].endswith("0 problems")
    assert_exact(state, sources)

    # And once more with nothing new: nothing changes.
    out = import_to_completion(root, state, tmp_path)
    assert out.splitlines()[-1] == f"imported 0 sessions, updated 0, unchanged {total}; 0 transcript lines; 0 problems"
    assert_exact(state, sources)
