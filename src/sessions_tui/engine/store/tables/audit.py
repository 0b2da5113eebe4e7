"""The `audit` table: the log of sends the policy refused and of runs the operator stopped."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ConfigDict

from sessions_tui.engine.lazy_model import LazyModel
from sessions_tui.engine.store.connection import Database


class AuditEntry(LazyModel):
    """One row of `audit`: a refused send, where it came from and why (`send_refused`), or a run the
    operator stopped (`run_aborted`)."""

    model_config = ConfigDict(frozen=True)

    id: int
    ts: int
    kind: str
    session_key: str | None
    requester: str | None
    via: str | None
    reason: str | None
    data: dict[str, Any]


class AuditRepository:
    """Appending to the audit log and reading its newest entries."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def add_audit(
        self,
        *,
        ts: int,
        kind: str,
        session_key: str | None,
        requester: str | None,
        via: str | None,
        reason: str | None,
        data: dict[str, Any],
    ) -> None:
        with self.db.write() as conn:
            conn.execute(
                "INSERT INTO audit (ts, kind, session_key, requester, via, reason, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (ts, kind, session_key, requester, via, reason, json.dumps(data)),
            )

    def audit_rows(self, limit: int = 100) -> list[AuditEntry]:
        """The newest `limit` entries, newest first."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT * FROM audit ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [
            AuditEntry(
                id=r["id"],
                ts=r["ts"],
                kind=r["kind"],
                session_key=r["session_key"],
                requester=r["requester"],
                via=r["via"],
                reason=r["reason"],
                data=json.loads(r["data"]),
            )
            for r in rows
        ]
