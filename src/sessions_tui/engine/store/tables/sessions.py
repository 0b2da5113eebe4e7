"""The session index: one row per session key, with its entry (OpenClaw's session fields) as JSON.

Columns that views filter and sort on (label, kind, channel…) are derived from the key and entry
on every write. A session's transcript mirror file is created with its first line (transcripts.py).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from sessions_tui.engine.inputs.surrogates import loads, scrub_json
from sessions_tui.engine.sessions.entry import SessionEntry, is_number
from sessions_tui.engine.sessions.ids import new_uuid
from sessions_tui.engine.sessions.keys import (
    SAFE_SESSION_ID_RE,
    MainAlias,
    agent_id_of,
    classify_session_kind,
    entry_channel,
    is_cron_run_session_key,
    parse_agent_session_key,
    strip_agent_prefix,
)
from sessions_tui.engine.store.codec import dumps, str_or_none
from sessions_tui.engine.store.connection import Database, StoreError, mirror_relpath

_DEFAULT_ALIAS = MainAlias.of()


@dataclass
class StoredSession:
    """One row of the session index."""

    key: str
    agent_id: str
    session_id: str
    created_at: int
    updated_at: int
    archived_at: int | None
    msg_count: int
    mirror_path: str
    entry: SessionEntry = field(default_factory=SessionEntry)


class Generation(NamedTuple):
    """A sessionId a reset replaced under `key`: its lines stay in the store, its mirror file on disk."""

    session_id: str
    key: str
    replaced_at: int
    mirror_path: str


class TranscriptTail(NamedTuple):
    """A transcript's counters as the session row keeps them: lines, messages, last entry id, mirror bytes."""

    last_seq: int = 0
    msg_count: int = 0
    last_entry_id: str | None = None
    mirror_size: int = 0  # 0: no mirror file yet (transcripts.py)


_EMPTY = TranscriptTail()


def derived_columns(key: str, entry: SessionEntry) -> dict[str, Any]:
    """Columns of `sessions` computed from the key and entry, so they can be filtered and sorted.

    `kind` is classified with the default main key; a query under another `session.mainKey`
    corrects it (see `tools.reading.browse`).
    """
    kind = classify_session_kind(key, entry.get("kind") if isinstance(entry.get("kind"), str) else None, _DEFAULT_ALIAS)
    channel = entry_channel(key, kind, entry)
    return {
        "label": str_or_none(entry.get("label")),
        "spawned_by": str_or_none(entry.get("spawnedBy")),
        "parent_session_key": str_or_none(entry.get("parentSessionKey")),
        "display_name": str_or_none(entry.get("displayName")),
        "rest": strip_agent_prefix(key) if parse_agent_session_key(key) else key,
        "kind": kind,
        "channel": channel,
    }


@lru_cache(maxsize=8192)
def _mirror_text(state_dir: Path, relative: str) -> str:
    """A mirror's path as text (every row read asks again, a page of rows at a time: remembered)."""
    return str(state_dir / relative)


SESSION_COLUMNS = "key, agent_id, session_id, created_at, updated_at, archived_at, msg_count, mirror_path, entry"
"""The columns `row_to_session` reads: a page of sessions selected by them reads in a third of the
time `SELECT *` takes (the index's other eleven columns are made into Python values too)."""


