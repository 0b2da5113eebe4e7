"""The state directory's SQLite store: session index and transcripts, safe across processes.

SQLite in WAL mode holds the truth. Every write is one `BEGIN IMMEDIATE` transaction, so
processes sharing a state directory serialise on SQLite's write lock and none loses a write; a
process killed mid-write loses at most that transaction. Each transcript is also mirrored,
append-only, as an OpenClaw JSONL file. The mirror is written while the write lock is held, and
the byte size it should have is committed with the row: a line left behind by a process that
died before its commit is cut off at the session's next append (or rebuilt whole if the file
went missing), so the mirror always converges on the database.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessions_tui.engine import ids
from sessions_tui.engine.clock import Clock, iso_from_ms, ms_from_iso
from sessions_tui.engine.ids import new_uuid
from sessions_tui.engine.keys import (
    SAFE_SESSION_ID_RE,
    MainAlias,
    agent_id_of,
    classify_session_kind,
    entry_channel,
    is_cron_run_session_key,
    parse_agent_session_key,
    strip_agent_prefix,
)
from sessions_tui.engine.surrogates import has_surrogates, loads, scrub_json, scrub_text

SCHEMA_VERSION = 2  # 2: outbox.idempotency_key, lease_owner, lease_until
TRANSCRIPT_VERSION = 3
DB_NAME = "sessions.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    key TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    session_id TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    label TEXT,
    spawned_by TEXT,
    parent_session_key TEXT,
    display_name TEXT,
    rest TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL DEFAULT 'other',
    channel TEXT NOT NULL DEFAULT 'unknown',
    listable INTEGER NOT NULL DEFAULT 1,
    archived_at INTEGER,
    last_seq INTEGER NOT NULL DEFAULT 0,
    msg_count INTEGER NOT NULL DEFAULT 0,
    last_entry_id TEXT,
    mirror_path TEXT NOT NULL,
    mirror_size INTEGER NOT NULL DEFAULT 0,
    entry TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_updated ON sessions(updated_at DESC);
CREATE INDEX IF NOT EXISTS sessions_by_spawned_by ON sessions(spawned_by);
CREATE INDEX IF NOT EXISTS sessions_by_parent ON sessions(parent_session_key);
CREATE INDEX IF NOT EXISTS sessions_by_label ON sessions(label);
CREATE INDEX IF NOT EXISTS sessions_by_agent ON sessions(agent_id, updated_at DESC);
CREATE INDEX IF NOT EXISTS sessions_by_kind ON sessions(kind, updated_at DESC);
CREATE INDEX IF NOT EXISTS sessions_browse ON sessions(
    updated_at DESC, key, agent_id, kind, rest, channel, listable, archived_at, label, display_name,
    session_id, spawned_by, parent_session_key);
CREATE TABLE IF NOT EXISTS transcript (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    msg_seq INTEGER,
    entry_id TEXT,
    line TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS transcript_by_msg_seq
    ON transcript(session_id, msg_seq) WHERE msg_seq IS NOT NULL;
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    session_key TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    lane TEXT,
    pid INTEGER,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    ended_at INTEGER,
    data TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS runs_by_session ON runs(session_key, created_at);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs(status);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts INTEGER NOT NULL,
    kind TEXT NOT NULL,
    session_key TEXT,
    requester TEXT,
    via TEXT,
    reason TEXT,
    data TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at INTEGER NOT NULL,
    kind TEXT NOT NULL,
    session_key TEXT,
    channel TEXT,
    target TEXT,
    account_id TEXT,
    thread_id TEXT,
    message TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    next_attempt_at INTEGER,
    delivered_at INTEGER,
    data TEXT NOT NULL DEFAULT '{}',
    idempotency_key TEXT,
    lease_owner TEXT,
    lease_until INTEGER
);
CREATE INDEX IF NOT EXISTS outbox_by_state ON outbox(state, next_attempt_at);
CREATE TABLE IF NOT EXISTS subagent_runs (
    run_id TEXT PRIMARY KEY,
    child_key TEXT NOT NULL,
    requester_key TEXT NOT NULL,
    task TEXT NOT NULL,
    label TEXT,
    cleanup TEXT NOT NULL DEFAULT 'keep',
    created_at INTEGER NOT NULL,
    ended_at INTEGER,
    outcome TEXT,
    outcome_error TEXT,
    announce_state TEXT NOT NULL DEFAULT 'waiting',
    announce_pid INTEGER,
    announced_at INTEGER,
    archive_at INTEGER,
    data TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS subagent_runs_by_requester ON subagent_runs(requester_key, ended_at);
CREATE INDEX IF NOT EXISTS subagent_runs_by_state ON subagent_runs(announce_state);
CREATE TABLE IF NOT EXISTS imports (
    source TEXT PRIMARY KEY,
    session_key TEXT NOT NULL,
    lines INTEGER NOT NULL DEFAULT 0,
    entry TEXT NOT NULL DEFAULT '{}',
    imported_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS imports_by_session ON imports(session_key);
"""

