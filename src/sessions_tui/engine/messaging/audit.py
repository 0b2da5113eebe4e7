"""The audit log: every send the policy refused, with where it came from and why."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sessions_tui.engine.events import PolicyRefused
from sessions_tui.engine.hosts import EngineFloor

if TYPE_CHECKING:
    from sessions_tui.engine.store.tables.audit import AuditEntry

AuditHost = EngineFloor
"""What the audit log needs of the engine: its store, its event bus and its clock."""


def record_refusal(
    engine: AuditHost,
    session_key: str,
    *,
    via: str,
    reason: str,
    requester: str | None = None,
    data: dict[str, Any] | None = None,
) -> None:
    """Log a policy refusal and tell subscribers about it."""
    now = engine.now()
    engine.store.audit.add_audit(
        ts=now,
        kind="send_refused",
        session_key=session_key,
        requester=requester,
        via=via,
        reason=reason,
        data=data or {},
    )
    engine.events.publish(PolicyRefused(ts=now, session_key=session_key, via=via, reason=reason))


def audit_entries(engine: AuditHost, limit: int = 100) -> list[AuditEntry]:
    """The newest refusals, newest first."""
    return engine.store.audit.audit_rows(limit)
