"""Imports: which OpenClaw transcript each imported session came from, how far it was read, and whether it was adopted.

An import writes a session, its lines and the import's cursor in one transaction, so a process
killed mid-import leaves either all of it or none. A session `import-openclaw --adopt` took over is
the engine's (`adopted` on its rows: no longer OpenClaw's, docs/decisions.md D17); the mark is a
fingerprint of the session as the adoption left it, so adopting again knows whether the engine has
written into it since (its lines, entry, sessionId or archiving).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Mapping
from typing import Any, NamedTuple, cast

from sessions_tui.engine.sessions.entry import SessionEntry, is_int
from sessions_tui.engine.store.codec import exact_dumps
from sessions_tui.engine.store.connection import Database, StoreError
from sessions_tui.engine.store.tables.sessions import SessionsRepository
from sessions_tui.engine.store.tables.text_index import TextIndexRepository
from sessions_tui.engine.store.tables.transcripts import TranscriptsRepository


class ImportState(NamedTuple):
    """What an import asks first of each source session."""

    lines: int | None
    """How many physical lines of the source were imported; None if it never was."""
    session_id: str | None
    """The sessionId of the session stored under its key, if there is one."""
    adopted: str | None
    """The adoption's mark, if the session was adopted (it is the engine's)."""


def _mark(row: sqlite3.Row | None) -> str:
    """A session row's fingerprint: what the engine writes into a session moves it ("" for none)."""
    if row is None:
        return ""
    text = "\x1f".join(str(row[c]) for c in ("session_id", "last_seq", "updated_at", "archived_at", "entry"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


_MARK_COLUMNS = "SELECT session_id, last_seq, updated_at, archived_at, entry FROM sessions WHERE key = ?"


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
        with self.db.peek() as conn:
            row = conn.execute("SELECT lines FROM imports WHERE source = ?", (source,)).fetchone()
        return row[0] if row else None

    def import_state(self, source: str, key: str) -> ImportState:
        """`imported_lines(source)`, `session_id_of(key)` and the adoption's mark in one query (an
        import asks them of each session)."""
        with self.db.peek() as conn:
            row = conn.execute(
                "SELECT (SELECT lines FROM imports WHERE source = ?), (SELECT session_id FROM sessions WHERE key = ?), "
                "(SELECT adopted FROM imports WHERE source = ?)",
                (source, key, source),
            ).fetchone()
        return ImportState(row[0], None if row[1] is None else str(row[1]), row[2])

    def record_import(
        self, source: str, session_key: str, lines: int, entry: Mapping[str, Any], *, adopt: bool = False
    ) -> None:
        with self.db.write() as conn:
            self._record_import(conn, source, session_key, lines, entry, adopt=adopt)

    def _record_import(
        self,
        conn: sqlite3.Connection,
        source: str,
        session_key: str,
        lines: int,
        entry: Mapping[str, Any],
        *,
        adopt: bool = False,
    ) -> None:
        """The source's cursor and entry; with `adopt`, the session marked the engine's as it now stands
        (every row of its key: it may have come from both layouts). A row's mark stays as it was otherwise."""
        conn.execute(
            "INSERT INTO imports (source, session_key, lines, entry, imported_at) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT (source) DO UPDATE SET session_key = excluded.session_key, lines = excluded.lines, "
            "entry = excluded.entry, imported_at = excluded.imported_at",
            (source, session_key, lines, exact_dumps(entry), self.db.now()),
        )
        if adopt:
            self._adopt(conn, session_key)

    def _adopt(self, conn: sqlite3.Connection, key: str) -> None:
        mark = _mark(conn.execute(_MARK_COLUMNS, (key,)).fetchone())
        conn.execute("UPDATE imports SET adopted = ? WHERE session_key = ?", (mark, key))

    def adopt(self, key: str) -> None:
        """The session under `key` becomes the engine's, marked as it now stands."""
        with self.db.write() as conn:
            self._adopt(conn, key)

    def engine_mark(self, key: str) -> str:
        """The session's fingerprint now ("" if there is none): equal to its adoption's mark while the
        engine has not written into it since."""
        with self.db.peek() as conn:
            return _mark(conn.execute(_MARK_COLUMNS, (key,)).fetchone())

    def imported_entry(self, source: str) -> dict[str, Any]:
        """The source's session entry as it was at its last import."""
        with self.db.peek() as conn:
            row = conn.execute("SELECT entry FROM imports WHERE source = ?", (source,)).fetchone()
        return json.loads(row[0]) if row else {}

    def imported_session_id(self, source: str) -> str | None:
        """The sessionId a source session had when it was imported."""
        with self.db.peek() as conn:
            row = conn.execute(
                "SELECT s.session_id FROM imports i JOIN sessions s ON s.key = i.session_key WHERE i.source = ?",
                (source,),
            ).fetchone()
        return row[0] if row else None

    def import_source_of(self, key: str) -> str | None:
        """The OpenClaw source a session was imported from (it belongs to that OpenClaw), if any: None
        for the engine's own, adopted ones included."""
        with self.db.peek() as conn:
            row = conn.execute(
                "SELECT source FROM imports WHERE session_key = ? AND adopted IS NULL LIMIT 1", (key,)
            ).fetchone()
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
        adopt: bool = False,
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
            self._record_import(conn, source, key, source_lines, entry, adopt=adopt)

    def replace_import(
        self,
        key: str,
        *,
        entry: dict[str, Any],
        lines: list[dict[str, Any]],
        raw: list[str],
        source: str,
        source_lines: int,
        adopt: bool = False,
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
            self._record_import(conn, source, key, source_lines, entry, adopt=adopt)

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
        adopt: bool = False,
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
            self._record_import(conn, source, key, source_lines, entry, adopt=adopt)
