"""A stand-in for a running OpenClaw gateway: writes its SQLite session store as the gateway does.

The real store's schema calls `octet_length`, which this machine's SQLite lacks, so a writable
copy is built from the fixture's own schema with that one function swapped for `length`; tables,
columns, triggers and rows are the fixture's. The fake then writes what the gateway writes:
new sessions, transcript events (some zstd-compressed), entry changes, resets, rewrites.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import uuid
from datetime import UTC
from pathlib import Path
from typing import Any

import zstandard

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "openclaw-2026.9.6"
FIXTURE_DB = FIXTURE / "sqlite-state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"


def copy_fixture(dest: Path, layout: str = "sqlite-state") -> Path:
    """A copy of one fixture layout (a state directory) at `dest`."""
    shutil.copytree(FIXTURE / layout, dest)
    return dest


def _writable_schema(source: Path) -> tuple[list[str], list[str]]:
    """(tables, then indexes and triggers) of the source, minus its FTS5 parts."""
    conn = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid").fetchall()
    finally:
        conn.close()
    kept = [
        (kind, sql.replace("octet_length(", "length("))
        for kind, name, sql in rows
        if "_fts" not in name and "_fts" not in sql and not name.startswith("sqlite_")
    ]
    return [sql for kind, sql in kept if kind == "table"], [sql for kind, sql in kept if kind != "table"]


def make_store(path: Path, source: Path = FIXTURE_DB, with_rows: bool = True) -> Path:
    """A writable OpenClaw store at `path`: the fixture's schema (and rows, unless told not)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    tables, rest = _writable_schema(source)
    for sql in tables:
        conn.execute(sql)
    if with_rows:
        conn.execute(f"ATTACH DATABASE 'file:{source}?mode=ro' AS src")
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name != 'sqlite_sequence'"
            )
        ]
        for table in names:
            conn.execute(f"INSERT INTO main.{table} SELECT * FROM src.{table}")
        conn.commit()
        conn.execute("DETACH DATABASE src")
    for sql in rest:
        conn.execute(sql)
    conn.commit()
    conn.close()
    return path


def navigation_json(size: int) -> str:
    """The `navigation_json` the gateway stores beside a zstd-compressed line of `size` bytes."""
    return json.dumps(
        {
            "version": 1,
            "report": {"kind": "canonical"},
            "navigation": {},
            "reset": {},
            "model": {},
            "modelBytes": size,
            "modelWithoutCheckpointBytes": size,
            "withoutCustomDataBytes": size,
        }
    )


