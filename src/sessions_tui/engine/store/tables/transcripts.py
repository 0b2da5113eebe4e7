"""Transcripts: each session's lines in order, and their append-only OpenClaw JSONL mirror.

Each transcript is mirrored, append-only, as an OpenClaw JSONL file. The mirror is written while
the write lock is held (a batch's new mirrors by a child process, all of them before the batch
commits: mirror_files.py), and the byte size it should have is committed with the session's row: a
line left behind by a process that died before its commit is cut off at the session's next append
(or the file is rebuilt whole if it went missing), so the mirror always converges on the database.
A session's mirror file is created with its first line: a session with no lines has none, and a
missing mirror reads as empty (recorded size 0).
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from sessions_tui.engine.clock import iso_from_ms
from sessions_tui.engine.inputs.surrogates import loads
from sessions_tui.engine.sessions import ids
from sessions_tui.engine.sessions.entry import SessionEntry, is_int
from sessions_tui.engine.store.codec import dumps, int_or_zero, str_or_none
from sessions_tui.engine.store.connection import Database, StoreError
from sessions_tui.engine.store.disk.mirror_files import MirrorWriter, write_all, write_new
from sessions_tui.engine.store.schema import TRANSCRIPT_VERSION
from sessions_tui.engine.store.tables.messages import is_message_line, message_of_line
from sessions_tui.engine.store.tables.sessions import SessionsRepository, TranscriptTail
from sessions_tui.engine.store.tables.text_index import TextIndexRepository, sid_terms
from sessions_tui.engine.store.usage_hours import add_lines as add_usage


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


def mirror_header(session_id: str, created_at: int, state_dir: Path) -> str:
    """The mirror's first line, as OpenClaw writes a transcript's session header."""
    return (
        f'{{"type":"session","version":{TRANSCRIPT_VERSION},"id":{dumps(session_id)},'
        f'"timestamp":"{iso_from_ms(created_at)}","cwd":{_cwd_json(state_dir)}}}'
    )


@lru_cache(maxsize=16)
def _cwd_json(state_dir: Path) -> str:
    """The header's `cwd` as JSON: the same for every mirror of a store (dumps-ing it cost an import more)."""
    return dumps(str(state_dir))


_INSERT_LINE = "INSERT INTO transcript (rowid, session_id, seq, msg_seq, entry_id, line) VALUES (?, ?, ?, ?, ?, ?)"
# A line's rowid is never one an earlier line had (even one since deleted): the text index keys by it,
# and has indexed every rowid up to `indexed_through`.
# (Portable SQL: PostgreSQL has no two-argument `max`.)


class _Lines:
    """Lines to append after `before`: their rows, their mirror bytes, and the counters after them.

    A line without an `id` gets a fresh one, chained to the previous line by `parentId` and
    stamped with `now`; `raw`, when given, is each line's verbatim text (imports). The rows take
    the rowids from `first_rowid` on, in order (the text index keys its rows by them).
    """

    def __init__(
        self,
        session_id: str,
        before: TranscriptTail,
        lines: list[dict[str, Any]],
        raw: list[str] | None,
        now: int,
        first_rowid: int,
    ) -> None:
        last_seq, msg_count, parent = before.last_seq, before.msg_count, before.last_entry_id
        self.first_rowid = first_rowid
        self.lines: list[dict[str, Any]] = []
        self.rows: list[tuple[int, str, int, int | None, str | None, str]] = []
        texts: list[str] = []
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
            entry_id = line.get("id")
            if isinstance(entry_id, str) and entry_id:
                parent = entry_id
            else:
                entry_id = None
            self.rows.append((first_rowid + i, session_id, last_seq, msg_seq, entry_id, text))
            self.lines.append(line)
            texts.append(text)
        texts.append("")
        self.data = "\n".join(texts).encode("utf-8") if lines else b""
        self.last_seq, self.msg_count, self.parent = last_seq, msg_count, parent

    def appended(self) -> list[Appended]:
        """What each line became (built on demand: an import does not ask)."""
        return [
            Appended(seq=seq, msg_seq=msg_seq, entry_id=entry_id or "") for _, _, seq, msg_seq, entry_id, _ in self.rows
        ]


