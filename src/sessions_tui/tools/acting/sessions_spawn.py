"""`sessions_spawn` (OpenClaw's tool; docs/decisions.md D4, D5, D7, D15): a sub-agent in a fresh child session.

Always non-blocking: validation in OpenClaw's order, then the child `agent:<agentId>:subagent:<uuid>`
is created, its run started and registered, and `{status: "accepted", runId, childSessionKey}`
comes back at once. The child announces back to the requester when it is done.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from sessions_tui.engine.events import SessionChanged
from sessions_tui.engine.llm.base import ModelError
from sessions_tui.engine.runs.runs import RunRequest
from sessions_tui.engine.sessions.entry import SessionEntry, is_int
from sessions_tui.engine.sessions.ids import new_uuid
from sessions_tui.engine.sessions.keys import (
    is_cron_session_key,
    is_valid_agent_id,
    normalize_agent_id,
    subagent_depth,
)
from sessions_tui.engine.subagents.records import SubagentRun
from sessions_tui.tools.acting.spawn_args import THINKING_LEVELS, SpawnArgs
from sessions_tui.tools.calling.base import ToolCall, ToolSpec
from sessions_tui.tools.reading.agents_list import allowed_agents
from sessions_tui.tools.requester.access import RequesterContext, Ruling

ACCEPTED_NOTE = (
    "Auto-announce is push-based. After spawning children, do NOT call sessions_list, sessions_history, exec "
    "sleep, or any polling tool. Wait for completion events to arrive as user messages, track expected child "
    "session keys, and only send your final answer after ALL expected completions arrive. If a child completion "
    "event arrives AFTER your final answer, reply ONLY with NO_REPLY."
)

DESCRIPTION = (
    'Spawn an isolated session with `runtime="subagent"`. `mode="run"` is one-shot. Use this when the work '
    "should happen in a fresh child session instead of the current one; the child announces its result back "
    "when it is done."
)


def _error(status: str, error: str, **extra: Any) -> dict[str, Any]:
    return {"status": status, "error": error, **{k: v for k, v in extra.items() if v is not None}}


def caller_depth(call: ToolCall, key: str, _seen: frozenset[str] = frozenset()) -> int:
    """OpenClaw's caller depth: the stored spawnDepth, else one more than the spawner's, else the key's."""
    session = call.engine.store.sessions.get(key)
    if session is not None and key not in _seen:
        depth = session.entry.get("spawnDepth")
        if is_int(depth):
            return depth
        parent = session.entry.get("spawnedBy")
        if isinstance(parent, str) and parent:
            return caller_depth(call, parent, _seen | {key}) + 1
    return subagent_depth(key)


def subagent_system_prompt(
    *,
    task: str,
    label: str | None,
    requester: str,
    requester_channel: str | None,
    child: str,
    depth: int,
    max_depth: int,
) -> str:
    spawner = "the main agent" if depth <= 1 else "a parent orchestrator"
    lines = [
        "# Subagent Context",
        "",
        f"You are a **subagent** spawned by {spawner} for a specific task.",
        "",
        "## Your Role",
        f"- You were created to handle: {task}",
        "- Complete this task. That is your entire purpose.",
        "",
        "## Rules",
        "1. Stay focused: do your assigned task, nothing else.",
        "2. Complete the task: your final message is reported to your requester automatically.",
        "3. Do not initiate: no proactive actions, no side quests.",
        "",
        "## Output Format",
        "When complete, your final response should say what you accomplished or found, with the details the "
        "requester needs. Keep it concise but informative.",
        "",
        "## What You DON'T Do",
        "- No user conversations and no channel messages: that is the requester's job.",
        "- No pretending to be the main agent.",
    ]
    if depth < max_depth:
        lines += ["", "## Sub-Agent Spawning", "You may spawn sub-agents of your own with sessions_spawn."]
    lines += ["", "## Session Context"]
    if label:
        lines.append(f"- Label: {label}")
    lines.append(f"- Requester session: {requester}.")
    if requester_channel:
        lines.append(f"- Requester channel: {requester_channel}.")
    lines.append(f"- Your session: {child}.")
    return "\n".join(lines)


def _model_plan(call: ToolCall, target: str, explicit: str | None) -> str:
    config = call.engine.config
    agent = config.agent(target)
    defaults = config.agents.defaults
    candidates = [
        explicit,
        agent.subagents.model.primary if agent and agent.subagents and agent.subagents.model else None,
        agent.model.primary if agent and agent.model else None,
        defaults.subagents.model.primary if defaults.subagents.model else None,
        defaults.model.primary if defaults.model else None,
    ]
    return next((c for c in candidates if c), "demo")


def _thinking_plan(call: ToolCall, target: str, explicit: str | None) -> str | None:
    config = call.engine.config
    agent = config.agent(target)
    return (
        explicit
        or (agent.subagents.thinking if agent and agent.subagents else None)
        or config.agents.defaults.subagents.thinking
    )