_DEFAULT_ALIAS = MainAlias.of()


def derived_columns(key: str, entry: dict[str, Any]) -> dict[str, Any]:
    """Columns of `sessions` computed from the key and entry, so they can be filtered and sorted.

    `kind` is classified with the default main key; a query under another `session.mainKey`
    corrects it (see `tools.browse`).
    """
    kind = classify_session_kind(key, entry.get("kind") if isinstance(entry.get("kind"), str) else None, _DEFAULT_ALIAS)
    channel = entry_channel(key, kind, entry)
    return {
        "label": _str_or_none(entry.get("label")),
        "spawned_by": _str_or_none(entry.get("spawnedBy")),
        "parent_session_key": _str_or_none(entry.get("parentSessionKey")),
        "display_name": _str_or_none(entry.get("displayName")),
        "rest": strip_agent_prefix(key) if parse_agent_session_key(key) else key,
        "kind": kind,
        "channel": channel,
    }


class StoreError(Exception):
    """A request the store cannot carry out (unknown session, duplicate key, bad id)."""


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
    entry: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Appended:
    seq: int
    msg_seq: int | None
    entry_id: str


@dataclass(frozen=True)
class HistoryPage:
    """A window of a transcript's messages, oldest first, numbered like REF's reader."""

    messages: list[dict[str, Any]]
    total: int
    start: int  # msg_seq of the first message minus one


