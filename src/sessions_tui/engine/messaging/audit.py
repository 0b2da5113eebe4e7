"""The audit log: every send the policy refused, with where it came from and why, and every run the
operator stopped."""

from __future__ import annotations

import os
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
    engine.events.publish(PolicyRefused(ts=now, session_key=session_key, via=via, reason=reason, requester=requester))


def record_abort(
    engine: AuditHost,
    session_key: str,
    *,
    status: str,
    run_id: str | None,
    cleared: list[str],
    via: str = "operator",
    requester: str | None = None,
) -> None:
    """Log the operator's stop of a session's turn (`status`: `aborted`, `still-running`), with the
    run it asked to stop, the waiting runs it dropped and the process that asked."""
    engine.store.audit.add_audit(
        ts=engine.now(),
        kind="run_aborted",
        session_key=session_key,
        requester=requester,
        via=via if requester is None else "acting as",
        reason=status,
        data={"runId": run_id, "clearedQueued": cleared, "pid": os.getpid()},
    )


def audit_entries(engine: AuditHost, limit: int = 100) -> list[AuditEntry]:
    """The newest entries (refusals, stops), newest first."""
    return engine.store.audit.audit_rows(limit)
