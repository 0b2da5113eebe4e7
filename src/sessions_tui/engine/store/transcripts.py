"""Transcripts: each session's lines in order, and their append-only OpenClaw JSONL mirror.

Each transcript is mirrored, append-only, as an OpenClaw JSONL file. The mirror is written while
the write lock is held, and the byte size it should have is committed with the session's row: a
line left behind by a process that died before its commit is cut off at the session's next append
(or the file is rebuilt whole if it went missing), so the mirror always converges on the database.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from typing import Any

from sessions_tui.engine import ids
from sessions_tui.engine.clock import iso_from_ms
from sessions_tui.engine.store.codec import dumps, int_or_zero
from sessions_tui.engine.store.connection import StoreError
from sessions_tui.engine.store.messages import is_message_line, message_of_line
from sessions_tui.engine.store.schema import TRANSCRIPT_VERSION
from sessions_tui.engine.store.sessions import SessionsPart, row_to_session
from sessions_tui.engine.surrogates import loads


@dataclass(frozen=True)
class Appended:
    seq: int
    msg_seq: int | None
    entry_id: str


@dataclass(frozen=True)
class HistoryPage:
    """A window of a transcript's messages, oldest first, numbered as OpenClaw's `readSessionMessages` numbers them."""

    messages: list[dict[str, Any]]
    total: int
    start: int  # msg_seq of the first message minus one


def _ordered_line(line: dict[str, Any]) -> dict[str, Any]:
    """OpenClaw's field order: type, id, parentId, timestamp, then the rest."""
    head: dict[str, Any] = {k: line[k] for k in ("type", "id", "parentId", "timestamp") if k in line}
    head.update({k: v for k, v in line.items() if k not in head})
    return head


