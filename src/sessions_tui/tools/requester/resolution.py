"""From what a caller typed to a stored session, as OpenClaw's `resolveSessionReference`
does it (docs/decisions.md D9 and D13).

A caller may name a session by key (any spelling), `main`, `current`, or sessionId. Free text
and UUIDs are looked up (key first, then sessionId); well-formed keys are taken as given and
only checked for existence after the visibility checks, so a forbidden target never reveals
whether it exists.
"""

from __future__ import annotations

from dataclasses import dataclass

from sessions_tui.engine.engine import Engine
from sessions_tui.engine.sessions.keys import internal_key, js_trim, should_resolve_session_id_input
from sessions_tui.engine.store.tables.sessions import StoredSession
from sessions_tui.tools.requester.access import RequesterContext, VisibilityGuard

SANDBOX_NOT_VISIBLE = "Session not visible from this sandboxed agent session: {raw}"
SESSION_NOT_FOUND = "Session not found: {raw} (use the full sessionKey from sessions_list)"
NO_SESSION_FOUND = "No session found: {key}"


@dataclass(frozen=True)
class Resolved:
    key: str  # canonical
    display_key: str
    via_session_id: bool
    raw: str


@dataclass(frozen=True)
class Failed:
    status: str
    error: str


def _visible_under(session: StoredSession | None, spawned_by: str | None) -> bool:
    if session is None:
        return False
    if spawned_by is None:
        return True
    return spawned_by in (session.entry.get("spawnedBy"), session.entry.get("parentSessionKey"))


def _lookup_key(engine: Engine, raw: str, spawned_by: str | None) -> str | None:
    session = engine.store.sessions.get(engine.canonical(raw))
    return session.key if session is not None and _visible_under(session, spawned_by) else None


def _lookup_session_id(engine: Engine, raw: str, restrict: bool, spawned_by: str | None) -> str | None:
    session = engine.store.sessions.get_by_session_id(raw) or engine.store.sessions.get(raw)
    if session is None or session.archived_at is not None:
        return None
    if restrict and session.key in ("global", "unknown"):
        return None
    return session.key if session is not None and _visible_under(session, spawned_by) else None


def resolve_session_reference(engine: Engine, raw_input: str, ctx: RequesterContext) -> Resolved | Failed:
    raw = js_trim(raw_input)
    requester = ctx.effective_requester_key
    spawned_by = requester if ctx.restrict_to_spawned else None

    def found(key: str, via_session_id: bool) -> Resolved:
        return Resolved(key, engine.display(key, ctx.requester_agent_id), via_session_id, raw_input)

    if raw == "current":
        hit = None if ctx.restrict_to_spawned else _lookup_key(engine, raw, None)
        if hit:
            return found(hit, False)
        hit = _lookup_session_id(engine, raw, ctx.restrict_to_spawned, spawned_by)
        if hit:
            return found(hit, True)
        raw = requester

    if should_resolve_session_id_input(raw):
        hit = _lookup_key(engine, raw, spawned_by)
        if hit:
            return found(hit, False)
        hit = _lookup_session_id(engine, raw, ctx.restrict_to_spawned, spawned_by)
        if hit:
            return found(hit, True)
        if ctx.restrict_to_spawned:
            return Failed("forbidden", SANDBOX_NOT_VISIBLE.format(raw=raw))
        return Failed("error", SESSION_NOT_FOUND.format(raw=raw))

    key = engine.canonical(internal_key(raw, engine.alias, requester), ctx.requester_agent_id)
    return found(key, False)


def check_sandbox_visible(engine: Engine, resolved: Resolved, ctx: RequesterContext) -> Failed | None:
    """OpenClaw's `resolveVisibleSessionReference`: a sandboxed requester sees only its children."""
    requester = ctx.effective_requester_key
    if not ctx.restrict_to_spawned or resolved.via_session_id or resolved.key == requester:
        return None
    session = engine.store.sessions.get(resolved.key)
    if _visible_under(session, requester) and session is not None:
        return None
    return Failed("forbidden", SANDBOX_NOT_VISIBLE.format(raw=js_trim(resolved.raw)))


def resolve_visible(engine: Engine, raw: str, ctx: RequesterContext, guard: VisibilityGuard) -> Resolved | Failed:
    """A session reference the requester may read: resolved, inside a sandbox's view, and allowed
    by `guard` (the visibility of the tool asking), or why not."""
    resolved = resolve_session_reference(engine, raw, ctx)
    if isinstance(resolved, Failed):
        return resolved
    failed = check_sandbox_visible(engine, resolved, ctx)
    if failed:
        return failed
    denial = guard.check(resolved.key)
    return Failed(denial.status, denial.error) if denial else resolved


def check_exists(engine: Engine, resolved: Resolved) -> Failed | None:
    """docs/decisions.md D13: a well-formed key that names no session."""
    if engine.store.sessions.get(resolved.key) is None:
        return Failed("error", NO_SESSION_FOUND.format(key=js_trim(resolved.raw)))
    return None
