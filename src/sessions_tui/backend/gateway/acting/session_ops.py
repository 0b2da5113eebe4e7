"""The operator's operations on a session (create, reset, rename, model, archive, delete, compact)
where an OpenClaw gateway is spoken to over its HTTP tool API: its `sessions.*` methods are on its
WebSocket only (session_control.py carries them there), so the HTTP fallback answers each with the
line of what it lacks (`not_offered(Capability.SESSION_OPS)`, `not_offered(Capability.COMPACT)`).

OpenClaw's `sessions.*` methods are the operator's own: a gateway takes no session to act as, so an
operation asked as a requester (the dashboard's act-as) is refused (`as_operator_only`), not done
with more reach than that session has."""

from __future__ import annotations

from typing import Protocol

from sessions_tui.backend.contract.types import (
    BackendUnavailable,
    Capability,
    NewSession,
    OperationRefused,
    Requester,
    SessionOpOutcome,
)


class _SaysWhatItLacks(Protocol):
    def not_offered(self: _SaysWhatItLacks, capability: Capability) -> str: ...

    @property
    def url(self) -> str: ...


def as_operator_only(url: str, requester: Requester | None) -> None:
    """`OperationRefused` for an operation asked as a session: the gateway's are the operator's."""
    if requester is not None:
        who = requester.key or "main"
        raise OperationRefused(
            f"{url}: OpenClaw's session operations are the operator's: stop acting as {who} to use them"
        )


def _without(backend: _SaysWhatItLacks, capability: Capability = Capability.SESSION_OPS) -> BackendUnavailable:
    return BackendUnavailable(backend.not_offered(capability))


class WithoutSessionOps:
    """The six operations and compacting, each refused with the backend's own `not_offered` line."""

    async def create_session(
        self: _SaysWhatItLacks, request: NewSession, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        raise _without(self)

    async def reset_session(
        self: _SaysWhatItLacks, key: str, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        raise _without(self)

    async def rename_session(
        self: _SaysWhatItLacks, key: str, label: str | None, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        raise _without(self)

    async def set_session_model(
        self: _SaysWhatItLacks, key: str, model: str | None, thinking: str | None, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        raise _without(self)

    async def archive_session(
        self: _SaysWhatItLacks, key: str, archived: bool, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        raise _without(self)

    async def delete_session(
        self: _SaysWhatItLacks, key: str, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        raise _without(self)

    async def compact_session(
        self: _SaysWhatItLacks, key: str, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        raise _without(self, Capability.COMPACT)