class TranscriptsPart(SessionsPart):
    """Appending to and reading session transcripts, keeping the mirror files in step."""

    def append(
        self,
        key: str,
        message: dict[str, Any],
        *,
        touch: bool = True,
    ) -> Appended:
        """Append one chat message to a session's transcript (and its mirror)."""
        msg = dict(message)
        ts = msg.setdefault("timestamp", self.now())
        line: dict[str, Any] = {"type": "message", "message": msg}
        if isinstance(ts, int) and not isinstance(ts, bool):
            line["timestamp"] = iso_from_ms(ts)
        appended: list[Appended] = self.append_lines(key, [line], touch=touch)
        return appended[0]

    def append_lines(
        self,
        key: str,
        lines: list[dict[str, Any]],
        *,
        touch: bool = True,
        raw: list[str] | None = None,
    ) -> list[Appended]:
        """Append transcript lines in one transaction.

        A line without an `id` gets a fresh one, chained to the previous line by `parentId`
        and stamped with the time; `raw`, when given, is each line's verbatim text (imports).
        """
        with self.write() as conn:
            return self._append_lines(conn, key, lines, raw=raw, touch=touch)

    def _append_lines(
        self,
        conn: sqlite3.Connection,
        key: str,
        lines: list[dict[str, Any]],
        *,
        raw: list[str] | None,
        touch: bool,
    ) -> list[Appended]:
        now = self.now()
        out: list[Appended] = []
        row = conn.execute("SELECT * FROM sessions WHERE key = ?", (key,)).fetchone()
        if not row:
            raise StoreError(f"No session found: {key}")
        session = row_to_session(row, self.state_dir)
        last_seq, msg_count = int_or_zero(row["last_seq"]), session.msg_count
        parent = row["last_entry_id"]
        mirror_size = self._reconcile_mirror(conn, row)
        chunks: list[bytes] = []
        for i, line in enumerate(lines):
            text = raw[i] if raw is not None else None
            if text is None:
                line = dict(line)
                if "id" not in line:
                    line["id"] = ids.new_entry_id()
                    line["parentId"] = parent
                    line.setdefault("timestamp", iso_from_ms(now))
                text = dumps(_ordered_line(line))
            last_seq += 1
            msg_seq = None
            if is_message_line(line):
                msg_count += 1
                msg_seq = msg_count
            entry_id = line.get("id") if isinstance(line.get("id"), str) else None
            if entry_id:
                parent = entry_id
            conn.execute(
                "INSERT INTO transcript (session_id, seq, msg_seq, entry_id, line) VALUES (?, ?, ?, ?, ?)",
                (session.session_id, last_seq, msg_seq, entry_id, text),
            )
            chunks.append((text + "\n").encode("utf-8"))
            out.append(Appended(seq=last_seq, msg_seq=msg_seq, entry_id=entry_id or ""))
        data = b"".join(chunks)
        if data:
            fd = os.open(session.mirror_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        updated_at = max(now, session.updated_at) if touch else session.updated_at
        conn.execute(
            """UPDATE sessions SET last_seq = ?, msg_count = ?, last_entry_id = ?,
                   mirror_size = ?, updated_at = ?,
                   entry = json_set(entry, '$.updatedAt', ?) WHERE key = ?""",
            (last_seq, msg_count, parent, mirror_size + len(data), updated_at, updated_at, key),
        )
        return out

    def _reconcile_mirror(self, conn: sqlite3.Connection, row: sqlite3.Row) -> int:
        """Bring the mirror file back to the size the database recorded; returns that size."""
        path = self.state_dir / row["mirror_path"]
        expected = int(row["mirror_size"])
        try:
            actual = os.path.getsize(path)
        except OSError:
            actual = -1
        if actual == expected:
            return expected
        if actual > expected > 0:
            os.truncate(path, expected)
            return expected
        return self._rebuild_mirror(conn, row)

    def _rebuild_mirror(self, conn: sqlite3.Connection, row: sqlite3.Row) -> int:
        sid = row["session_id"]
        header = {
            "type": "session",
            "version": TRANSCRIPT_VERSION,
            "id": sid,
            "timestamp": iso_from_ms(row["created_at"]),
            "cwd": str(self.state_dir),
        }
        parts = [dumps(header)]
        parts += [r[0] for r in conn.execute("SELECT line FROM transcript WHERE session_id = ? ORDER BY seq", (sid,))]
        data = ("\n".join(parts) + "\n").encode("utf-8")
        path = self.state_dir / row["mirror_path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".rebuild")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        conn.execute("UPDATE sessions SET mirror_size = ? WHERE key = ?", (len(data), row["key"]))
        return len(data)

    def history(self, key: str, limit: int | None = None, offset: int = 0) -> HistoryPage:
        """The newest `limit` messages before the newest `offset` ones, oldest first."""
        with self.read() as conn:
            row = conn.execute("SELECT session_id, msg_count FROM sessions WHERE key = ?", (key,)).fetchone()
            if not row:
                return HistoryPage(messages=[], total=0, start=0)
            total = row["msg_count"]
            end = max(0, total - max(0, offset))
            start = 0 if limit is None else max(0, end - limit)
            rows = conn.execute(
                """SELECT line, msg_seq FROM transcript WHERE session_id = ?
                   AND msg_seq > ? AND msg_seq <= ? ORDER BY msg_seq""",
                (row["session_id"], start, end),
            ).fetchall()
        messages = []
        for r in rows:
            msg = message_of_line(loads(r["line"]), r["msg_seq"])
            if msg is not None:
                messages.append(msg)
        return HistoryPage(messages=messages, total=total, start=start)

    def transcript_lines(self, key: str) -> list[str]:
        """Every stored transcript line of a session, verbatim, in order."""
        with self._lock:
            row = self._conn.execute("SELECT session_id FROM sessions WHERE key = ?", (key,)).fetchone()
            if not row:
                return []
            return [
                r[0]
                for r in self._conn.execute("SELECT line FROM transcript WHERE session_id = ? ORDER BY seq", (row[0],))
            ]

    def transcript_tail(self, key: str) -> tuple[int, str | None]:
        """(lines stored after the header, entry id of the last one) of a session."""
        with self._lock:
            row = self._conn.execute("SELECT last_seq, last_entry_id FROM sessions WHERE key = ?", (key,)).fetchone()
        return (int(row[0]), row[1]) if row else (0, None)
