"""The `run_controls` table: a kill or steer asked of the process running a sub-agent's run.

A process that is asked to kill or steer a run another live process executes records a row for
that process (`owner_pid`) and watches it; the owner carries it out and sets `done_at` and its
`result`. Setting `done_at` only where it is still unset makes the first answer the only one:
an owner's late answer never overwrites a requester's "no answer", nor the other way round.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from sessions_tui.engine.store.connection import Database


@dataclass(frozen=True)
class RunControlRow:
    """One row of `run_controls`: `action` is `kill` or `steer` (with its `message`)."""

    id: int
    run_id: str
    action: str
    message: str | None
    owner_pid: int | None
    requested_at: int
    done_at: int | None
    result: dict[str, Any]


def _control(row: sqlite3.Row) -> RunControlRow:
    try:
        result = json.loads(row["result"] or "{}")
    except ValueError:
        result = {}
    return RunControlRow(
        id=row["id"],
        run_id=row["run_id"],
        action=row["action"],
        message=row["message"],
        owner_pid=row["owner_pid"],
        requested_at=row["requested_at"],
        done_at=row["done_at"],
        result=result if isinstance(result, dict) else {},
    )


class RunControlsRepository:
    """Asking another process to kill or steer a run, and answering what was asked of this one."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def add_run_control(self, run_id: str, action: str, message: str | None, owner_pid: int) -> int:
        """Record a request for the process `owner_pid`; returns its id."""
        with self.db.write() as conn:
            cursor = conn.execute(
                "INSERT INTO run_controls (run_id, action, message, owner_pid, requested_at) VALUES (?, ?, ?, ?, ?)",
                (run_id, action, message, owner_pid, self.db.now()),
            )
            return int(cursor.lastrowid or 0)

    def get_run_control(self, control_id: int) -> RunControlRow | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT * FROM run_controls WHERE id = ?", (control_id,)).fetchone()
        return _control(row) if row is not None else None

    def pending_run_controls(self, owner_pid: int | None = None) -> list[RunControlRow]:
        """The requests not yet answered, oldest first: those of one process, or all."""
        with self.db.read() as conn:
            if owner_pid is None:
                rows = conn.execute("SELECT * FROM run_controls WHERE done_at IS NULL ORDER BY id").fetchall()
            else:
                rows = conn.execute(
                    "SELECT * FROM run_controls WHERE owner_pid = ? AND done_at IS NULL ORDER BY id", (owner_pid,)
                ).fetchall()
        return [_control(row) for row in rows]

    def finish_run_control(self, control_id: int, result: dict[str, Any]) -> bool:
        """Answer a request, unless it was answered already; returns whether this answer counts."""
        with self.db.write() as conn:
            cursor = conn.execute(
                "UPDATE run_controls SET done_at = ?, result = ? WHERE id = ? AND done_at IS NULL",
                (self.db.now(), json.dumps(result), control_id),
            )
            return cursor.rowcount > 0

    def session_run_pids(self, session_key: str) -> list[int | None]:
        """The processes holding queued or running runs of a session (the ones a kill must reach)."""
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT DISTINCT pid FROM runs WHERE session_key = ? AND status IN ('queued', 'running')",
                (session_key,),
            ).fetchall()
        return [row["pid"] for row in rows]