def row_to_session(row: sqlite3.Row, state_dir: Path) -> StoredSession:
    return StoredSession(
        key=row["key"],
        agent_id=row["agent_id"],
        session_id=row["session_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        archived_at=row["archived_at"],
        msg_count=row["msg_count"],
        mirror_path=_mirror_text(state_dir, row["mirror_path"]),
        entry=loads(row["entry"]),
    )


class SessionsRepository:
    """Reading, creating and changing rows of the session index."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, key: str) -> StoredSession | None:
        with self.db.peek() as conn:
            row = conn.execute(f"SELECT {SESSION_COLUMNS} FROM sessions WHERE key = ?", (key,)).fetchone()
        return row_to_session(row, self.db.state_dir) if row else None

    def get_by_session_id(self, session_id: str) -> StoredSession | None:
        with self.db.peek() as conn:
            row = conn.execute(f"SELECT {SESSION_COLUMNS} FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        return row_to_session(row, self.db.state_dir) if row else None

    def session_id_of(self, key: str) -> str | None:
        """The sessionId stored under `key`, if any (one indexed lookup, no entry parsed)."""
        with self.db.peek() as conn:
            row = conn.execute("SELECT session_id FROM sessions WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def keys_like(self, parts: list[str]) -> list[str]:
        """Keys that are `parts` in this order with anything between them (what a mask hid)."""
        pattern = "%".join(p.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") for p in parts)
        with self.db.peek() as conn:
            return [r[0] for r in conn.execute("SELECT key FROM sessions WHERE key LIKE ? ESCAPE '\\'", (pattern,))]

    def count(self, include_archived: bool = False) -> int:
        sql = "SELECT COUNT(*) FROM sessions"
        if not include_archived:
            sql += " WHERE archived_at IS NULL"
        with self.db.peek() as conn:
            return int(conn.execute(sql).fetchone()[0])

    def agent_ids(self) -> list[str]:
        with self.db.peek() as conn:
            return [r[0] for r in conn.execute("SELECT DISTINCT agent_id FROM sessions")]

    def spawned_keys(self, requester: str) -> set[str]:
        """Keys of sessions spawned by (or parented to) `requester`."""
        with self.db.peek() as conn:
            rows = conn.execute(
                """SELECT key FROM sessions WHERE (spawned_by = ? OR parent_session_key = ?)
                   AND key NOT IN ('global', 'unknown')""",
                (requester, requester),
            ).fetchall()
        return {r[0] for r in rows}

    def children_of(self, parents: list[str]) -> list[tuple[str, str]]:
        """The sessions spawned by (or parented to) any of `parents`: (key, its parent), oldest first."""
        if not parents:
            return []
        marks = ",".join("?" * len(parents))
        with self.db.read() as conn:
            rows = conn.execute(
                f"""SELECT key, CASE WHEN spawned_by IN ({marks}) THEN spawned_by ELSE parent_session_key END
                    FROM sessions WHERE (spawned_by IN ({marks}) OR parent_session_key IN ({marks}))
                    AND key NOT IN ('global', 'unknown') ORDER BY created_at, key""",
                [*parents, *parents, *parents],
            ).fetchall()
        return [(str(r[0]), str(r[1])) for r in rows]

    def keys_with_label(self, label: str, agent_id: str | None = None) -> list[str]:
        sql = "SELECT key FROM sessions WHERE label = ? AND archived_at IS NULL"
        args: list[Any] = [label]
        if agent_id is not None:
            sql += " AND agent_id = ?"
            args.append(agent_id)
        with self.db.peek() as conn:
            return [r[0] for r in conn.execute(sql + " ORDER BY updated_at DESC", args)]

    def create(
        self,
        key: str,
        entry: SessionEntry | None = None,
        *,
        session_id: str | None = None,
        created_at: int | None = None,
    ) -> StoredSession:
        """Add a session with an empty transcript (its mirror file comes with the first line)."""
        with self.db.write() as conn:
            return self.create_in(conn, key, entry, session_id=session_id, created_at=created_at)

    def ensure(self, key: str, entry: SessionEntry | None = None) -> StoredSession:
        """The session under `key`, created with `entry` when it does not exist yet."""
        with self.db.write() as conn:
            row = conn.execute(f"SELECT {SESSION_COLUMNS} FROM sessions WHERE key = ?", (key,)).fetchone()
            if row:
                return row_to_session(row, self.db.state_dir)
            return self.create_in(conn, key, entry)

    def create_in(
        self,
        conn: sqlite3.Connection,
        key: str,
        entry: SessionEntry | None,
        *,
        session_id: str | None = None,
        created_at: int | None = None,
        tail: TranscriptTail = _EMPTY,
    ) -> StoredSession:
        """Insert the row; `tail` is the transcript it is created with (imports write its lines after)."""
        sid = session_id or new_uuid()
        if not SAFE_SESSION_ID_RE.match(sid):
            raise StoreError(f"Invalid session ID: {sid}")
        now = self.db.now()
        created = created_at if created_at is not None else now
        # Its strings also fill columns: no lone surrogates.
        data = scrub_json(entry.copy() if entry else SessionEntry())
        data["sessionId"] = sid
        updated = data.get("updatedAt")
        if not is_number(updated):
            data["updatedAt"] = created
        else:
            data["updatedAt"] = int(updated)
        agent_id = agent_id_of(key)
        mirror = mirror_relpath(agent_id, sid)
        columns = {
            "key": key,
            "agent_id": agent_id,
            "session_id": sid,
            "created_at": created,
            "updated_at": int(data["updatedAt"]),
            "listable": 0 if is_cron_run_session_key(key) else 1,
            "mirror_path": mirror,
            "last_seq": tail.last_seq,
            "msg_count": tail.msg_count,
            "last_entry_id": tail.last_entry_id,
            "mirror_size": tail.mirror_size,
            "entry": dumps(data),
            **derived_columns(key, data),
        }
        self.db.defer_search()
        try:
            conn.execute(
                f"INSERT INTO sessions ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                tuple(columns.values()),
            )
        except sqlite3.IntegrityError as exc:  # a key or sessionId already there: one check, the index's
            if "sessions.key" in str(exc):
                raise StoreError(f"Session already exists: {key}") from exc
            if "sessions.session_id" in str(exc):
                raise StoreError(f"Session ID already in use: {sid}") from exc
            raise
        return StoredSession(
            key=key,
            agent_id=agent_id,
            session_id=sid,
            created_at=created,
            updated_at=int(data["updatedAt"]),
            archived_at=None,
            msg_count=tail.msg_count,
            mirror_path=os.path.join(self.db.state_dir, mirror),
            entry=data,
        )

    def patch(self, key: str, changes: dict[str, Any]) -> StoredSession:
        """Merge `changes` into a session's entry; a value of None removes the field."""
        with self.db.write(key=key) as conn:
            self.patch_in(conn, key, changes)
            updated_row = conn.execute(f"SELECT {SESSION_COLUMNS} FROM sessions WHERE key = ?", (key,)).fetchone()
        return row_to_session(updated_row, self.db.state_dir)

    def patch_in(self, conn: sqlite3.Connection, key: str, changes: dict[str, Any]) -> None:
        row = conn.execute("SELECT * FROM sessions WHERE key = ?", (key,)).fetchone()
        if not row:
            raise StoreError(f"No session found: {key}")
        entry = json.loads(row["entry"])
        for name, value in scrub_json(changes).items():
            if name == "sessionId":
                continue
            if value is None:
                entry.pop(name, None)
            else:
                entry[name] = value
        updated = entry.get("updatedAt", row["updated_at"])
        columns = {
            "entry": dumps(entry),
            "updated_at": int(updated) if is_number(updated) else row["updated_at"],
            **derived_columns(key, entry),
        }
        conn.execute(
            f"UPDATE sessions SET {', '.join(f'{c} = ?' for c in columns)} WHERE key = ?",
            (*columns.values(), key),
        )

    def set_archived(self, key: str, archived_at: int | None) -> None:
        with self.db.write() as conn:
            conn.execute("UPDATE sessions SET archived_at = ? WHERE key = ?", (archived_at, key))

    def archive_if_live(self, key: str, archived_at: int) -> bool:
        """Archive a session no one has archived yet; whether this call did (two processes sweeping
        at once both see it live, only one archives it)."""
        with self.db.write() as conn:
            done = conn.execute(
                "UPDATE sessions SET archived_at = ? WHERE key = ? AND archived_at IS NULL", (archived_at, key)
            )
            return done.rowcount == 1

    def renew_session_id(self, key: str, session_id: str, changes: dict[str, Any]) -> str:
        """A new sessionId under `key` with an empty transcript, `changes` merged into its entry (None
        removes a field); the old sessionId returned, its lines left in `transcript` under it."""
        now = self.db.now()
        with self.db.write() as conn:
            row = conn.execute("SELECT * FROM sessions WHERE key = ?", (key,)).fetchone()
            if not row:
                raise StoreError(f"No session found: {key}")
            entry = json.loads(row["entry"])
            for name, value in scrub_json({**changes, "sessionId": session_id, "updatedAt": now}).items():
                if value is None:
                    entry.pop(name, None)
                else:
                    entry[name] = value
            conn.execute(
                """UPDATE sessions SET session_id = ?, mirror_path = ?, last_seq = 0, msg_count = 0,
                   last_entry_id = NULL, mirror_size = 0, updated_at = ?, entry = ? WHERE key = ?""",
                (session_id, mirror_relpath(row["agent_id"], session_id), now, dumps(entry), key),
            )
            conn.execute(
                """INSERT OR REPLACE INTO session_generations (session_id, key, replaced_at, mirror_path)
                   VALUES (?, ?, ?, ?)""",
                (row["session_id"], key, now, row["mirror_path"]),
            )
        return str(row["session_id"])

    def generation(self, session_id: str) -> Generation | None:
        """The earlier generation a reset left under this sessionId, if it is one."""
        with self.db.read() as conn:
            row = conn.execute("SELECT * FROM session_generations WHERE session_id = ?", (session_id,)).fetchone()
        return self._generation(row) if row else None

    def generations_of(self, key: str) -> list[Generation]:
        """The sessionIds resets replaced under `key`, newest first."""
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT * FROM session_generations WHERE key = ? ORDER BY replaced_at DESC, rowid DESC", (key,)
            ).fetchall()
        return [self._generation(row) for row in rows]

    def _generation(self, row: sqlite3.Row) -> Generation:
        return Generation(
            session_id=row["session_id"],
            key=row["key"],
            replaced_at=int(row["replaced_at"]),
            mirror_path=_mirror_text(self.db.state_dir, row["mirror_path"]),
        )

    def lines_of(self, session_id: str) -> list[str]:
        """Every transcript line stored under a sessionId: the current one or one a reset replaced."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT line FROM transcript WHERE session_id = ? ORDER BY seq", (session_id,))
            return [str(r[0]) for r in rows]

    def delete(self, key: str, unindex: Callable[[sqlite3.Connection, str], None]) -> StoredSession | None:
        """The row and its transcript lines removed, with the earlier generations' (`unindex` drops
        them from the text index in the same transaction); the row as it was, None when there was none."""
        with self.db.write() as conn:
            row = conn.execute("SELECT * FROM sessions WHERE key = ?", (key,)).fetchone()
            if not row:
                return None
            earlier = [r[0] for r in conn.execute("SELECT session_id FROM session_generations WHERE key = ?", (key,))]
            for session_id in [row["session_id"], *earlier]:
                unindex(conn, session_id)
                conn.execute("DELETE FROM transcript WHERE session_id = ?", (session_id,))
            conn.execute("DELETE FROM session_generations WHERE key = ?", (key,))
            conn.execute("DELETE FROM sessions WHERE key = ?", (key,))
        return row_to_session(row, self.db.state_dir)
