"""Imports: which OpenClaw transcript each imported session came from, and how far it was read.

An import writes a session, its lines and the import's cursor in one transaction, so a process
killed mid-import leaves either all of it or none.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any, cast

from sessions_tui.engine.sessions.entry import SessionEntry, is_int
from sessions_tui.engine.store.codec import exact_dumps
from sessions_tui.engine.store.connection import Database, StoreError
from sessions_tui.engine.store.tables.sessions import SessionsRepository
from sessions_tui.engine.store.tables.text_index import TextIndexRepository
from sessions_tui.engine.store.tables.transcripts import TranscriptsRepository


class ImportsRepository:
    """The `imports` table, and the session writes an import makes with it."""

    def __init__(
        self,
        db: Database,
        sessions: SessionsRepository,
        transcripts: TranscriptsRepository,
        text_index: TextIndexRepository,
    ) -> None:
        self.db = db
        self.sessions = sessions
        self.transcripts = transcripts
        self.text_index = text_index

    def imported_lines(self, source: str) -> int | None:
        """How many physical lines of `source` were imported; None if it never was."""
        with self.db._lock:
            row = self.db._conn.execute("SELECT lines FROM imports WHERE source = ?", (source,)).fetchone()
        return row[0] if row else None

    def import_state(self, source: str, key: str) -> tuple[int | None, str | None]:
        """`imported_lines(source)` and `session_id_of(key)` in one query (an import asks both of each new session)."""
        with self.db._lock:
            row = self.db._conn.execute(
                "SELECT (SELECT lines FROM imports WHERE source = ?), (SELECT session_id FROM sessions WHERE key = ?)",
                (source, key),
            ).fetchone()
        return row[0], None if row[1] is None else str(row[1])

    def record_import(self, source: str, session_key: str, lines: int, entry: Mapping[str, Any]) -> None:
        with self.db.write() as conn:
            self._record_import(conn, source, session_key, lines, entry)

    def _record_import(
        self, conn: sqlite3.Connection, source: str, session_key: str, lines: int, entry: Mapping[str, Any]
    ) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO imports (source, session_key, lines, entry, imported_at) VALUES (?, ?, ?, ?, ?)",
            (source, session_key, lines, exact_dumps(entry), self.db.now()),
        )

    def imported_entry(self, source: str) -> dict[str, Any]:
        """The source's session entry as it was at its last import."""
        with self.db._lock:
            row = self.db._conn.execute("SELECT entry FROM imports WHERE source = ?", (source,)).fetchone()
        return json.loads(row[0]) if row else {}

    def imported_session_id(self, source: str) -> str | None:
        """The sessionId a source session had when it was imported."""
        with self.db._lock:
            row = self.db._conn.execute(
                "SELECT s.session_id FROM imports i JOIN sessions s ON s.key = i.session_key WHERE i.source = ?",
                (source,),
            ).fetchone()
        return row[0] if row else None

    def import_source_of(self, key: str) -> str | None:
        """The OpenClaw source a session was imported from (it belongs to that OpenClaw), if any."""
        with self.db._lock:
            row = self.db._conn.execute("SELECT source FROM imports WHERE session_key = ? LIMIT 1", (key,)).fetchone()
        return str(row[0]) if row else None

    def update_import(
        self,
        key: str,
        *,
        changes: dict[str, Any],
        lines: list[dict[str, Any]],
        raw: list[str],
        source: str,
        source_lines: int,
        entry: dict[str, Any],
        archive: bool = False,
        archived_at: int | None = None,
    ) -> None:
        """An imported session's changed entry fields and new lines, and the import's new
        cursor, in one transaction; with `archive`, its archive time becomes `archived_at`."""
        with self.db.write() as conn:
            if changes:
                self.sessions.patch_in(conn, key, changes)
            if lines:
                self.transcripts.append_lines_in(conn, key, lines, raw=raw, touch=False)
            if archive:
                conn.execute("UPDATE sessions SET archived_at = ? WHERE key = ?", (archived_at, key))
            self._record_import(conn, source, key, source_lines, entry)

    def replace_import(
        self,
        key: str,
        *,
        entry: dict[str, Any],
        lines: list[dict[str, Any]],
        raw: list[str],
        source: str,
        source_lines: int,
    ) -> None:
        """Replace an imported session's transcript whole (OpenClaw rewrote or compacted it)."""
        with self.db.write() as conn:
            row = conn.execute("SELECT * FROM sessions WHERE key = ?", (key,)).fetchone()
            if not row:
                raise StoreError(f"No session found: {key}")
            self.text_index.unindex_session(conn, row["session_id"])
            conn.execute("DELETE FROM transcript WHERE session_id = ?", (row["session_id"],))
            # Recorded as having no mirror: the first line below writes it whole again (header
            # included); with no lines, it goes (a missing mirror reads as empty).
            conn.execute(
                "UPDATE sessions SET last_seq = 0, msg_count = 0, last_entry_id = NULL, mirror_size = 0 WHERE key = ?",
                (key,),
            )
            if not lines:
                self.transcripts.drop_mirror(row)
            self.sessions.patch_in(conn, key, {k: v for k, v in entry.items() if k != "sessionId"})
            if lines:
                self.transcripts.append_lines_in(conn, key, lines, raw=raw, touch=False)
            self._record_import(conn, source, key, source_lines, entry)

    def import_session(
        self,
        key: str,
        entry: dict[str, Any],
        *,
        session_id: str,
        lines: list[dict[str, Any]],
        raw: list[str],
        source: str,
        source_lines: int,
    ) -> None:
        """Create a session with its transcript and record where it came from: all or nothing (its
        row's insert is the first write and the only one that can fail on the data)."""
        updated = entry.get("updatedAt")
        created = updated if is_int(updated) else None
        with self.db.write(savepoint=False) as conn:
            # What OpenClaw wrote becomes the stored entry as it is (unknown fields kept).
            stored = cast(SessionEntry, entry)
            self.transcripts.create_with_lines(
                conn, key, stored, session_id=session_id, created_at=created, lines=lines, raw=raw
            )
            self._record_import(conn, source, key, source_lines, entry)
