"""The operator's operations on an OpenClaw gateway's sessions, over its WebSocket: `sessions.create`,
`sessions.reset`, `sessions.patch`, `sessions.delete` and `sessions.compact` as the seam's
create, reset, rename, model/thinking, archive/unarchive, delete and compact (`SocketSessionOps`,
mixed into `live.GatewaySocketBackend`).

As the real 2026.9.6 answers them (scripts/record_session_ops_frames.py recorded what the tests
replay):

- Every operation first reads the session with `sessions.describe {key}` (`{session: null}`: none),
  archived ones too (the roster lists only the live ones): `sessions.patch` and `sessions.reset`
  would make a session of a key that names none. Its sessionId guards what follows
  (`expectedSessionId`).
- `sessions.create {key, agentId?, label?, model?, thinkingLevel?, message?}` adopts a key that
  exists, and takes `global` and `unknown`: both are refused here first, as the engine refuses them
  (`new_session_key`). With a `message`, the gateway starts the first turn itself (`runStarted:
  true` and its `runId`; `runStarted: false` with `runError` when that nested `chat.send` was
  refused: the session exists all the same), said as `sessions_send` says a turn not waited for.
- `sessions.reset {key, reason: "reset", expectedSessionId}` starts the session over under the same
  key. This release resets in place: the answer's sessionId is the one before (then no
  `previous_session_id` is said); its old lines are archived by the gateway.
- `sessions.patch`: `{label}` (null clears it; the gateway keeps labels unique: `label already in
  use`), `{model, thinkingLevel}` (null restores the default: our `default` model and `off`
  thinking), `{archived, expectedSessionId}` (archiving stops the session's work first; an agent's
  main session is refused).
- `sessions.delete` needs `operator.admin` unless `archivedOnly` is set: a session is archived
  first (its work stopped), then deleted with `{archivedOnly: true, expectedSessionId}`. The
  gateway keeps the transcript, compressed beside the others (`<sessionId>.jsonl.deleted.<time>.zst`).
- `sessions.reset` and `sessions.compact` need `operator.admin`, which sessions-tui asks for only
  when told to (`admin`): without it the gateway's `MISSING_SCOPE` is a refusal naming the scope.
- `sessions.compact {key}`: `{compacted: true, result}` or `{compacted: false, reason}`.

Errors: the gateway's `INVALID_REQUEST` is bad input (`ToolInputError`) but where it says what the
state forbids (a label in use, an agent's main session, a session changed meanwhile), which is an
`OperationRefused`, as a missing scope is; both carry the gateway's own line. A lost socket or no
answer is `BackendUnavailable`, as `abort_run` says it. OpenClaw's `sessions.*` are the operator's:
an operation asked as a requester is refused (`session_ops.as_operator_only`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from pydantic import ConfigDict

from sessions_tui.backend.contract.types import (
    BackendUnavailable,
    NewSession,
    OperationRefused,
    Requester,
    SessionOpOutcome,
)
from sessions_tui.backend.gateway.acting.session_ops import as_operator_only
from sessions_tui.backend.gateway.link.frames import ErrorCode
from sessions_tui.backend.gateway.link.refusals import ConnectionLost, RequestFailed
from sessions_tui.engine.config.policies import ConfigPolicies
from sessions_tui.engine.lazy_model import LazyModel
from sessions_tui.tools.calling.base import ToolInputError

T = TypeVar("T")

ADMIN_SCOPE = "operator.admin"
STATE_REFUSALS = ("already in use", "cannot delete", "cannot archive", "changed before", "is not archived")
"""What an `INVALID_REQUEST` says when the state forbids the operation, not the input (lower case)."""


class _Answer(LazyModel):
    model_config = ConfigDict(defer_build=True, extra="allow")


class _Entry(_Answer):
    """A session entry as `sessions.create` / `patch` / `reset` answer it."""

    sessionId: str | None = None
    label: str | None = None
    providerOverride: str | None = None
    modelOverride: str | None = None
    thinkingLevel: str | None = None
    archivedAt: int | None = None


class _Changed(_Answer):
    """`sessions.create` / `patch` / `reset`: `{ok, key, sessionId?, entry, runStarted?, runId?, runError?}`."""

    key: str | None = None
    sessionId: str | None = None
    entry: _Entry = _Entry()
    runStarted: bool | None = None
    runId: str | None = None
    runError: Any = None


class _Session(_Answer):
    """`sessions.describe`'s row: what an operation needs of it."""

    key: str
    sessionId: str | None = None
    isMain: bool = False
    archived: bool = False