class TranscriptsRepository:
    """Appending to and reading session transcripts, keeping the mirror files in step."""

    def __init__(self, db: Database, sessions: SessionsRepository, text_index: TextIndexRepository) -> None:
        self.db = db
        self.sessions = sessions
        self.text_index = text_index
        self._writer: MirrorWriter | None = None
        db.before_batch_commit.append(self._sync_batch_mirrors)
        db.after_batch.append(self._end_mirror_writer)

    def append(
        self,
        key: str,
        message: dict[str, Any],
        *,
        touch: bool = True,
    ) -> Appended:
        """Append one chat message to a session's transcript (and its mirror)."""
        msg = dict(message)
        ts = msg.setdefault("timestamp", self.db.now())
        line: dict[str, Any] = {"type": "message", "message": msg}
        if is_int(ts):
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
        with self.db.write(key=key) as conn:
            return self.append_lines_in(conn, key, lines, raw=raw, touch=touch)

    def append_lines_in(
        self,
        conn: sqlite3.Connection,
        key: str,
        lines: list[dict[str, Any]],
        *,
        raw: list[str] | None,
        touch: bool,
    ) -> list[Appended]:
        now = self.db.now()
        row = conn.execute(
            """SELECT session_id, agent_id, created_at, updated_at, last_seq, msg_count, last_entry_id, mirror_path,
                      mirror_size, spawned_by, parent_session_key FROM sessions WHERE key = ?""",
            (key,),
        ).fetchone()
        if not row:
            raise StoreError(f"No session found: {key}")
        before = TranscriptTail(int_or_zero(row["last_seq"]), int(row["msg_count"]), row["last_entry_id"])
        first = self.text_index.next_rowids(conn, len(lines))
        new = _Lines(row["session_id"], before, lines, raw, now, first)
        mirror_size = int(row["mirror_size"])
        if new.rows:
            mirror_size = self._write_mirror(conn, row, new.data)
            conn.executemany(_INSERT_LINE, new.rows)
            sid = sid_terms(key, row["spawned_by"], row["parent_session_key"])
            self.text_index.index_lines(conn, new.first_rowid, new.lines, sid)
            add_usage(conn, key, row["agent_id"], new.lines, now)
        updated_at = max(now, int(row["updated_at"])) if touch else int(row["updated_at"])
        conn.execute(
            """UPDATE sessions SET last_seq = ?, msg_count = ?, last_entry_id = ?,
                   mirror_size = ?, updated_at = ?,
                   entry = json_set(entry, '$.updatedAt', ?) WHERE key = ?""",
            (new.last_seq, new.msg_count, new.parent, mirror_size, updated_at, updated_at, key),
        )
        return new.appended()

    def create_with_lines(
        self,
        conn: sqlite3.Connection,
        key: str,
        entry: SessionEntry,
        *,
        session_id: str,
        created_at: int | None,
        lines: list[dict[str, Any]],
        raw: list[str],
    ) -> None:
        """A new session and its first lines: one row written, its mirror file in one write."""
        created = created_at if created_at is not None else self.db.now()
        now = self.db.now()
        new = _Lines(session_id, TranscriptTail(), lines, raw, now, self.text_index.next_rowids(conn, len(lines)))
        data = (
            (mirror_header(session_id, created, self.db.state_dir) + "\n").encode("utf-8") + new.data
            if new.rows
            else b""
        )
        tail = TranscriptTail(new.last_seq, new.msg_count, new.parent, len(data))
        session = self.sessions.create_in(conn, key, entry, session_id=session_id, created_at=created, tail=tail)
        if new.rows:  # after the row: a sessionId already in use fails there, before any file is touched
            if self.db._batching:
                self._mirror_writer().add(session.mirror_path, data)  # written before the batch commits
            else:
                write_new(session.mirror_path, data)
            conn.executemany(_INSERT_LINE, new.rows)
            # The spawners as `_create` wrote them into the row (its columns come from this entry).
            entry_of = session.entry
            sid = sid_terms(key, str_or_none(entry_of.get("spawnedBy")), str_or_none(entry_of.get("parentSessionKey")))
            self.text_index.index_lines(conn, new.first_rowid, new.lines, sid)
            add_usage(conn, key, session.agent_id, new.lines, now)

    def _write_mirror(self, conn: sqlite3.Connection, row: sqlite3.Row, data: bytes) -> int:
        """Add `data` (whole lines) to the session's mirror in one write; returns its new size.

        A session gets its mirror file with its first line (an empty session costs no file). A
        mirror that does not have the size the database recorded is first cut back to it, or, if
        shorter or missing, written again whole from the header and the stored lines.
        """
        self._sync_mirrors()
        path = self.db.state_dir / row["mirror_path"]
        expected = int(row["mirror_size"])
        if expected > 0 and self._mirror_at(path, expected):
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            try:
                write_all(fd, data)
            finally:
                os.close(fd)
            return expected + len(data)
        stored = [] if row["last_seq"] == 0 else self._stored_lines(conn, row["session_id"])
        head = mirror_header(row["session_id"], row["created_at"], self.db.state_dir)
        data = "\n".join([head, *stored, ""]).encode("utf-8") + data
        write_new(path, data)
        return len(data)

    def _mirror_writer(self) -> MirrorWriter:
        if self._writer is None:
            self._writer = MirrorWriter()
        return self._writer

    def _sync_mirrors(self) -> None:
        """The batch's new mirrors written before one of them is appended to or removed."""
        if self._writer is not None and self._writer.pending:
            self._writer.sync()

    def _sync_batch_mirrors(self) -> None:
        """A batch commits the sizes of its new mirrors only once they are all written."""
        if self._writer is not None:
            self._writer.sync()

    def _end_mirror_writer(self) -> None:
        if self._writer is not None:
            self._writer.close()

    def drop_mirror(self, row: sqlite3.Row) -> None:
        """Remove a session's mirror file (its transcript is now empty)."""
        self._sync_mirrors()
        try:
            os.unlink(self.db.state_dir / row["mirror_path"])
        except FileNotFoundError:
            pass

    @staticmethod
    def _mirror_at(path: Path, expected: int) -> bool:
        """Whether the mirror holds at least `expected` bytes, cutting off any beyond (a line
        written by a process that died before its commit)."""
        try:
            actual = os.path.getsize(path)
        except OSError:
            return False
        if actual > expected:
            os.truncate(path, expected)
        return actual >= expected

    @staticmethod
    def _stored_lines(conn: sqlite3.Connection, session_id: str) -> list[str]:
        return [
            r[0] for r in conn.execute("SELECT line FROM transcript WHERE session_id = ? ORDER BY seq", (session_id,))
        ]

    def history(self, key: str, limit: int | None = None, offset: int = 0) -> HistoryPage:
        """The newest `limit` messages before the newest `offset` ones, oldest first."""
        with self.db.read() as conn:
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
        with self.db.peek() as conn:
            row = conn.execute("SELECT session_id FROM sessions WHERE key = ?", (key,)).fetchone()
            if not row:
                return []
            return [
                r[0] for r in conn.execute("SELECT line FROM transcript WHERE session_id = ? ORDER BY seq", (row[0],))
            ]

    def transcript_tail(self, key: str) -> tuple[int, str | None]:
        """(lines stored after the header, entry id of the last one) of a session."""
        with self.db.peek() as conn:
            row = conn.execute("SELECT last_seq, last_entry_id FROM sessions WHERE key = ?", (key,)).fetchone()
        return (int(row[0]), row[1]) if row else (0, None)