@dataclass(frozen=True)
class SpawnGate:
    """Whether a requester may spawn under an agent, the rule that decided, and the child it would make."""

    ruling: Ruling
    target: str
    child_key: str
    depth: int


def spawn_gate(call: ToolCall, ctx: RequesterContext, agent_id: str | None, sandbox: str = "inherit") -> SpawnGate:
    """The access checks of `sessions_spawn`: ours first (a requester that is OpenClaw's session spawns
    in OpenClaw, docs/decisions.md D17), then OpenClaw's order (depth, children, requireAgentId,
    allowAgents, sandbox): the tool refuses by them and `explain` shows them."""
    engine = call.engine
    requester = ctx.effective_requester_key
    requester_agent = ctx.requester_agent_id
    subagents = engine.config.agents.defaults.subagents
    depth = caller_depth(call, requester)
    target = normalize_agent_id(agent_id) if agent_id else requester_agent
    child_key = f"agent:{target}:subagent:{new_uuid()}"

    def gate(allowed: bool, rule: str, why: str, error: str = "") -> SpawnGate:
        return SpawnGate(Ruling(allowed, rule, why, error), target, child_key, depth)

    owner = engine.owner_of(requester)
    if owner is not None:  # its child would run here and announce into a session we never run (D17)
        error = (
            f"sessions_spawn: {requester} is OpenClaw's session (mirrored read-only from {owner}): "
            "spawn from it in OpenClaw, or act as a session of this engine"
        )
        why = f"the requester is OpenClaw's session ({owner}): a child here could never announce back to it"
        return gate(False, "openclaw", why, error)
    max_depth = subagents.max_spawn_depth
    if depth >= max_depth:
        error = f"sessions_spawn is not allowed at this depth (current depth: {depth}, max: {max_depth})"
        return gate(False, "maxSpawnDepth", f"depth {depth} reaches maxSpawnDepth {max_depth}", error)
    active = engine.subagents.active_children(requester)
    cap = subagents.max_children_per_agent
    if active >= cap:
        error = f"sessions_spawn has reached max active children for this session ({active}/{cap})"
        return gate(False, "maxChildrenPerAgent", f"{active} active children reach maxChildrenPerAgent {cap}", error)
    if engine.config.require_agent_id(requester_agent) and agent_id is None:
        error = (
            "sessions_spawn requires explicit agentId when requireAgentId is configured. "
            "Use agents_list to see allowed agent ids."
        )
        return gate(False, "requireAgentId", f"agent {requester_agent} requires an explicit agentId", error)
    why = f"agent {target} is the requester's own"
    if target != requester_agent:
        allow_any, allowed = allowed_agents(call, requester_agent)
        listed = ", ".join(a for a in allowed if a != requester_agent) or "none"
        if not allow_any and target not in allowed:
            error = f"agentId is not allowed for sessions_spawn (allowed: {listed})"
            return gate(
                False, "allowAgents", f"agent {target} is not in {requester_agent}'s allowAgents [{listed}]", error
            )
        why = f"agent {target} is in {requester_agent}'s allowAgents [{'*' if allow_any else listed}]"
    if not engine.is_sandboxed(child_key):
        if ctx.sandboxed:
            error = (
                "Sandboxed sessions cannot spawn unsandboxed subagents. Set a sandboxed "
                "target agent or use the same agent runtime."
            )
            return gate(
                False, "sandbox", f"a sandboxed requester; agent {target}'s sub-agents are not sandboxed", error
            )
        if sandbox == "require":
            error = (
                'sessions_spawn sandbox="require" needs a sandboxed target runtime. Pick a '
                'sandboxed agentId or use sandbox="inherit".'
            )
            return gate(False, "sandbox", f'sandbox="require"; agent {target}\'s sub-agents are not sandboxed', error)
    why += f"; depth {depth} < maxSpawnDepth {max_depth}; {active} of maxChildrenPerAgent {cap} active"
    return gate(True, "allowAgents", why)


async def sessions_spawn(call: ToolCall, params: dict[str, Any]) -> dict[str, Any]:
    args = SpawnArgs.model_validate(params)
    engine = call.engine
    if args.runtime == "acp":
        return _error("error", "runtime=acp is not available in sessions-tui; use runtime=subagent")
    if args.stream_to:
        return _error("error", "streamTo is only supported for runtime=acp; got runtime=subagent")
    if args.resume_session_id:
        return _error("error", "resumeSessionId is only supported for runtime=acp; got runtime=subagent")
    if args.agent_id is not None and not is_valid_agent_id(args.agent_id):
        return _error(
            "error",
            f'Invalid agentId "{args.agent_id}". Agent IDs must match [a-z0-9][a-z0-9_-]{{0,63}}. '
            "Use agents_list to discover valid targets.",
        )
    if args.mode == "session" and not args.thread:
        return _error("error", 'mode="session" requires thread=true so the subagent can stay bound to a thread.')
    ctx = RequesterContext.of(call)
    gate = spawn_gate(call, ctx, args.agent_id, args.sandbox)
    if not gate.ruling.allowed:
        return _error("forbidden", gate.ruling.error)
    target, child_key, depth = gate.target, gate.child_key, gate.depth
    thinking = _thinking_plan(call, target, args.thinking)
    if thinking is not None and thinking.lower() not in THINKING_LEVELS:
        return _error("error", f'Invalid thinking level "{thinking}". Use one of: {", ".join(THINKING_LEVELS)}.')
    model = _model_plan(call, target, args.model)
    try:
        engine.models.check(model)
    except ModelError as exc:
        return _error("error", exc.message, childSessionKey=child_key)
    if args.thread:
        return _error(
            "error",
            "thread=true is unavailable because no channel plugin registered subagent_spawning hooks.",
            childSessionKey=child_key,
        )
    if args.has_attachments:
        return _error(
            "error",
            "attachments are not supported by sessions-tui; put the content in the task",
            childSessionKey=child_key,
        )
    return _start(call, ctx, args, child_key=child_key, depth=depth, model=model, thinking=thinking)