class _Compacted(_Answer):
    """`sessions.compact`: `{ok, key, compacted, reason?, kept?, result?}`."""

    compacted: bool = False
    reason: str | None = None


class _Socket(Protocol):
    """What the operations need of the socket backend."""

    url: str
    _policies: ConfigPolicies

    def canonical(self, key: str) -> str: ...

    def display(self, key: str, viewer_agent_id: str | None = None) -> str: ...

    def redact(self, text: str) -> str: ...

    async def owner_key(self, key: str) -> str | None: ...

    async def on_socket(self, act: Callable[[Any], Awaitable[T]]) -> T: ...


def _in_seam_words(socket: _Socket, method: str, exc: Exception) -> Exception:
    """A failed call as the seam says it (see the module's docstring)."""
    if isinstance(exc, RequestFailed):
        message = exc.error.message.lower()
        details = exc.error.details
        if exc.code == ErrorCode.MISSING_SCOPE:
            missing = details.missingScope if details is not None else None
            hint = " (sessions-tui asks for it with SESSIONS_TUI_GATEWAY_ADMIN=1)" if missing == ADMIN_SCOPE else ""
            return OperationRefused(exc.line + hint)
        if exc.error.code == ErrorCode.INVALID_REQUEST:
            changed = details is not None and details.reason == "session-changed"
            if changed or any(words in message for words in STATE_REFUSALS):
                return OperationRefused(exc.line)
            return ToolInputError(exc.line)
        return BackendUnavailable(exc.line)
    return BackendUnavailable(f"{socket.url}: {method}: {exc or 'no answer'}")


async def _request(socket: _Socket, method: str, params: dict[str, Any]) -> Any:
    try:
        return await socket.on_socket(lambda client: client.request(method, params))
    except (RequestFailed, ConnectionLost, TimeoutError) as exc:
        raise _in_seam_words(socket, method, exc) from None


async def _described(socket: _Socket, key: str) -> _Session | None:
    answer = await _request(socket, "sessions.describe", {"key": key})
    row = answer.get("session") if isinstance(answer, dict) else None
    return _Session.model_validate(row) if isinstance(row, dict) else None


async def existing(socket: _Socket, key: str) -> _Session:
    """The session a key in any spelling, `main` or a sessionId names, as the gateway describes it
    (archived, or too new for the roster, too); `ToolInputError` for none."""
    found = await _described(socket, await socket.owner_key(key) or socket.canonical(key))
    if found is None:
        raise ToolInputError(f"No session found: {socket.redact(key)}")
    return found


def _outcome(socket: _Socket, op: str, key: str, answer: Any, previous: str | None = None) -> SessionOpOutcome:
    changed = _Changed.model_validate(answer if isinstance(answer, dict) else {})
    entry = changed.entry
    model = entry.modelOverride
    if model and entry.providerOverride and "/" not in model:
        model = f"{entry.providerOverride}/{model}"
    session_id = entry.sessionId or changed.sessionId or ""
    return SessionOpOutcome(
        op=op,
        session_key=socket.display(changed.key or key),
        session_id=session_id,
        previous_session_id=previous if previous and previous != session_id else None,
        label=entry.label,
        model=model,
        thinking=entry.thinkingLevel,
        archived=entry.archivedAt is not None,
    )


def _first_send(socket: _Socket, key: str, answer: Any) -> dict[str, Any]:
    """The first message's turn as `sessions_send` says one not waited for: `accepted`, or `error`."""
    changed = _Changed.model_validate(answer if isinstance(answer, dict) else {})
    shown = socket.display(key)
    if changed.runStarted:
        return {"runId": changed.runId, "status": "accepted", "sessionKey": shown}
    error = changed.runError
    said = error.get("message") if isinstance(error, dict) else error
    text = " ".join(str(said or "the gateway did not start the first turn").split())
    return {"status": "error", "error": text, "sessionKey": shown}


