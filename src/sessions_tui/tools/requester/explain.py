"""Why a refusal: may a requester list, read, send to a session and spawn under an agent, and which
rule decides each.

Every verdict comes from the functions the tools refuse by (the requester's context, the
sandbox clamp of `resolution.py`, `VisibilityGuard.decide`, the engine's OpenClaw owner and send
policy, `spawn_gate`), called in the tools' order, so an explanation cannot disagree with what
the tool does. It is the operator's question: the operator's calls are in no run, so the chain guard
(docs/decisions.md D19) never applies to them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from sessions_tui.engine.lazy_model import LazyModel
from sessions_tui.engine.sessions.keys import agent_id_of, is_valid_agent_id, looks_like_session_key, normalize_agent_id
from sessions_tui.tools.acting.sessions_spawn import spawn_gate
from sessions_tui.tools.calling.base import ToolCall, ToolInputError
from sessions_tui.tools.requester.access import Action, RequesterContext, Ruling, VisibilityGuard
from sessions_tui.tools.requester.resolution import Failed, check_sandbox_visible, resolve_session_reference

ExplainedAction = Literal["list", "history", "send", "spawn"]
CHAIN_NOTE = "the chain guard does not apply: the operator's calls are in no run"


class Verdict(LazyModel):
    """One action: allowed or not, the deciding rule's name, the rule in words, the tool's error."""

    model_config = ConfigDict(frozen=True)

    action: ExplainedAction
    allowed: bool
    rule: str
    why: str
    error: str | None = None


class Explanation(LazyModel):
    """What a requester may do with a target session, and why (`sessions-tui explain --json`)."""

    model_config = ConfigDict(frozen=True)

    requester: str  # canonical
    sandboxed: bool
    target: str  # canonical
    visibility: str  # the requester's effective level: self | tree | agent | all
    restrict_to_spawned: bool  # the sandbox clamp: it sees only the sessions it spawned
    spawn_agent: str
    spawn_agent_named: bool  # whether the spawn would name its agentId (requireAgentId)
    verdicts: list[Verdict]
    notes: list[str] = []  # what holds for every answer

    def verdict(self, action: ExplainedAction) -> Verdict:
        return next(v for v in self.verdicts if v.action == action)


def _of(action: ExplainedAction, ruling: Ruling) -> Verdict:
    return Verdict(action=action, allowed=ruling.allowed, rule=ruling.rule, why=ruling.why, error=ruling.error or None)


def _sandboxed_out(failed: Failed) -> Ruling:
    why = "sandboxed requester: it sees only the sessions it spawned (sandbox.sessionToolsVisibility=spawned)"
    return Ruling(False, "sandbox", why, failed.error)


def _guard(call: ToolCall, ctx: RequesterContext, action: Action) -> VisibilityGuard:
    engine = call.engine
    return VisibilityGuard(engine, action, ctx.effective_requester_key, ctx.visibility, engine.a2a_policy())


def _list(call: ToolCall, ctx: RequesterContext, target: str) -> Ruling:
    """As `sessions_list` filters: the sandbox clamp (spawned sessions only), then the guard."""
    if ctx.restrict_to_spawned:
        session = call.engine.store.sessions.get(target)
        parents = (session.entry.get("spawnedBy"), session.entry.get("parentSessionKey")) if session else ()
        if ctx.effective_requester_key not in parents:
            return _sandboxed_out(Failed("forbidden", "not listed to a sandboxed requester"))
    return _guard(call, ctx, "list").decide(target)


def _read(call: ToolCall, ctx: RequesterContext, target: str, action: Action) -> Ruling:
    """As `sessions_history` and `sessions_send` gate a session key: resolve, sandbox, guard."""
    engine = call.engine
    resolved = resolve_session_reference(engine, target, ctx)
    if isinstance(resolved, Failed):
        return _sandboxed_out(resolved) if resolved.status == "forbidden" else Ruling(False, "key", resolved.error)
    failed = check_sandbox_visible(engine, resolved, ctx)
    if failed is not None:
        return _sandboxed_out(failed)
    return _guard(call, ctx, action).decide(resolved.key)


def _send(call: ToolCall, ctx: RequesterContext, target: str) -> Ruling:
    """The send's gates after the history's: the session's owner (D17), then the send policy (D6)."""
    seen = _read(call, ctx, target, "send")
    if not seen.allowed:
        return seen
    engine = call.engine
    owner = engine.owner_of(target)
    if owner is not None:
        from sessions_tui.engine.openclaw.gateway_send import configured
        from sessions_tui.engine.sessions.refusals import OwnedByOpenClaw

        if configured(engine.config.gateway.remote) is not None:
            why = f"the session is OpenClaw's ({owner}): gateway.remote runs the send, and its gateway decides"
            return Ruling(True, "openclaw", f"{why}; {seen.why}")
        if engine.openclaw_sender is not None:
            from sessions_tui.engine.openclaw.gateway_address import GatewayAddress, read_gateway_address

            address = read_gateway_address(owner)
            if isinstance(address, GatewayAddress):
                why = f"the session is OpenClaw's ({owner}): its own gateway ({address.url}) runs the send, and decides"
                return Ruling(True, "openclaw", f"{why}; {seen.why}")
        refused = OwnedByOpenClaw(target, owner)
        why = (
            f"the session lives in OpenClaw ({owner}): sessions-tui only mirrors it and sends into it through "
            "an OpenClaw gateway, and none is set (gateway.remote in the config) or named in its openclaw.json: "
            "point gateway.remote at that OpenClaw's gateway, or send from OpenClaw itself"
        )
        return Ruling(False, "openclaw", why, str(refused))
    verdict = engine.send_verdict(target)
    rule = "sendPolicy.override" if verdict.why.startswith("the session's override") else "sendPolicy"
    if not verdict.allowed:
        from sessions_tui.engine.sessions.refusals import SendBlocked

        return Ruling(False, rule, verdict.why, str(SendBlocked(verdict.reason)))
    return Ruling(True, rule, f"{verdict.why}; {seen.why}")


