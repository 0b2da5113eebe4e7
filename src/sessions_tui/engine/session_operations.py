"""The operator's operations on a session: create, reset, rename, set model/thinking, archive,
unarchive, delete, and the main session that comes into being on the owner's first send.

How OpenClaw does them, and how this engine does them in its store (engine/store/tables/sessions.py:
one row per key, its entry as JSON; a transcript's lines keyed by sessionId, mirrored to
`agents/<agent>/sessions/<sessionId>.jsonl`):

- **Create** (`sessions.create`): a new entry under a key the key model allows (main, group/channel,
  cron, hook, node, other; `agent:<id>:<rest>` or a bare key that belongs to agent `main`), with an
  optional label, model (`modelOverride`, as sessions_spawn writes it) and thinking level
  (`thinkingLevel`, `off` clears it). A key that exists, or `global`/`unknown`, is refused. The first
  message, when given, is the operator's send into the new session (the backend sends it).
- **The main session on the first send**: as OpenClaw's `chat.send` into an agent's main key, the
  owner's send (no agent chain) into `agent:<id>:<mainKey>` creates it when it does not exist yet.
- **Reset** (`sessions.reset`, `/new`, `/reset`): a new sessionId under the same key, its transcript
  opening on OpenClaw's reset boundary (`{"type": "reset"}`, shown as a Reset line); the entry keeps
  its label, model and overrides, and names the old one (`previousSessionId`, as OpenClaw's rows
  do). The old transcript stays: its lines in the store under the old sessionId (`transcript_of`;
  `session_generations` names its key), its mirror file under the old sessionId's name; an export
  of that sessionId (`sessions-tui export OLD_ID`) reads it.
- **Rename** (`sessions.patch {label}`): a label as OpenClaw validates it, unique among the live
  sessions (`label already in use: <label>`); no label clears it.
- **Model / thinking** (`sessions.patch {model, thinkingLevel}`): the override set, or cleared.
- **Archive / unarchive** (`sessions.patch {archived}`): `archived_at` set or cleared; an archived
  session keeps its transcript and leaves the default list (OpenClaw's "Active" filter) until it is
  unarchived or deleted. An agent's main session and `global`/`unknown` are never archived.
- **Delete** (`sessions.delete`): refused for an agent's main session (`Cannot delete the main
  session (<key>).`); its running turn is stopped first (by the backend); the entry and its lines go
  (the generations resets left too), each mirror file kept renamed `<file>.deleted.<timestamp>`
  (OpenClaw's `deleteTranscript`).

A session imported from an OpenClaw belongs to it (docs/decisions.md D17): every operation on one is
refused. Every operation is audited (the `audit` table, kind `session_<op>`) and published as
`SessionChanged`, so every dashboard on the state updates (another process's through the store).

Bad input raises `SessionOpInvalid` (a face says it as bad input, exit 2); what the state forbids
raises `SessionOpRefused` (a refusal, exit 1).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from sessions_tui.engine.events import MessageAppended, SessionChanged
from sessions_tui.engine.hosts import OwnedFloor
from sessions_tui.engine.sessions.entry import SessionEntry
from sessions_tui.engine.sessions.ids import new_uuid
from sessions_tui.engine.sessions.keys import (
    DEFAULT_AGENT_ID,
    RESERVED_KEYS,
    MainAlias,
    agent_id_of,
    is_valid_agent_id,
    looks_like_session_key,
    normalize_agent_id,
    parse_agent_session_key,
    parse_session_label,
)
from sessions_tui.engine.store.connection import StoreError
from sessions_tui.engine.store.tables.sessions import StoredSession

THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")
"""The thinking levels OpenClaw takes (sessions_spawn's too)."""

SessionOp = Literal["create", "reset", "rename", "model", "archive", "unarchive", "delete"]


class SessionOpInvalid(ValueError):
    """What was asked is not well formed, or names no session: bad input."""


class SessionOpRefused(Exception):
    """What was asked is well formed, but the state forbids it (the key exists, the label is taken,
    the session is an agent's main one, it belongs to an OpenClaw)."""


@dataclass(frozen=True)
class SessionOpDone:
    """What an operation did: the session's key and sessionId after it (`previous_session_id`: the
    one a reset replaced, or the deleted session's)."""

    op: SessionOp
    session_key: str
    session_id: str
    previous_session_id: str | None = None
    label: str | None = None
    model: str | None = None
    thinking: str | None = None
    archived: bool = False


class KeySpelling(Protocol):
    """The config's key spellings (`ConfigPolicies` has them: a gateway backend checks a new key so too)."""

    @property
    def alias(self) -> MainAlias: ...

    def canonical(self, key: str, agent_id: str = DEFAULT_AGENT_ID) -> str: ...


class OperationsHost(OwnedFloor, KeySpelling, Protocol):
    """What the operations need of the engine: its floor, who owns a session, and the key spellings."""


def _canonical(engine: KeySpelling, key: str, agent_id: str | None = None) -> str:
    return engine.canonical(key, agent_id) if agent_id else engine.canonical(key)


def new_session_key(engine: KeySpelling, raw: str, agent_id: str | None = None) -> str:
    """The key a new session is created under: `raw` as the key model spells it (`main` and bare
    keys belong to `agent_id`, else agent `main`); `SessionOpInvalid` for what is not a key,
    `SessionOpRefused` for `global`/`unknown`."""
    text = raw.strip()
    if text.lower() in RESERVED_KEYS:
        raise SessionOpRefused(f"{text.lower()} is reserved: a session cannot be created under it")
    if not text or not looks_like_session_key(text) or any(c.isspace() for c in text):
        raise SessionOpInvalid(f"not a session key: {raw!r}")
    if agent_id is not None and not is_valid_agent_id(agent_id):
        raise SessionOpInvalid(f"invalid agent id: {agent_id!r}")
    agent = normalize_agent_id(agent_id) if agent_id else None
    parsed = parse_agent_session_key(text.lower())
    if parsed and agent and normalize_agent_id(parsed.agent_id) != agent:
        raise SessionOpInvalid(f"the key names agent {parsed.agent_id}, not {agent}")
    if not parsed and agent and text.lower() not in ("main", engine.alias.main_key):
        key = f"agent:{agent}:{text.lower()}"
    else:
        key = _canonical(engine, text, agent)
    if key in RESERVED_KEYS:
        raise SessionOpRefused(f"{key} is reserved: a session cannot be created under it")
    return key


def thinking_of(value: str | None) -> str | None:
    """A thinking level as typed, checked (`SessionOpInvalid`); None for none given."""
    if value is None:
        return None
    level = value.strip().lower()
    if level not in THINKING_LEVELS:
        raise SessionOpInvalid(f'Invalid thinking level "{value}". Use one of: {", ".join(THINKING_LEVELS)}.')
    return level


def label_of(engine: OperationsHost, value: str, key: str | None) -> str:
    """A label as OpenClaw validates it, unique among the live sessions (but `key`'s own)."""
    try:
        label = parse_session_label(value)
    except ValueError as exc:
        raise SessionOpInvalid(str(exc)) from None
    if any(k != key for k in engine.store.sessions.keys_with_label(label)):
        raise SessionOpRefused(f"label already in use: {label}")
    return label


def _model_fields(model: str | None, thinking: str | None) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if model is not None:
        text = model.strip()
        if not text:
            raise SessionOpInvalid("model: empty")
        provider, _, name = text.rpartition("/")
        fields["modelOverride"] = text
        fields["model"] = name
        fields["modelProvider"] = provider or None  # as OpenClaw's entry names them
    if thinking is not None:
        fields["thinkingLevel"] = None if thinking == "off" else thinking
    return fields


def _record(
    engine: OperationsHost, op: SessionOp, key: str, data: dict[str, Any], requester: str | None = None
) -> None:
    """Audited and told: one `audit` row (`requester`: the session a face acted as; None, the
    operator), one `SessionChanged`."""
    now = engine.now()
    engine.store.audit.add_audit(
        ts=now,
        kind=f"session_{op}",
        session_key=key,
        requester=requester,
        via="operator" if requester is None else "acting as",
        reason=None,
        data={**data, "pid": os.getpid()},
    )
    engine.events.publish(SessionChanged(ts=now, session_key=key))


def _done(op: SessionOp, session: StoredSession, previous: str | None = None) -> SessionOpDone:
    entry = session.entry
    label, model, thinking = entry.get("label"), entry.get("modelOverride"), entry.get("thinkingLevel")
    return SessionOpDone(
        op=op,
        session_key=session.key,
        session_id=session.session_id,
        previous_session_id=previous,
        label=label if isinstance(label, str) else None,
        model=model if isinstance(model, str) else None,
        thinking=thinking if isinstance(thinking, str) else None,
        archived=session.archived_at is not None,
    )


def create_session(
    engine: OperationsHost,
    raw_key: str,
    *,
    agent_id: str | None = None,
    label: str | None = None,
    model: str | None = None,
    thinking: str | None = None,
    requester: str | None = None,
) -> SessionOpDone:
    """A new session under `raw_key` (see the module's text); refused when the key exists."""
    key = new_session_key(engine, raw_key, agent_id)
    level = thinking_of(thinking)
    entry = SessionEntry()
    fields = _model_fields(model, level)
    if "modelOverride" in fields:
        entry["modelOverride"], entry["model"] = fields["modelOverride"], fields["model"]
        if fields["modelProvider"] is not None:
            entry["modelProvider"] = fields["modelProvider"]
    if fields.get("thinkingLevel") is not None:
        entry["thinkingLevel"] = fields["thinkingLevel"]
    if label is not None:
        entry["label"] = label_of(engine, label, None)
    if engine.store.sessions.get(key) is not None:
        raise SessionOpRefused(f"Session already exists: {key}")
    try:
        session = engine.store.sessions.create(key, entry)
    except StoreError as exc:  # another process created it between the look and the write
        raise SessionOpRefused(str(exc)) from None
    _record(engine, "create", key, {"sessionId": session.session_id, "label": entry.get("label")}, requester)
    return _done("create", session)


def is_main_session_key(engine: OperationsHost, key: str) -> bool:
    """Whether `key` is an agent's main session (`agent:<id>:<mainKey>`)."""
    return key not in RESERVED_KEYS and key == engine.alias.main_session_key(agent_id_of(key))


def ensure_main_session(engine: OperationsHost, key: str) -> bool:
    """The owner's first send into an agent's main session creates it (as OpenClaw's `chat.send`);
    whether this call did. Any other key is left alone."""
    if not is_main_session_key(engine, key) or engine.store.sessions.get(key) is not None:
        return False
    try:
        session = engine.store.sessions.create(key)
    except StoreError:  # another process's first send made it
        return False
    _record(engine, "create", key, {"sessionId": session.session_id, "via": "first send"})
    return True


def _existing(engine: OperationsHost, raw: str) -> StoredSession:
    """The session `raw` names (a key in any spelling, `main`, a sessionId), one the engine owns."""
    text = raw.strip()
    session = engine.store.sessions.get(engine.canonical(text)) or engine.store.sessions.get_by_session_id(text)
    if session is None:
        raise SessionOpInvalid(f"No session found: {raw}")
    owner = engine.owner_of(session.key)
    if owner is not None:
        raise SessionOpRefused(f"{session.key} belongs to the OpenClaw at {owner}: change it there")
    return session


def reset_session(engine: OperationsHost, raw: str, *, requester: str | None = None) -> SessionOpDone:
    """A new sessionId under the same key; the old transcript stays, reachable by its sessionId."""
    session = _existing(engine, raw)
    new = new_uuid()
    stale = ("abortedLastRun", "inputTokens", "outputTokens", "totalTokens", "systemSent")
    old = engine.store.sessions.renew_session_id(
        session.key, new, {"previousSessionId": session.session_id, **dict.fromkeys(stale)}
    )
    # The new transcript opens on OpenClaw's reset boundary, naming the one it follows: the
    # transcript shows a Reset line, and where the old lines are.
    boundary = {"type": "reset", "reason": "reset", "previousSessionId": old}
    appended = engine.store.transcripts.append_lines(session.key, [boundary])[0]
    _record(engine, "reset", session.key, {"sessionId": new, "previousSessionId": old}, requester)
    engine.events.publish(
        MessageAppended(ts=engine.now(), session_key=session.key, role="system", seq=appended.msg_seq)
    )
    return _done("reset", _get(engine, session.key), previous=old)


def transcript_of(engine: OperationsHost, session_id: str) -> list[str]:
    """Every line stored under a sessionId, the current one or one a reset replaced."""
    return engine.store.sessions.lines_of(session_id)


def _get(engine: OperationsHost, key: str) -> StoredSession:
    session = engine.store.sessions.get(key)
    if session is None:  # deleted by another process meanwhile
        raise SessionOpInvalid(f"No session found: {key}")
    return session


def rename_session(
    engine: OperationsHost, raw: str, label: str | None, *, requester: str | None = None
) -> SessionOpDone:
    """The label set (unique among the live sessions), or cleared with None."""
    session = _existing(engine, raw)
    value = None if label is None else label_of(engine, label, session.key)
    engine.store.sessions.patch(session.key, {"label": value, "updatedAt": engine.now()})
    _record(engine, "rename", session.key, {"label": value}, requester)
    return _done("rename", _get(engine, session.key))


def set_session_model(
    engine: OperationsHost, raw: str, model: str | None, thinking: str | None = None, *, requester: str | None = None
) -> SessionOpDone:
    """The model and/or thinking level set; `model` `default` clears the override."""
    session = _existing(engine, raw)
    level = thinking_of(thinking)
    if model is None and level is None:
        raise SessionOpInvalid("give a model, a thinking level, or both")
    changes: dict[str, Any] = {}
    if model is not None and model.strip().lower() == "default":
        changes.update({"modelOverride": None, "model": None, "modelProvider": None})
    else:
        changes.update(_model_fields(model, None))
    changes.update(_model_fields(None, level))
    engine.store.sessions.patch(session.key, {**changes, "updatedAt": engine.now()})
    _record(engine, "model", session.key, {"model": model, "thinking": level}, requester)
    return _done("model", _get(engine, session.key))


def set_archived(engine: OperationsHost, raw: str, archived: bool, *, requester: str | None = None) -> SessionOpDone:
    """Archived (out of the default list, transcript kept) or back; never an agent's main session."""
    session = _existing(engine, raw)
    op: SessionOp = "archive" if archived else "unarchive"
    if archived and (session.key in RESERVED_KEYS or is_main_session_key(engine, session.key)):
        raise SessionOpRefused(f"Cannot archive the main session ({session.key}).")
    engine.store.sessions.set_archived(session.key, engine.now() if archived else None)
    _record(engine, op, session.key, {"sessionId": session.session_id}, requester)
    return _done(op, _get(engine, session.key))


def deletable(engine: OperationsHost, raw: str) -> StoredSession:
    """The session `raw` names if it may be deleted (checked before its run is stopped)."""
    session = _existing(engine, raw)
    if session.key in RESERVED_KEYS or is_main_session_key(engine, session.key):
        raise SessionOpRefused(f"Cannot delete the main session ({session.key}).")
    return session


def delete_session(engine: OperationsHost, raw: str, *, requester: str | None = None) -> SessionOpDone:
    """The entry and its lines removed (the earlier generations' too), each mirror file kept as
    `<file>.deleted.<timestamp>`."""
    session = deletable(engine, raw)
    now = engine.now()
    earlier = engine.store.sessions.generations_of(session.key)
    if engine.store.sessions.delete(session.key, engine.store.text_index.unindex_session) is None:
        raise SessionOpInvalid(f"No session found: {raw}")
    for mirror in [session.mirror_path, *(generation.mirror_path for generation in earlier)]:
        if os.path.exists(mirror):
            os.replace(mirror, f"{mirror}.deleted.{now}")
    _record(engine, "delete", session.key, {"sessionId": session.session_id}, requester)
    return SessionOpDone(op="delete", session_key=session.key, session_id=session.session_id)
