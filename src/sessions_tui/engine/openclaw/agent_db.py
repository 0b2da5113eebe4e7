"""Read-only access to one OpenClaw agent's SQLite session store (`openclaw-agent.sqlite`).

OpenClaw 2026.9 keeps each agent's sessions in `agents/<id>/agent/openclaw-agent.sqlite`:
`session_nodes` (one row per session key, `entry_json` the SessionEntry) and
`transcript_events` (one row per transcript line, `seq 0` the session header, the line either as
`event_json` text or zstd-compressed in `event_zstd`). The database is opened with
`mode=ro`: nothing here can write to it, also while the gateway runs (WAL). Its schema calls
SQLite functions newer than some Python builds ship (`octet_length` in CHECK constraints);
those are only evaluated on writes, so a read-only connection works on older SQLite too.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from sessions_tui.engine.inputs.files import check_regular

STORE_FILE = "openclaw-agent.sqlite"
# The largest line the schema admits (`event_utf8_bytes BETWEEN 1 AND 4194304`).
MAX_EVENT_BYTES = 4 * 1024 * 1024


def _utf8_replacing(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


class AgentDbError(Exception):
    """The store cannot be read: missing, not an OpenClaw store, or corrupt."""


class NodeRow(BaseModel):
    """The columns of `session_nodes` that say whether a session changed, and what it is."""

    model_config = ConfigDict(frozen=True)

    session_key: str
    current_session_id: str
    updated_at: int | None = None
    archived_at: int | None = None
    status: str | None = None
    label: str | None = None
    display_name: str | None = None
    pinned_at: int | None = None
    parent_session_key: str | None = None
    spawned_by: str | None = None


_NODE_COLUMNS = ", ".join(NodeRow.model_fields)


@dataclass(frozen=True)
class EventRow:
    """One transcript line as stored: `text` is the line verbatim (decompressed), None if unreadable."""

    rowid: int
    session_id: str
    seq: int
    text: str | None
    problem: str | None = None


@dataclass(frozen=True)
class FileIdentity:
    """Which file is at the store's path: a replaced store has a new identity."""

    device: int
    inode: int


def file_identity(path: Path) -> FileIdentity | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return FileIdentity(st.st_dev, st.st_ino)