def dumps(value: Any) -> str:
    """Compact JSON, always valid UTF-8: a lone surrogate is written as U+FFFD (engine/surrogates.py)."""
    return scrub_text(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def exact_dumps(value: Any) -> str:
    """Compact JSON keeping lone surrogates as ASCII escapes: a source's entry, compared on the next read."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(value, separators=(",", ":")) if has_surrogates(text) else text


def new_entry_id() -> str:
    return ids.new_entry_id()


def message_of_line(line: dict[str, Any], msg_seq: int) -> dict[str, Any] | None:
    """The chat message a transcript line holds, numbered as REF's `readSessionMessages` does.

    OpenClaw's displayed `custom_message` lines (a run that failed before replying…) are
    messages of role `custom`, as its gateway shows them.
    """
    entry_id = line.get("id")
    if isinstance(line.get("message"), dict):
        msg = dict(line["message"])
        meta = msg.get("__openclaw")
        msg["__openclaw"] = {**(meta if isinstance(meta, dict) else {}), "id": entry_id, "seq": msg_seq}
        return msg
    if line.get("type") in _MARKERS:
        meta: dict[str, Any] = {"kind": line["type"], "id": entry_id}
        if isinstance(line.get("tokensBefore"), int):
            meta["tokensBefore"] = line["tokensBefore"]
        meta["seq"] = msg_seq
        stamp = line.get("timestamp")
        return {
            "role": "system",
            "content": [{"type": "text", "text": _MARKERS[line["type"]]}],
            "timestamp": ms_from_iso(stamp) if isinstance(stamp, str) else stamp,
            "__openclaw": meta,
        }
    if _is_shown_custom_message(line):
        stamp = line.get("timestamp")
        custom: dict[str, Any] = {
            "role": "custom",
            "customType": line.get("customType"),
            "content": line.get("content"),
            "display": True,
            "timestamp": ms_from_iso(stamp) if isinstance(stamp, str) else stamp,
        }
        meta = {"id": entry_id, "seq": msg_seq}
        details = line.get("details")
        if isinstance(details, dict) and isinstance(details.get("runId"), str):
            meta["runId"] = details["runId"]
        custom["__openclaw"] = meta
        return custom
    return None


# Transcript events OpenClaw shows as a system line: a compaction, a session reset (`/new`…).
_MARKERS = {"compaction": "Compaction", "reset": "Reset"}


def _is_shown_custom_message(line: dict[str, Any]) -> bool:
    """OpenClaw shows a `custom_message` when it says `display: true`, except its runtime context."""
    return (
        line.get("type") == "custom_message"
        and line.get("display") is True
        and line.get("customType") != "openclaw.runtime-context"
    )


def _is_message_line(line: dict[str, Any]) -> bool:
    return isinstance(line.get("message"), dict) or line.get("type") in _MARKERS or _is_shown_custom_message(line)


def _row_to_session(row: sqlite3.Row, state_dir: Path) -> StoredSession:
    return StoredSession(
        key=row["key"],
        agent_id=row["agent_id"],
        session_id=row["session_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        archived_at=row["archived_at"],
        msg_count=row["msg_count"],
        mirror_path=str(state_dir / row["mirror_path"]),
        entry=loads(row["entry"]),
    )


SORT_COLUMNS = {
    "updated": "updated_at",
    "key": "DISPLAY",
    "label": "coalesce(label, display_name, '')",
    "model": "coalesce(json_extract(entry, '$.model'), '')",
    "tokens": "coalesce(json_extract(entry, '$.totalTokens'), 0)",
    "status": "coalesce(json_extract(entry, '$.status'), '')",
    "channel": "channel",
    "kind": "KIND",
}


@dataclass
class SessionFilter:
    """Which sessions a browsing view shows; every field narrows the set (None = no limit)."""

    main_key: str = "main"
    agent_ids: list[str] | None = None
    scope_agent: str | None = None  # sessions of this agent are limited by `scope`
    scope: str | None = None  # "self" or "tree", relative to `requester`
    requester: str | None = None
    spawned_by: str | None = None
    kinds: list[str] | None = None
    active_since: int | None = None
    search: str | None = None
    include_archived: bool = False
    include_global: bool = False
    keys: list[str] | None = None
    shown_as_main: str | None = None  # the key the viewer sees as `main` (for sorting by key)


# How keys are shown (SPEC D9), for sorting: the viewer's main is `main`, agent main's cron,
# hook and node sessions keep their bare spelling.
_DISPLAY_EXPR = (
    "(CASE WHEN key = ? OR key = 'global' THEN 'main' WHEN agent_id = 'main' AND (rest LIKE 'cron:%' "
    "OR rest LIKE 'hook:%' OR rest LIKE 'node-%' OR rest LIKE 'node:%') THEN rest ELSE key END)"
)


class Store:
    """The session index and transcripts of one state directory."""

    def __init__(self, state_dir: Path | str, clock: Clock | None = None) -> None:
        self.state_dir = Path(state_dir).expanduser()
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.clock = clock or Clock()
        self.db_path = self.state_dir / DB_NAME
        self._lock = threading.RLock()
        self._batching = False
        self._batch_began = 0.0
        self._conn = sqlite3.connect(self.db_path, timeout=60.0, isolation_level=None, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA busy_timeout=60000")
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._migrate()

    # -- plumbing -----------------------------------------------------------------------------

    def _migrate(self) -> None:
        with self.write() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.db_path}: written by a newer sessions-tui (schema {version}); upgrade to open it"
                )
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            if version < 2:  # the outbox's Idempotency-Key per delivery, and a process's lease on one (outbox.py)
                have = {r[1] for r in conn.execute("PRAGMA table_info(outbox)")}
                for column in ("idempotency_key TEXT", "lease_owner TEXT", "lease_until INTEGER"):
                    if column.split()[0] not in have:
                        conn.execute(f"ALTER TABLE outbox ADD COLUMN {column}")
                conn.execute(
                    "UPDATE outbox SET idempotency_key = lower(hex(randomblob(16))) WHERE idempotency_key IS NULL"
                )
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction: the cross-process write lock is held throughout.

        Inside a `batch()`, a savepoint in the batch's transaction instead: a failed write is
        undone alone and the batch goes on.
        """
        with self._lock:
            if self._batching and not self._conn.in_transaction:
                self._conn.execute("BEGIN IMMEDIATE")
                self._batch_began = time.monotonic()
            if self._conn.in_transaction:
                self._conn.execute("SAVEPOINT write")
                try:
                    yield self._conn
                except BaseException:
                    self._conn.execute("ROLLBACK TO write")
                    self._conn.execute("RELEASE write")
                    raise
                self._conn.execute("RELEASE write")
                return
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextmanager
    def batch(self, seconds: float = 0.2) -> Iterator[Callable[[], None]]:
        """Many writes in few transactions: an import of thousands of sessions commits once per
        batch, not once per session. Yields `checkpoint()`, to call between units of work; it
        commits once `seconds` have passed since the batch's first write, so other writers never
        wait longer than that. Nothing is locked until the first write."""
        with self._lock:
            if self._batching:
                raise StoreError("a batch is already open on this store")
            self._batching = True

            def checkpoint() -> None:
                if self._conn.in_transaction and time.monotonic() - self._batch_began >= seconds:
                    self._conn.execute("COMMIT")
                    self._lock.release()  # let this process's other threads in between batches
                    self._lock.acquire()

            try:
                yield checkpoint
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            else:
                if self._conn.in_transaction:
                    self._conn.execute("COMMIT")
            finally:
                self._batching = False

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for several reads."""
        with self._lock:
            if self._conn.in_transaction:  # inside a batch: already one snapshot
                yield self._conn
                return
            self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                self._conn.execute("COMMIT")

    def data_version(self) -> int:
        """Changes whenever another connection commits (cheap: no disk read)."""
        with self._lock:
            return self._conn.execute("PRAGMA data_version").fetchone()[0]

    def now(self) -> int:
        return self.clock.now_ms()

    def sessions_dir(self, agent_id: str) -> Path:
        return self.state_dir / "agents" / agent_id / "sessions"

    def transcript_path_for(self, agent_id: str, session_id: str) -> Path:
        return self.sessions_dir(agent_id) / f"{session_id}.jsonl"

    # -- sessions -----------------------------------------------------------------------------

    def get(self, key: str) -> StoredSession | None:
        with self._lock:
            row = self._conn.execute("SELECT * FROM sessions WHERE key = ?", (key,)).fetchone()
        return _row_to_session(row, self.state_dir) if row else None

    def get_by_session_id(self, session_id: str) -> StoredSession | None:
        with self._lock:
            row = self._conn.execute("SELECT * FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        return _row_to_session(row, self.state_dir) if row else None

    def count(self, include_archived: bool = False) -> int:
        sql = "SELECT COUNT(*) FROM sessions"
        if not include_archived:
            sql += " WHERE archived_at IS NULL"
        with self._lock:
            return self._conn.execute(sql).fetchone()[0]

    def create(
        self,
        key: str,
        entry: dict[str, Any] | None = None,
        *,
        session_id: str | None = None,
        created_at: int | None = None,
    ) -> StoredSession:
        """Add a session with a fresh transcript (header line written to the mirror)."""
        with self.write() as conn:
            return self._create(conn, key, entry, session_id=session_id, created_at=created_at)

    def ensure(self, key: str, entry: dict[str, Any] | None = None) -> StoredSession:
        """The session under `key`, created with `entry` when it does not exist yet."""
        with self.write() as conn:
            row = conn.execute("SELECT * FROM sessions WHERE key = ?", (key,)).fetchone()
            if row:
                return _row_to_session(row, self.state_dir)
            return self._create(conn, key, entry)

    def _create(
        self,
        conn: sqlite3.Connection,
        key: str,
        entry: dict[str, Any] | None,
        *,
        session_id: str | None = None,
        created_at: int | None = None,
    ) -> StoredSession:
        if conn.execute("SELECT 1 FROM sessions WHERE key = ?", (key,)).fetchone():
            raise StoreError(f"Session already exists: {key}")
        sid = session_id or new_uuid()
        if not SAFE_SESSION_ID_RE.match(sid):
            raise StoreError(f"Invalid session ID: {sid}")
        if conn.execute("SELECT 1 FROM sessions WHERE session_id = ?", (sid,)).fetchone():
            raise StoreError(f"Session ID already in use: {sid}")
        now = self.now()
        created = created_at if created_at is not None else now
        data = scrub_json(dict(entry or {}))  # its strings also fill columns: no lone surrogates
        data["sessionId"] = sid
        updated = data.get("updatedAt")
        if isinstance(updated, bool) or not isinstance(updated, (int, float)):
            data["updatedAt"] = created
        else:
            data["updatedAt"] = int(updated)
        agent_id = agent_id_of(key)
        path = self.transcript_path_for(agent_id, sid)
        header = {
            "type": "session",
            "version": TRANSCRIPT_VERSION,
            "id": sid,
            "timestamp": iso_from_ms(created),
            "cwd": str(self.state_dir),
        }
        header_bytes = (dumps(header) + "\n").encode("utf-8")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, header_bytes)
        finally:
            os.close(fd)
        columns = {
            "key": key,
            "agent_id": agent_id,
            "session_id": sid,
            "created_at": created,
            "updated_at": int(data["updatedAt"]),
            "listable": 0 if is_cron_run_session_key(key) else 1,
            "mirror_path": str(path.relative_to(self.state_dir)),
            "mirror_size": len(header_bytes),
            "entry": dumps(data),
            **derived_columns(key, data),
        }
        conn.execute(
            f"INSERT INTO sessions ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
            tuple(columns.values()),
        )
        return StoredSession(
            key=key,
            agent_id=agent_id,
            session_id=sid,
            created_at=created,
            updated_at=int(data["updatedAt"]),
            archived_at=None,
            msg_count=0,
            mirror_path=str(path),
            entry=data,
        )

    def patch(self, key: str, changes: dict[str, Any]) -> StoredSession:
        """Merge `changes` into a session's entry; a value of None removes the field."""
        with self.write() as conn:
            self._patch(conn, key, changes)
            updated_row = conn.execute("SELECT * FROM sessions WHERE key = ?", (key,)).fetchone()
        return _row_to_session(updated_row, self.state_dir)

    def _patch(self, conn: sqlite3.Connection, key: str, changes: dict[str, Any]) -> None:
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
            "updated_at": int(updated)
            if isinstance(updated, (int, float)) and not isinstance(updated, bool)
            else row["updated_at"],
            **derived_columns(key, entry),
        }
        conn.execute(
            f"UPDATE sessions SET {', '.join(f'{c} = ?' for c in columns)} WHERE key = ?",
            (*columns.values(), key),
        )

    def set_archived(self, key: str, archived_at: int | None) -> None:
        with self.write() as conn:
            conn.execute("UPDATE sessions SET archived_at = ? WHERE key = ?", (archived_at, key))

    def list(
        self,
        *,
        limit: int | None = None,
        offset: int = 0,
        active_since: int | None = None,
        include_global: bool = True,
        include_unknown: bool = True,
        spawned_by: str | None = None,
        agent_id: str | None = None,
        label: str | None = None,
        search: str | None = None,
        include_archived: bool = False,
    ) -> tuple[list[StoredSession], bool]:
        """Sessions newest first (REF's `sessions.list` filters); returns (rows, has_more)."""
        where = ["listable = 1"]
        args: list[Any] = []
        if not include_archived:
            where.append("archived_at IS NULL")
        if active_since is not None:
            where.append("updated_at >= ?")
            args.append(active_since)
        if not include_global:
            where.append("key != 'global'")
        if not include_unknown:
            where.append("key != 'unknown'")
        if spawned_by is not None:
            where.append("key NOT IN ('global', 'unknown')")
            where.append("(spawned_by = ? OR parent_session_key = ?)")
            args += [spawned_by, spawned_by]
        if agent_id is not None:
            where.append("agent_id = ?")
            args.append(agent_id)
        if label is not None:
            where.append("label = ?")
            args.append(label)
        if search:
            where.append(
                "(instr(lower(key), ?) OR instr(lower(session_id), ?) OR instr(lower(coalesce(label, '')), ?)"
                " OR instr(lower(coalesce(json_extract(entry, '$.displayName'), '')), ?)"
                " OR instr(lower(coalesce(json_extract(entry, '$.subject'), '')), ?))"
            )
            args += [search.lower()] * 5
        sql = f"SELECT * FROM sessions WHERE {' AND '.join(where)} ORDER BY updated_at DESC, key"
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            args += [limit + 1, offset]
        elif offset:
            sql += " LIMIT -1 OFFSET ?"
            args.append(offset)
        with self._lock:
            rows = self._conn.execute(sql, args).fetchall()
        has_more = limit is not None and len(rows) > limit
        if has_more:
            rows = rows[:limit]
        return [_row_to_session(r, self.state_dir) for r in rows], has_more

    def agent_ids(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._conn.execute("SELECT DISTINCT agent_id FROM sessions")]

    def browse(
        self,
        flt: SessionFilter,
        *,
        order_by: str = "updated",
        descending: bool = True,
        limit: int | None = 200,
        offset: int = 0,
        count: bool = True,
    ) -> tuple[list[StoredSession], int]:
        """A filtered, sorted page of sessions and the size of the whole filtered set."""
        kind_expr = (
            "(CASE WHEN key = 'global' THEN 'main' WHEN rest = ? THEN 'main' "
            "WHEN kind = 'main' THEN 'other' ELSE kind END)"
        )
        where = ["listable = 1", "key != 'unknown'"]
        args: list[Any] = []
        if not flt.include_global:
            where.append("key != 'global'")
        if not flt.include_archived:
            where.append("archived_at IS NULL")
        if flt.agent_ids is not None:
            # `+agent_id`: not through the agent index, so the page can be read in order from
            # `sessions_browse` and stop after `limit` rows instead of sorting every match.
            where.append(f"+agent_id IN ({', '.join('?' * len(flt.agent_ids)) or 'NULL'})")
            args += flt.agent_ids
        if flt.scope_agent is not None and flt.scope in ("self", "tree"):
            mine = "key = ?" if flt.scope == "self" else "(key = ? OR spawned_by = ? OR parent_session_key = ?)"
            where.append(f"(agent_id != ? OR {mine})")
            args += [flt.scope_agent] + [flt.requester] * (1 if flt.scope == "self" else 3)
        if flt.spawned_by is not None:
            where.append("(spawned_by = ? OR parent_session_key = ?)")
            args += [flt.spawned_by, flt.spawned_by]
        if flt.kinds is not None:
            where.append(f"{kind_expr} IN ({', '.join('?' * len(flt.kinds)) or 'NULL'})")
            args += [flt.main_key, *flt.kinds]
        if flt.active_since is not None:
            where.append("updated_at >= ?")
            args.append(flt.active_since)
        if flt.search:
            needle = flt.search.lower()
            where.append(
                "(instr(lower(key), ?) OR instr(lower(coalesce(label, '')), ?) "
                "OR instr(lower(coalesce(display_name, '')), ?) OR instr(lower(session_id), ?) "
                "OR instr(channel, ?))"
            )
            args += [needle] * 5
        if flt.keys is not None:
            where.append(f"key IN ({', '.join('?' * len(flt.keys)) or 'NULL'})")
            args += flt.keys
        clause = " AND ".join(where)
        column = SORT_COLUMNS.get(order_by, "updated_at")
        order_args: list[Any] = []
        if column == "KIND":
            column = kind_expr
            order_args.append(flt.main_key)
        elif column == "DISPLAY":
            column = _DISPLAY_EXPR
            order_args.append(flt.shown_as_main or "")
        direction = "DESC" if descending else "ASC"
        # Filter and order on the covering index `sessions_browse` (small entries, no JSON),
        # then read the whole rows of just the page.
        sql = f"SELECT key FROM sessions WHERE {clause} ORDER BY {column} {direction}, key"
        page_args: list[Any] = []
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            page_args = [limit, offset]
        with self.read() as conn:
            keys = [r[0] for r in conn.execute(sql, (*args, *order_args, *page_args))]
            found = {}
            for chunk in range(0, len(keys), 500):
                part = keys[chunk : chunk + 500]
                for row in conn.execute(f"SELECT * FROM sessions WHERE key IN ({', '.join('?' * len(part))})", part):
                    found[row["key"]] = row
            total = conn.execute(f"SELECT COUNT(*) FROM sessions WHERE {clause}", args).fetchone()[0] if count else -1
        rows = [found[k] for k in keys if k in found]
        return [_row_to_session(r, self.state_dir) for r in rows], total

    def spawned_keys(self, requester: str) -> set[str]:
        """Keys of sessions spawned by (or parented to) `requester`."""
        with self._lock:
            rows = self._conn.execute(
                """SELECT key FROM sessions WHERE (spawned_by = ? OR parent_session_key = ?)
                   AND key NOT IN ('global', 'unknown')""",
                (requester, requester),
            ).fetchall()
        return {r[0] for r in rows}

    def keys_with_label(self, label: str, agent_id: str | None = None) -> list[str]:
        sql = "SELECT key FROM sessions WHERE label = ? AND archived_at IS NULL"
        args: list[Any] = [label]
        if agent_id is not None:
            sql += " AND agent_id = ?"
            args.append(agent_id)
        with self._lock:
            return [r[0] for r in self._conn.execute(sql + " ORDER BY updated_at DESC", args)]

    # -- transcripts --------------------------------------------------------------------------

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
        return self.append_lines(key, [line], touch=touch)[0]

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
        session = _row_to_session(row, self.state_dir)
        last_seq, msg_count = _int(row["last_seq"]), session.msg_count
        parent = row["last_entry_id"]
        mirror_size = self._reconcile_mirror(conn, row)
        chunks: list[bytes] = []
        for i, line in enumerate(lines):
            text = raw[i] if raw is not None else None
            if text is None:
                line = dict(line)
                if "id" not in line:
                    line["id"] = new_entry_id()
                    line["parentId"] = parent
                    line.setdefault("timestamp", iso_from_ms(now))
                text = dumps(_ordered_line(line))
            last_seq += 1
            msg_seq = None
            if _is_message_line(line):
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
        expected = row["mirror_size"]
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

    # -- imports ------------------------------------------------------------------------------

    def imported_lines(self, source: str) -> int | None:
        """How many physical lines of `source` were imported; None if it never was."""
        with self._lock:
            row = self._conn.execute("SELECT lines FROM imports WHERE source = ?", (source,)).fetchone()
        return row[0] if row else None

    def record_import(self, source: str, session_key: str, lines: int, entry: dict[str, Any]) -> None:
        with self.write() as conn:
            self._record_import(conn, source, session_key, lines, entry)

    def _record_import(
        self, conn: sqlite3.Connection, source: str, session_key: str, lines: int, entry: dict[str, Any]
    ) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO imports (source, session_key, lines, entry, imported_at) VALUES (?, ?, ?, ?, ?)",
            (source, session_key, lines, exact_dumps(entry), self.now()),
        )

    def imported_entry(self, source: str) -> dict[str, Any]:
        """The source's session entry as it was at its last import."""
        with self._lock:
            row = self._conn.execute("SELECT entry FROM imports WHERE source = ?", (source,)).fetchone()
        return json.loads(row[0]) if row else {}

    def imported_session_id(self, source: str) -> str | None:
        """The sessionId a source session had when it was imported."""
        with self._lock:
            row = self._conn.execute(
                "SELECT s.session_id FROM imports i JOIN sessions s ON s.key = i.session_key WHERE i.source = ?",
                (source,),
            ).fetchone()
        return row[0] if row else None

    def import_source_of(self, key: str) -> str | None:
        """The OpenClaw source a session was imported from (it belongs to that OpenClaw), if any."""
        with self._lock:
            row = self._conn.execute("SELECT source FROM imports WHERE session_key = ? LIMIT 1", (key,)).fetchone()
        return str(row[0]) if row else None

    def transcript_tail(self, key: str) -> tuple[int, str | None]:
        """(lines stored after the header, entry id of the last one) of a session."""
        with self._lock:
            row = self._conn.execute("SELECT last_seq, last_entry_id FROM sessions WHERE key = ?", (key,)).fetchone()
        return (int(row[0]), row[1]) if row else (0, None)

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
        with self.write() as conn:
            if changes:
                self._patch(conn, key, changes)
            if lines:
                self._append_lines(conn, key, lines, raw=raw, touch=False)
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
        with self.write() as conn:
            row = conn.execute("SELECT * FROM sessions WHERE key = ?", (key,)).fetchone()
            if not row:
                raise StoreError(f"No session found: {key}")
            conn.execute("DELETE FROM transcript WHERE session_id = ?", (row["session_id"],))
            conn.execute(
                "UPDATE sessions SET last_seq = 0, msg_count = 0, last_entry_id = NULL, mirror_size = -1 WHERE key = ?",
                (key,),
            )
            self._rebuild_mirror(conn, conn.execute("SELECT * FROM sessions WHERE key = ?", (key,)).fetchone())
            self._patch(conn, key, {k: v for k, v in entry.items() if k != "sessionId"})
            if lines:
                self._append_lines(conn, key, lines, raw=raw, touch=False)
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
        """Create a session with its transcript and record where it came from: all or nothing."""
        updated = entry.get("updatedAt")
        created = updated if isinstance(updated, int) and not isinstance(updated, bool) else None
        with self.write() as conn:
            self._create(conn, key, entry, session_id=session_id, created_at=created)
            if lines:
                self._append_lines(conn, key, lines, raw=raw, touch=False)
            self._record_import(conn, source, key, source_lines, entry)


def _ordered_line(line: dict[str, Any]) -> dict[str, Any]:
    """OpenClaw's field order: type, id, parentId, timestamp, then the rest."""
    head = {k: line[k] for k in ("type", "id", "parentId", "timestamp") if k in line}
    head.update({k: v for k, v in line.items() if k not in head})
    return head


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int:
    return int(value) if value is not None else 0
