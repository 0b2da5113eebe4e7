"""The audit log: every send the policy refused, with where it came from and why."""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel

from sessions_tui.engine.events import EventBus, PolicyRefused
from sessions_tui.engine.store import Store


class AuditHost(Protocol):
    """What the audit log needs of the engine: its store, its event bus and its clock."""

    @property
    def store(self) -> Store: ...

    @property
    def events(self) -> EventBus: ...

    def now(self) -> int: ...


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
    engine.store.add_audit(
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
    return [AuditEntry.model_validate(row, from_attributes=True) for row in engine.store.audit_rows(limit)]
