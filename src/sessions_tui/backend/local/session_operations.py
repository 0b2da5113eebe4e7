"""The operator's operations on a session on the embedded engine (engine/session_operations.py,
engine/subagents/run_controls.py `abort_session`): each run on the store's thread once the
requester may reach the session (tools/requester/operating.py), its refusals said in the seam's words;
`LocalBackend` has them (the seam's `Aborting`, `Operating`, `Compacting`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ParamSpec, Protocol, TypeVar

from sessions_tui.backend.contract.types import (
    AbortOutcome,
    BackendUnavailable,
    Capability,
    NewSession,
    OperationRefused,
    Requester,
    SessionOpOutcome,
)
from sessions_tui.engine.engine import Engine
from sessions_tui.tools.calling.base import ToolInputError

if TYPE_CHECKING:
    from sessions_tui.engine.session_operations import SessionOpDone

P = ParamSpec("P")
T = TypeVar("T")


class _Host(Protocol):
    """What the operations need of the backend: its engine, its store's thread, its tools, its
    key lookup and its line for what it lacks."""

    engine: Engine

    def _store(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> Awaitable[T]: ...

    async def call_tool(self, name: str, args: dict[str, Any], requester: Requester) -> dict[str, Any]: ...

    def _owner_key(self, key: str) -> str | None: ...

    def not_offered(self, capability: Capability) -> str: ...

    def _reach(self, requester: Requester | None, key: str) -> str | None: ...

    async def _operate(
        self, requester: Requester | None, key: str, fn: Callable[..., SessionOpDone], *args: Any, **kwargs: Any
    ) -> SessionOpOutcome: ...


@contextmanager
def _in_seam_words() -> Iterator[None]:
    """The engine's refusals of an operation on a session as the seam says them: bad input a
    `ToolInputError`, what the state forbids an `OperationRefused`."""
    from sessions_tui.engine.session_operations import SessionOpInvalid, SessionOpRefused

    try:
        yield
    except SessionOpInvalid as exc:
        raise ToolInputError(str(exc)) from None
    except SessionOpRefused as exc:
        raise OperationRefused(str(exc)) from None


class SessionOperations:
    """Stop, create, reset, rename, re-model, archive, delete; compacting is not offered."""

    async def abort_run(
        self: _Host, key: str, *, clear_queued: bool = False, requester: Requester | None = None
    ) -> AbortOutcome:
        """The session's running turn stopped in whichever process runs it (and, with
        `clear_queued`, the turns waiting behind it in every process): engine/subagents/run_controls.py."""
        by, target = await self._store(lambda: (self._reach(requester, key), self._owner_key(key)))
        if target is None:
            raise ToolInputError(f"No session found: {key}")
        done = await self.engine.run_controls.abort_session(target, clear_queued=clear_queued, requester=by)
        return AbortOutcome(
            session_key=target,
            aborted=done.status == "aborted",
            run_id=done.run_id,
            status=done.status,
            cleared_queued=len(done.cleared),
        )

    def _reach(self: _Host, requester: Requester | None, key: str) -> str | None:
        """On the store's thread: `OperationRefused` when the requester may not reach the session
        (tools/requester/operating.py); the requester's key for the audit (None: the operator)."""
        if requester is None:
            return None
        from sessions_tui.tools.requester.operating import operation_refusal

        refusal = operation_refusal(self.engine, requester.key, requester.sandboxed, key)
        if refusal is not None:
            raise OperationRefused(refusal.error)
        return self.engine.canonical(requester.key) if requester.key else self.engine.main_session_key()

    async def _operate(
        self: _Host, requester: Requester | None, key: str, fn: Callable[..., SessionOpDone], *args: Any, **kwargs: Any
    ) -> SessionOpOutcome:
        """An operation run on the store's thread once the requester may reach `key`, its refusals
        said in the seam's words."""

        def run() -> SessionOpDone:
            by = self._reach(requester, key)
            return fn(self.engine, key, *args, requester=by, **kwargs)

        with _in_seam_words():
            done = await self._store(run)
        return SessionOpOutcome(**dataclasses.asdict(done))

    async def create_session(
        self: _Host, request: NewSession, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        from sessions_tui.engine import session_operations as ops

        outcome = await self._operate(
            requester,
            request.key,
            ops.create_session,
            agent_id=request.agent_id,
            label=request.label,
            model=request.model,
            thinking=request.thinking,
        )
        if request.message is None:
            return outcome
        params = {"sessionKey": outcome.session_key, "message": request.message, "timeoutSeconds": 0}
        sent = await self.call_tool("sessions_send", params, requester or Requester())
        return outcome.model_copy(update={"send": sent})

    async def reset_session(self: _Host, key: str, *, requester: Requester | None = None) -> SessionOpOutcome:
        from sessions_tui.engine import session_operations as ops

        return await self._operate(requester, key, ops.reset_session)

    async def rename_session(
        self: _Host, key: str, label: str | None, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        from sessions_tui.engine import session_operations as ops

        return await self._operate(requester, key, ops.rename_session, label)

    async def set_session_model(
        self: _Host, key: str, model: str | None, thinking: str | None, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        from sessions_tui.engine import session_operations as ops

        return await self._operate(requester, key, ops.set_session_model, model, thinking)

    async def archive_session(
        self: _Host, key: str, archived: bool, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        from sessions_tui.engine import session_operations as ops

        return await self._operate(requester, key, ops.set_archived, archived)

    async def delete_session(self: _Host, key: str, *, requester: Requester | None = None) -> SessionOpOutcome:
        """Refused before anything stops when it may not be deleted; else its turn stopped (and the
        turns queued behind it dropped), then deleted."""
        from sessions_tui.engine import session_operations as ops

        def check() -> str:
            self._reach(requester, key)
            return ops.deletable(self.engine, key).key

        with _in_seam_words():
            session = await self._store(check)
        await self.engine.run_controls.abort_session(session, clear_queued=True)
        return await self._operate(requester, key, ops.delete_session)

    async def compact_session(self: _Host, key: str, *, requester: Requester | None = None) -> SessionOpOutcome:
        raise BackendUnavailable(self.not_offered(Capability.COMPACT))
