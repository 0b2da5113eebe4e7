"""May a requester operate on a session (create, reset, rename, re-model, archive, delete, stop)?

The operator may touch every session. A face acting as a session (the dashboard's act-as, `--as`)
operates with that session's eyes: the session must be one it could see and send to (OpenClaw's
visibility guard, `tools.sessions.visibility`, agent-to-agent), and a sandboxed requester reaches
only its own tree (`agents.defaults.sandbox.sessionToolsVisibility` `spawned`), as its tools do.
"""

from __future__ import annotations

from sessions_tui.engine.engine import Engine
from sessions_tui.engine.sessions.keys import js_trim
from sessions_tui.tools.requester.access import RequesterContext, VisibilityGuard
from sessions_tui.tools.requester.resolution import Failed, check_sandbox_visible, resolve_session_reference


def operation_refusal(engine: Engine, requester_key: str | None, sandboxed: bool, raw: str) -> Failed | None:
    """Why the requester may not operate on the session `raw` names (None: it may).

    A target that names no session is for the operation to refuse (it knows whether it creates);
    here only what the requester may reach is decided, so a forbidden target never says whether
    it exists.
    """
    ctx = RequesterContext.for_requester(engine, requester_key, sandboxed)
    resolved = resolve_session_reference(engine, js_trim(raw), ctx)
    if isinstance(resolved, Failed):
        return resolved if resolved.status == "forbidden" else None
    failed = check_sandbox_visible(engine, resolved, ctx)
    if failed is not None:
        return failed
    guard = VisibilityGuard(engine, "operate", ctx.effective_requester_key, ctx.visibility, engine.a2a_policy())
    denial = guard.check(resolved.key)
    return Failed(denial.status, denial.error) if denial else None