def _new_key(socket: _Socket, request: NewSession) -> str:
    from sessions_tui.engine.session_operations import SessionOpInvalid, SessionOpRefused, new_session_key

    try:
        return new_session_key(socket._policies, request.key, request.agent_id)
    except SessionOpInvalid as exc:
        raise ToolInputError(str(exc)) from None
    except SessionOpRefused as exc:
        raise OperationRefused(str(exc)) from None


class SocketSessionOps:
    """The seam's `Operating` and `Compacting` over the gateway's `sessions.*` (the module's text)."""

    async def create_session(
        self: _Socket, request: NewSession, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        as_operator_only(self.url, requester)
        key = _new_key(self, request)
        if await _described(self, key) is not None:
            raise OperationRefused(f"Session already exists: {self.display(key)}")
        params: dict[str, Any] = {"key": key}
        fields = {
            "agentId": request.agent_id,
            "label": request.label,
            "model": request.model,
            "thinkingLevel": request.thinking,
            "message": request.message,
        }
        params.update({name: value for name, value in fields.items() if value is not None})
        answer = await _request(self, "sessions.create", params)
        done = _outcome(self, "create", key, answer)
        if request.message is None:
            return done
        return done.model_copy(update={"send": _first_send(self, key, answer)})

    async def reset_session(self: _Socket, key: str, *, requester: Requester | None = None) -> SessionOpOutcome:
        as_operator_only(self.url, requester)
        session = await existing(self, key)
        params = {"key": session.key, "reason": "reset"}
        if session.sessionId:
            params["expectedSessionId"] = session.sessionId
        answer = await _request(self, "sessions.reset", params)
        return _outcome(self, "reset", session.key, answer, previous=session.sessionId)

    async def rename_session(
        self: _Socket, key: str, label: str | None, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        as_operator_only(self.url, requester)
        session = await existing(self, key)
        answer = await _request(self, "sessions.patch", {"key": session.key, "label": label})
        return _outcome(self, "rename", session.key, answer)

    async def set_session_model(
        self: _Socket, key: str, model: str | None, thinking: str | None, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        as_operator_only(self.url, requester)
        if model is None and thinking is None:
            raise ToolInputError("give a model, a thinking level, or both")
        session = await existing(self, key)
        params: dict[str, Any] = {"key": session.key}
        if model is not None:
            params["model"] = None if model.strip().lower() == "default" else model.strip()
        if thinking is not None:
            params["thinkingLevel"] = None if thinking.strip().lower() == "off" else thinking.strip().lower()
        answer = await _request(self, "sessions.patch", params)
        return _outcome(self, "model", session.key, answer)

    async def archive_session(
        self: _Socket, key: str, archived: bool, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        as_operator_only(self.url, requester)
        session = await existing(self, key)
        answer = await _archived(self, session, archived)
        return _outcome(self, "archive" if archived else "unarchive", session.key, answer)

    async def delete_session(self: _Socket, key: str, *, requester: Requester | None = None) -> SessionOpOutcome:
        as_operator_only(self.url, requester)
        session = await existing(self, key)
        if session.isMain:
            raise OperationRefused(f"Cannot delete the main session ({self.redact(session.key)}).")
        if not session.archived:
            await _archived(self, session, True)
        params: dict[str, Any] = {"key": session.key, "archivedOnly": True}
        if session.sessionId:
            params["expectedSessionId"] = session.sessionId
        await _request(self, "sessions.delete", params)
        return SessionOpOutcome(op="delete", session_key=self.display(session.key), session_id=session.sessionId or "")

    async def compact_session(self: _Socket, key: str, *, requester: Requester | None = None) -> SessionOpOutcome:
        as_operator_only(self.url, requester)
        session = await existing(self, key)
        answer = _Compacted.model_validate(await _request(self, "sessions.compact", {"key": session.key}))
        return SessionOpOutcome(
            op="compact",
            session_key=self.display(session.key),
            session_id=session.sessionId or "",
            compacted=answer.compacted,
            reason=None if answer.compacted else answer.reason,
        )


async def _archived(socket: _Socket, session: _Session, archived: bool) -> Any:
    params: dict[str, Any] = {"key": session.key, "archived": archived}
    if session.sessionId:
        params["expectedSessionId"] = session.sessionId
    return await _request(socket, "sessions.patch", params)