def explain_access(call: ToolCall, target: str, agent: str | None = None) -> Explanation:
    """The verdicts of the requester of `call` on the session `target` (any key spelling) and on a
    spawn under `agent` (default: the target's agent). `ToolInputError` when the target names no
    session or the agent id is not one. Keys, the agent id and texts come redacted (a key may hold a
    secret), in the explanation and in the error alike: it is only ever shown."""
    redact = call.engine.redactor.redact
    try:
        found = _explain(call, target, agent)
    except ToolInputError as exc:
        raise ToolInputError(redact(str(exc))) from None
    verdicts = [
        v.model_copy(update={"why": redact(v.why), "error": v.error and redact(v.error)}) for v in found.verdicts
    ]
    return found.model_copy(
        update={
            "requester": redact(found.requester),
            "target": redact(found.target),
            "spawn_agent": redact(found.spawn_agent),  # an agent id may be a pasted token too
            "verdicts": verdicts,
            "notes": [redact(note) for note in found.notes],
        }
    )


def _explain(call: ToolCall, target: str, agent: str | None) -> Explanation:
    engine = call.engine
    text = target.strip()
    if not text or not looks_like_session_key(text):
        raise ToolInputError(f"not a session key: {target!r}")
    key = engine.canonical(text)
    if engine.store.sessions.get(key) is None:
        raise ToolInputError(f"no session {key}")
    if agent is not None and not is_valid_agent_id(agent):
        raise ToolInputError(f"not an agent id: {agent!r} (ids match [a-z0-9][a-z0-9_-]{{0,63}})")
    ctx = RequesterContext.of(call)
    spawn_agent = normalize_agent_id(agent) if agent is not None else agent_id_of(key)
    # Without --agent a spawn under the requester's own agent names none (so requireAgentId counts).
    named = agent is not None or spawn_agent != ctx.requester_agent_id
    gate = spawn_gate(call, ctx, spawn_agent if named else None)
    return Explanation(
        requester=ctx.effective_requester_key,
        sandboxed=ctx.sandboxed,
        target=key,
        visibility=ctx.visibility,
        restrict_to_spawned=ctx.restrict_to_spawned,
        spawn_agent=gate.target,
        spawn_agent_named=named,
        verdicts=[
            _of("list", _list(call, ctx, key)),
            _of("history", _read(call, ctx, key, "history")),
            _of("send", _send(call, ctx, key)),
            _of("spawn", gate.ruling),
        ],
        notes=[CHAIN_NOTE],
    )