class AgentDb:
    """A read-only connection to one agent store; every query is a short autocommit read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.resolved = path.resolve()
        """Its absolute path: what the sessions read from it are known by (`<resolved>#<key>`)."""
        self.identity = file_identity(path)
        if self.identity is None:
            raise AgentDbError(f"{path}: no such file")
        try:
            check_regular(path)  # a FIFO would hang SQLite's open, a device feed it forever
        except OSError as exc:
            raise AgentDbError(f"{path}: OpenClaw store {exc}; not opened") from None
        try:
            self._conn = sqlite3.connect(
                f"{self.resolved.as_uri()}?mode=ro",
                uri=True,
                isolation_level=None,
                check_same_thread=False,
                timeout=5.0,
            )
            # Text that is not UTF-8 (a TEXT column holds whatever bytes were bound) is read with
            # U+FFFD, as the legacy reader reads such a line: the row, and the rest, still count.
            self._conn.text_factory = _utf8_replacing
            self._conn.execute("PRAGMA query_only=ON")
            tables = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.Error as exc:
            raise AgentDbError(f"{path}: cannot open the OpenClaw store read-only: {exc}") from exc
        missing = {"session_nodes", "transcript_events"} - tables
        if missing:
            self._conn.close()
            raise AgentDbError(f"{path}: not an OpenClaw session store (no {', '.join(sorted(missing))} table)")
        self._decompressor: Any = None

    def close(self) -> None:
        self._conn.close()

    def data_version(self) -> int:
        """Moves whenever another connection (the gateway) commits: the cheap change check."""
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def replaced(self) -> bool:
        """Whether the file at the path is no longer the one this connection reads."""
        return file_identity(self.path) != self.identity

    def snapshot(self) -> _Snapshot:
        """A read transaction: several reads that see one state of the store."""
        return _Snapshot(self._conn)

    # -- sessions -----------------------------------------------------------------------------

    def nodes(self) -> list[NodeRow]:
        try:
            rows = self._conn.execute(f"SELECT {_NODE_COLUMNS} FROM session_nodes").fetchall()
        except sqlite3.Error as exc:
            raise AgentDbError(f"{self.path}: cannot read session_nodes: {exc}") from exc
        return [NodeRow.model_validate(dict(zip(NodeRow.model_fields, row, strict=True))) for row in rows]

    def entries(self, keys: list[str]) -> dict[str, str]:
        """`entry_json` of the given session keys (text as stored)."""
        out: dict[str, str] = {}
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            sql = (
                f"SELECT session_key, entry_json FROM session_nodes WHERE session_key IN ({', '.join('?' * len(part))})"
            )
            try:
                out.update({k: v for k, v in self._conn.execute(sql, part)})
            except sqlite3.Error as exc:
                raise AgentDbError(f"{self.path}: cannot read session_nodes: {exc}") from exc
        return out

    # -- transcripts --------------------------------------------------------------------------

    def events(self, session_id: str, from_seq: int) -> list[EventRow]:
        """A session's lines with `seq >= from_seq`, in order."""
        return self._events(
            "SELECT rowid, session_id, seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events "
            "WHERE session_id = ? AND seq >= ? ORDER BY seq",
            (session_id, from_seq),
        )

    def events_of(self, session_ids: list[str]) -> Iterator[EventRow]:
        """The lines of many sessions in one read, ordered by session id then seq, row by row
        (one query for a batch of new sessions instead of one per session)."""
        sql = (
            "SELECT rowid, session_id, seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events "
            f"WHERE session_id IN ({', '.join('?' * len(session_ids))}) ORDER BY session_id, seq"
        )
        try:
            cursor = self._conn.execute(sql, session_ids)
            while rows := cursor.fetchmany(256):
                for row in rows:
                    yield self._decode(*row)
        except sqlite3.Error as exc:
            raise AgentDbError(f"{self.path}: cannot read transcript_events: {exc}") from exc

    def events_after_rowid(self, rowid: int, limit: int = 5000) -> list[EventRow]:
        """Rows inserted after `rowid` (SQLite hands new rows rising rowids), oldest first."""
        return self._events(
            "SELECT rowid, session_id, seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events "
            "WHERE rowid > ? ORDER BY rowid LIMIT ?",
            (rowid, limit),
        )

    def sessions_after_rowid(self, rowid: int) -> set[str]:
        """Sessions that gained rows after `rowid` (a range on the rowid: no event is read)."""
        try:
            return {
                r[0]
                for r in self._conn.execute(
                    "SELECT DISTINCT session_id FROM transcript_events WHERE rowid > ?", (rowid,)
                )
            }
        except sqlite3.Error as exc:
            raise AgentDbError(f"{self.path}: cannot read transcript_events: {exc}") from exc

    def max_rowid(self) -> int:
        row = self._conn.execute("SELECT max(rowid) FROM transcript_events").fetchone()
        return int(row[0] or 0)

    def rewrite_generations(self) -> dict[str, str]:
        """`transcript_rewrite_watermarks`: a new generation means the session was rewritten."""
        try:
            return {
                sid: gen
                for sid, gen in self._conn.execute("SELECT session_id, generation FROM transcript_rewrite_watermarks")
            }
        except sqlite3.OperationalError:
            return {}  # an older store without the table

    def _events(self, sql: str, args: tuple[Any, ...]) -> list[EventRow]:
        try:
            rows = self._conn.execute(sql, args).fetchall()
        except sqlite3.Error as exc:
            raise AgentDbError(f"{self.path}: cannot read transcript_events: {exc}") from exc
        return [self._decode(*row) for row in rows]

    def _decode(self, rowid: int, session_id: str, seq: int, text: Any, blob: Any, size: Any) -> EventRow:
        if isinstance(text, str):
            return EventRow(rowid, session_id, seq, text)
        if not isinstance(blob, bytes):
            return EventRow(rowid, session_id, seq, None, "neither event_json nor event_zstd")
        limit = size if isinstance(size, int) and 0 < size <= MAX_EVENT_BYTES else MAX_EVENT_BYTES
        try:
            data = self._zstd().decompress(blob, max_output_size=limit)
            return EventRow(rowid, session_id, seq, data.decode("utf-8", errors="replace"))
        except Exception as exc:  # noqa: BLE001 - zstd raises its own error type; any is a bad row
            return EventRow(rowid, session_id, seq, None, f"cannot decompress event_zstd ({exc})")

    def _zstd(self) -> Any:
        if self._decompressor is None:
            import zstandard  # imported on first compressed line: `tool` calls never pay for it

            self._decompressor = zstandard.ZstdDecompressor()
        return self._decompressor


class _Snapshot:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> None:
        self._conn.execute("BEGIN")

    def __exit__(self, *exc: object) -> None:
        self._conn.execute("COMMIT")


def parse_line(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """A transcript line as an object, or why it is not one."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON ({exc.msg} at column {exc.colno})"
    if not isinstance(value, dict):
        return None, "not a JSON object"
    if "message" in value and not isinstance(value["message"], dict):
        return None, "message is not an object"
    return value, None