class FakeGateway:
    """Writes one agent's store the way the gateway does (each call one transaction)."""

    def __init__(self, root: Path, agent_id: str = "main", *, with_rows: bool = True) -> None:
        self.root = root
        self.path = root / "agents" / agent_id / "agent" / "openclaw-agent.sqlite"
        if not self.path.exists():
            make_store(self.path, with_rows=with_rows)
        self.conn = sqlite3.connect(self.path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.now = 1_795_430_000_000
        self._zstd = zstandard.ZstdCompressor()

    def close(self) -> None:
        self.conn.close()

    def tick(self, ms: int = 1000) -> int:
        self.now += ms
        return self.now

    # -- reading back -----------------------------------------------------------------------

    def session_id(self, key: str) -> str:
        return str(
            self.conn.execute("SELECT current_session_id FROM session_nodes WHERE session_key = ?", (key,)).fetchone()[
                0
            ]
        )

    def entry(self, key: str) -> dict[str, Any]:
        row = self.conn.execute("SELECT entry_json FROM session_nodes WHERE session_key = ?", (key,)).fetchone()
        return dict(json.loads(row[0]))

    def last_seq(self, session_id: str) -> int:
        row = self.conn.execute("SELECT max(seq) FROM transcript_events WHERE session_id = ?", (session_id,)).fetchone()
        return -1 if row[0] is None else int(row[0])

    def last_id(self, session_id: str) -> str | None:
        for (text,) in self.conn.execute(
            "SELECT event_json FROM transcript_events WHERE session_id = ? ORDER BY seq DESC", (session_id,)
        ):
            try:
                return str(json.loads(text)["id"])
            except (TypeError, ValueError, KeyError):
                continue
        return None

    # -- writing ----------------------------------------------------------------------------

    def create_session(self, key: str, entry: dict[str, Any] | None = None, *, session_id: str | None = None) -> str:
        sid = session_id or str(uuid.uuid4())
        now = self.tick()
        data = {"sessionId": sid, "updatedAt": now, **(entry or {})}
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute(
            "INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, created_at, label, "
            "display_name, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (key, sid, json.dumps(data), now, now, data.get("label"), data.get("displayName"), data.get("status")),
        )
        self.conn.execute(
            "INSERT INTO session_windows (session_id, session_key, created_at, updated_at) VALUES (?, ?, ?, ?)",
            (sid, key, now, now),
        )
        self._insert(
            sid, 0, {"type": "session", "version": 3, "id": sid, "timestamp": _iso(now), "cwd": "/home/agent/workspace"}
        )
        self.conn.execute("COMMIT")
        return sid

    def append(
        self, key: str, message: dict[str, Any], *, compress: bool = False, line: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Append one message line (or a given `line`) to a session; returns the line."""
        sid = self.session_id(key)
        now = self.tick()
        if line is None:
            line = {
                "type": "message",
                "id": uuid.uuid4().hex[:8],
                "parentId": self.last_id(sid),
                "timestamp": _iso(now),
                "message": {"timestamp": now, **message},
            }
        self.conn.execute("BEGIN IMMEDIATE")
        self._insert(sid, self.last_seq(sid) + 1, line, compress=compress)
        self.conn.execute(
            "UPDATE session_nodes SET updated_at = ?, entry_json = json_set(entry_json, '$.updatedAt', ?) "
            "WHERE session_key = ?",
            (now, now, key),
        )
        self.conn.execute("COMMIT")
        return line

    def patch(self, key: str, **fields: Any) -> None:
        """Change entry fields (and their columns), as `sessions.patch` does."""
        entry = self.entry(key)
        entry.update(fields)
        now = self.tick()
        entry["updatedAt"] = now
        self.conn.execute(
            "UPDATE session_nodes SET entry_json = ?, updated_at = ?, label = ?, status = ? WHERE session_key = ?",
            (json.dumps(entry), now, entry.get("label"), entry.get("status"), key),
        )

    def archive(self, key: str) -> None:
        self.conn.execute("UPDATE session_nodes SET archived_at = ? WHERE session_key = ?", (self.tick(), key))

    def delete(self, key: str) -> None:
        self.conn.execute("DELETE FROM session_nodes WHERE session_key = ?", (key,))

    def reset(self, key: str) -> str:
        """A new session id under the same key (what `/new` and the daily reset do)."""
        new_id = str(uuid.uuid4())
        now = self.tick()
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute(
            "INSERT INTO session_windows (session_id, session_key, previous_session_id, reason, "
            "created_at, updated_at) VALUES (?, ?, ?, 'reset', ?, ?)",
            (new_id, key, self.session_id(key), now, now),
        )
        self._insert(new_id, 0, {"type": "session", "version": 3, "id": new_id, "timestamp": _iso(now), "cwd": "/w"})
        entry = self.entry(key)
        entry.update(sessionId=new_id, updatedAt=now)
        self.conn.execute(
            "UPDATE session_nodes SET current_session_id = ?, entry_json = ?, updated_at = ? WHERE session_key = ?",
            (new_id, json.dumps(entry), now, key),
        )
        self.conn.execute("COMMIT")
        return new_id

    def rewrite(self, key: str, keep: int, summary: str = "Compacted.") -> None:
        """Compaction: keep the first `keep` lines after the header, then a summary line, under a
        new rewrite generation."""
        sid = self.session_id(key)
        now = self.tick()
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.execute("DELETE FROM transcript_events WHERE session_id = ? AND seq > ?", (sid, keep))
        self._insert(
            sid,
            keep + 1,
            {
                "type": "message",
                "id": uuid.uuid4().hex[:8],
                "parentId": None,
                "timestamp": _iso(now),
                "message": {"role": "assistant", "content": [{"type": "text", "text": summary}], "timestamp": now},
            },
        )
        self.conn.execute(
            "INSERT OR REPLACE INTO transcript_rewrite_watermarks (session_id, generation, updated_at) "
            "VALUES (?, ?, ?)",
            (sid, uuid.uuid4().hex, now),
        )
        self.conn.execute("COMMIT")

    def _insert(self, sid: str, seq: int, line: dict[str, Any], *, compress: bool = False) -> None:
        text = json.dumps(line, separators=(",", ":"), ensure_ascii=False)
        if compress:
            data = text.encode("utf-8")
            navigation = navigation_json(len(data))
            self.conn.execute(
                "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, "
                "event_utf8_bytes, navigation_json) VALUES (?, ?, NULL, ?, ?, ?, ?)",
                (sid, seq, self.now, self._zstd.compress(data), len(data), navigation),
            )
        else:
            self.conn.execute(
                "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)",
                (sid, seq, text, self.now),
            )


def replace_store(root: Path, agent_id: str = "main") -> FakeGateway:
    """The store swapped for a new file (a restore): a fresh copy of the fixture, moved in place."""
    target = root / "agents" / agent_id / "agent" / "openclaw-agent.sqlite"
    staging = target.with_name("incoming.sqlite")
    make_store(staging)
    for suffix in ("-wal", "-shm"):
        Path(str(target) + suffix).unlink(missing_ok=True)
    os.replace(staging, target)
    return FakeGateway(root, agent_id)


def _iso(ms: int) -> str:
    from datetime import datetime

    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
