"""The operator's operations on a session (create, reset, rename, model, archive, delete) on an
OpenClaw gateway: not carried yet, so both gateway backends answer each with the line of what they
lack (`not_offered(Capability.SESSION_OPS)`). Mapping them onto its `sessions.*` methods replaces this."""

from __future__ import annotations

from typing import Protocol

from sessions_tui.backend.contract.types import BackendUnavailable, Capability, NewSession, SessionOpOutcome


class _SaysWhatItLacks(Protocol):
    def not_offered(self: _SaysWhatItLacks, capability: Capability) -> str: ...


def _without(backend: _SaysWhatItLacks) -> BackendUnavailable:
    return BackendUnavailable(backend.not_offered(Capability.SESSION_OPS))


class WithoutSessionOps:
    """The six operations, each refused with the backend's own `not_offered` line."""

    async def create_session(self: _SaysWhatItLacks, request: NewSession) -> SessionOpOutcome:
        raise _without(self)

    async def reset_session(self: _SaysWhatItLacks, key: str) -> SessionOpOutcome:
        raise _without(self)

    async def rename_session(self: _SaysWhatItLacks, key: str, label: str | None) -> SessionOpOutcome:
        raise _without(self)

    async def set_session_model(
        self: _SaysWhatItLacks, key: str, model: str | None, thinking: str | None
    ) -> SessionOpOutcome:
        raise _without(self)

    async def archive_session(self: _SaysWhatItLacks, key: str, archived: bool) -> SessionOpOutcome:
        raise _without(self)

    async def delete_session(self: _SaysWhatItLacks, key: str) -> SessionOpOutcome:
        raise _without(self)
