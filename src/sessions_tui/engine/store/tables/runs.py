"""The `runs` table: one row per run (a model turn sequence in a session), with the pid running it.

Which process runs a session's turn is settled here: claiming a run checks for a live run of
another process in the same session and marks this one running in one write transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sessions_tui.engine.run_end import RunState
from sessions_tui.engine.store.connection import Database


@dataclass
class RunRecord:
    """One run: a row of `runs` (its request data left in the database), and the record the run
    queues (`engine.runs`) carry and update as the run goes."""

    run_id: str
    session_key: str
    status: RunState = "queued"
    error: str | None = None
    lane: str = "main"
    pid: int | None = None  # the process that recorded it
    created_at: int = 0
    started_at: int | None = None
    ended_at: int | None = None


def _run(row: sqlite3.Row) -> RunRecord:
    return RunRecord(
        run_id=row["run_id"],
        session_key=row["session_key"],
        status=row["status"],
        error=row["error"],
        lane=row["lane"] or "main",
        pid=row["pid"],
        created_at=row["created_at"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
    )


class RunsRepository:
    """Recording runs, claiming them for a process, and reading them back."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def insert_run(self, run: RunRecord, data: dict[str, Any]) -> None:
        with self.db.write(key=run.session_key) as conn:
            conn.execute(
                """INSERT INTO runs (run_id, session_key, status, error, lane, pid, created_at, started_at, ended_at,
                       data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    run.run_id,
                    run.session_key,
                    run.status,
                    run.error,
                    run.lane,
                    run.pid,
                    run.created_at,
                    run.started_at,
                    run.ended_at,
                    json.dumps(data),
                ),
            )

    def update_run(
        self,
        run_id: str,
        *,
        status: str,
        error: str | None,
        started_at: int | None,
        ended_at: int | None,
        session_key: str | None = None,
    ) -> None:
        """A run's end (its status, error and times), written once: a run another process already ended
        keeps that end (a host that stalled past its lease and comes back finds its runs ended as
        interrupted, and does not write over them). `session_key`, when the caller knows it: the run's
        session (its writes go beside other sessions' on PostgreSQL)."""
        with self.db.write(key=session_key) as conn:
            conn.execute(
                "UPDATE runs SET status = ?, error = ?, started_at = ?, ended_at = ?"
                " WHERE run_id = ? AND ended_at IS NULL",
                (status, error, started_at, ended_at, run_id),
            )

    def get_run(self, run_id: str) -> RunRecord | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT * FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return _run(row) if row is not None else None

    def run_pid(self, run_id: str) -> int | None:
        """The pid of the process that recorded a run (None: no such run, or none recorded)."""
        with self.db.read() as conn:
            row = conn.execute("SELECT pid FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return row["pid"] if row is not None else None

    def live_runs(self, session_key: str) -> list[RunRecord]:
        """A session's runs still queued or running, oldest first."""
        with self.db.read() as conn:
            rows = conn.execute(
                """SELECT * FROM runs WHERE session_key = ? AND status IN ('queued', 'running')
                   ORDER BY created_at, rowid""",
                (session_key,),
            ).fetchall()
        return [_run(row) for row in rows]

    def unfinished_runs(self) -> list[tuple[str, int | None]]:
        """(run id, pid) of every run still queued or running."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT run_id, pid FROM runs WHERE status IN ('queued', 'running')").fetchall()
        return [(row["run_id"], row["pid"]) for row in rows]

    def claim_run(self, run_id: str, session_key: str, *, held_elsewhere: Callable[[int | None], bool]) -> int | None:
        """Mark a run running, unless a running run of the same session has a pid `held_elsewhere`
        says is another live process: check and claim in one write transaction. Returns when it
        started (read inside the transaction, so it is never before the end another process
        committed for its run of the session), None when not claimed."""
        with self.db.write(key=session_key) as conn:
            rows = conn.execute(
                "SELECT pid FROM runs WHERE session_key = ? AND status = 'running' AND run_id != ?",
                (session_key, run_id),
            ).fetchall()
            if any(held_elsewhere(row["pid"]) for row in rows):
                return None
            started_at = self.db.now()
            conn.execute(
                "UPDATE runs SET status = ?, started_at = ? WHERE run_id = ?",
                ("running", started_at, run_id),
            )
            return started_at
