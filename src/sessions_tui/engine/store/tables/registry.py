"""The `subagent_runs` table: the registry of spawned child runs and where each one's announce stands.

A row goes `waiting` (the child runs) → `pending` (it ended) → `announcing` (a process took the
announce) → `done`. Taking the announce is one write transaction, so two processes never both
announce the same run.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sessions_tui.engine.store.connection import CLAIM, Database


@dataclass(frozen=True)
class SubagentRow:
    """One row of `subagent_runs`."""

    run_id: str
    child_key: str
    requester_key: str
    task: str
    created_at: int
    label: str | None = None
    cleanup: str = "keep"
    ended_at: int | None = None
    outcome: str | None = None
    outcome_error: str | None = None
    announce_state: str = "waiting"
    announce_pid: int | None = None
    announced_at: int | None = None
    archive_at: int | None = None
    data: dict[str, Any] = field(default_factory=dict)


def _subagent(row: sqlite3.Row) -> SubagentRow:
    return SubagentRow(
        run_id=row["run_id"],
        child_key=row["child_key"],
        requester_key=row["requester_key"],
        task=row["task"],
        label=row["label"],
        cleanup=row["cleanup"],
        created_at=row["created_at"],
        ended_at=row["ended_at"],
        outcome=row["outcome"],
        outcome_error=row["outcome_error"],
        announce_state=row["announce_state"],
        announce_pid=row["announce_pid"],
        announced_at=row["announced_at"],
        archive_at=row["archive_at"],
        data=json.loads(row["data"]),
    )


class RegistryRepository:
    """Registering child runs, recording their end and announce, and finding the ones left over."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def insert_subagent_run(self, run: SubagentRow) -> None:
        with self.db.write() as conn:
            conn.execute(
                """INSERT INTO subagent_runs (run_id, child_key, requester_key, task, label, cleanup, created_at,
                       ended_at, outcome, outcome_error, announce_state, announce_pid, announced_at, archive_at, data)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    run.run_id,
                    run.child_key,
                    run.requester_key,
                    run.task,
                    run.label,
                    run.cleanup,
                    run.created_at,
                    run.ended_at,
                    run.outcome,
                    run.outcome_error,
                    run.announce_state,
                    run.announce_pid,
                    run.announced_at,
                    run.archive_at,
                    json.dumps(run.data),
                ),
            )

    def get_subagent_run(self, run_id: str) -> SubagentRow | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT * FROM subagent_runs WHERE run_id = ?", (run_id,)).fetchone()
        return _subagent(row) if row else None

    def subagent_runs(self, requester_key: str | None = None, limit: int = 200) -> list[SubagentRow]:
        """Registered runs, newest first; only those of `requester_key` when given."""
        sql, args = "SELECT * FROM subagent_runs", []
        if requester_key is not None:
            sql += " WHERE requester_key = ?"
            args.append(requester_key)
        with self.db.read() as conn:
            rows = conn.execute(sql + " ORDER BY created_at DESC, rowid DESC LIMIT ?", (*args, limit)).fetchall()
        return [_subagent(r) for r in rows]

    def unannounced_subagent_runs(self) -> list[SubagentRow]:
        with self.db.read() as conn:
            rows = conn.execute("SELECT * FROM subagent_runs WHERE announce_state != 'done'").fetchall()
        return [_subagent(r) for r in rows]

    def running_children(self, requester_key: str) -> int:
        """How many of the requester's child runs have not ended."""
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT COUNT(*) FROM subagent_runs WHERE requester_key = ? AND ended_at IS NULL", (requester_key,)
            ).fetchone()
        return int(row[0])

    def children_due_for_archive(self, now: int) -> list[str]:
        """Child session keys whose archive time has come."""
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT child_key FROM subagent_runs WHERE archive_at IS NOT NULL AND archive_at <= ?", (now,)
            ).fetchall()
        return [row["child_key"] for row in rows]

    def end_subagent_run(self, run_id: str, *, ended_at: int, outcome: str, outcome_error: str | None) -> None:
        """Record a child run's outcome; its announce is then `pending`."""
        with self.db.write() as conn:
            conn.execute(
                "UPDATE subagent_runs SET ended_at = ?, outcome = ?, outcome_error = ?, announce_state = ? "
                "WHERE run_id = ?",
                (ended_at, outcome, outcome_error, "pending", run_id),
            )

    def claim_announce(self, run_id: str, pid: int, *, held_elsewhere: Callable[[int | None], bool]) -> bool:
        """Take a run's announce for process `pid`: not when it is done, nor when another process
        (`held_elsewhere` of its pid) is announcing it."""
        with self.db.write(claim=True) as conn:
            row = conn.execute(
                f"SELECT announce_state, announce_pid FROM subagent_runs WHERE run_id = ? {CLAIM}", (run_id,)
            ).fetchone()
            if row is None or row["announce_state"] == "done":
                return False
            if row["announce_state"] == "announcing" and held_elsewhere(row["announce_pid"]):
                return False
            conn.execute(
                "UPDATE subagent_runs SET announce_state = 'announcing', announce_pid = ? WHERE run_id = ?",
                (pid, run_id),
            )
            return True

    def mark_announced(self, run_id: str, *, announced_at: int, archive_at: int | None, data: dict[str, Any]) -> None:
        """The announce is `done`; the child is archived at `archive_at` (None: never)."""
        with self.db.write() as conn:
            conn.execute(
                "UPDATE subagent_runs SET announce_state = ?, announced_at = ?, archive_at = ?, data = ? "
                "WHERE run_id = ?",
                ("done", announced_at, archive_at, json.dumps(data), run_id),
            )