def _start(
    call: ToolCall,
    ctx: RequesterContext,
    args: SpawnArgs,
    *,
    child_key: str,
    depth: int,
    model: str,
    thinking: str | None,
) -> dict[str, Any]:
    engine = call.engine
    requester = ctx.effective_requester_key
    max_depth = engine.config.agents.defaults.subagents.max_spawn_depth
    child_depth = depth + 1
    role = "orchestrator" if child_depth < max_depth else "leaf"
    run_timeout = args.run_timeout_seconds
    if run_timeout is None:
        run_timeout = engine.config.agents.defaults.subagents.run_timeout_seconds
    now = engine.now()
    entry: dict[str, Any] = {  # None: left out (below)
        "spawnedBy": requester,
        "spawnDepth": child_depth,
        "subagentRole": role,
        "subagentControlScope": "children" if role == "orchestrator" else "none",
        "modelOverride": model,
        "model": model.partition("/")[2] if "/" in model else model,
        "status": "running",
        "startedAt": now,
        "updatedAt": now,
    }
    if args.label:
        entry["label"] = args.label
    if thinking:
        entry["thinkingLevel"] = None if thinking.lower() == "off" else thinking.lower()
    engine.store.sessions.create(child_key, cast(SessionEntry, {k: v for k, v in entry.items() if v is not None}))
    engine.events.publish(SessionChanged(ts=now, session_key=child_key))
    requester_channel = call.agent_channel or engine.session_channel(requester)
    message = "\n\n".join(
        [
            f"[Subagent Context] You are running as a subagent (depth {child_depth}/{max_depth}). "
            "Results auto-announce to your requester; do not busy-poll for status.",
            f"[Subagent Task]: {args.task}",
        ]
    )
    run_id = engine.runs.start(
        RunRequest(
            session_key=child_key,
            message=message,
            system_prompt=subagent_system_prompt(
                task=args.task,
                label=args.label,
                requester=requester,
                requester_channel=requester_channel,
                child=child_key,
                depth=child_depth,
                max_depth=max_depth,
            ),
            provenance={
                "kind": "inter_session",
                "sourceSessionKey": requester,
                "sourceChannel": requester_channel,
                "sourceTool": "sessions_spawn",
            },
            lane="subagent",
            timeout_seconds=run_timeout,
            model=model,
            thinking=thinking,
            label=args.label,
            chain=[*call.chain, child_key],  # a sub-agent's sends continue the chain that spawned it
        )
    )
    engine.subagents.register(
        SubagentRun(
            run_id=run_id,
            child_key=child_key,
            requester_key=requester,
            task=args.task,
            label=args.label,
            cleanup=args.cleanup,
            created_at=now,
            data={"model": model, "runTimeoutSeconds": run_timeout, "requesterOrigin": _origin(call, requester)},
        )
    )
    engine.subagents.watch(run_id)
    result: dict[str, Any] = {"status": "accepted", "childSessionKey": child_key, "runId": run_id, "mode": "run"}
    if not is_cron_session_key(requester):
        result["note"] = ACCEPTED_NOTE
    result["modelApplied"] = True
    return result


def _origin(call: ToolCall, requester: str) -> dict[str, Any]:
    session = call.engine.store.sessions.get(requester)
    entry = session.entry if session else {}
    raw_delivery = entry.get("deliveryContext")
    delivery: dict[str, Any] = raw_delivery if isinstance(raw_delivery, dict) else {}
    origin = {
        "channel": call.agent_channel or delivery.get("channel") or entry.get("lastChannel"),
        "to": delivery.get("to") or entry.get("lastTo"),
        "accountId": delivery.get("accountId") or entry.get("lastAccountId"),
    }
    return {k: v for k, v in origin.items() if isinstance(v, str) and v}


SPEC = ToolSpec(
    name="sessions_spawn",
    label="Sessions",
    description=DESCRIPTION,
    arguments=SpawnArgs,
    run=sessions_spawn,
)
