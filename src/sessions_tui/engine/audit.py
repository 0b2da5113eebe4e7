"""The audit log: every send the policy refused, with where it came from and why."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from sessions_tui.engine.events import PolicyRefused

if TYPE_CHECKING:
    from sessions_tui.engine.engine import Engine


class AuditEntry(BaseModel):
    id: int
    ts: int
    kind: str
    session_key: str | None
    requester: str | None
    via: str | None
    reason: str | None
    data: dict[str, Any]


def record_refusal(
    engine: Engine,
    session_key: str,
    *,
    via: str,
    reason: str,
    requester: str | None = None,
    data: dict[str, Any] | None = None,
) -> None:
    """Log a policy refusal and tell subscribers about it."""
    now = engine.now()
    with engine.store.write() as conn:
        conn.execute(
            "INSERT INTO audit (ts, kind, session_key, requester, via, reason, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (now, "send_refused", session_key, requester, via, reason, json.dumps(data or {})),
        )
    engine.events.publish(PolicyRefused(ts=now, session_key=session_key, via=via, reason=reason))


def audit_entries(engine: Engine, limit: int = 100) -> list[AuditEntry]:
    with engine.store.read() as conn:
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
