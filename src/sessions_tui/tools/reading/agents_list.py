"""`agents_list`, as OpenClaw answers it (the requester's own agent first, then its `subagents.allowAgents`):
the agent ids this requester may spawn sub-agents under."""

from __future__ import annotations

from typing import Any

from sessions_tui.engine.sessions.keys import normalize_agent_id
from sessions_tui.tools.calling.base import ToolArgs, ToolCall, ToolSpec
from sessions_tui.tools.requester.access import RequesterContext

DESCRIPTION = (
    'List OpenClaw agent ids you can target with `sessions_spawn` when `runtime="subagent"` '
    "(based on subagent allowlists)."
)


class AgentsListArgs(ToolArgs):
    """`agents_list` takes no arguments (whatever is passed is ignored)."""

    @classmethod
    def read(cls, params: dict[str, Any]) -> dict[str, Any]:
        return {}


def allowed_agents(call: ToolCall, requester_agent_id: str) -> tuple[bool, list[str]]:
    """(allowAny, ids) for a requester agent: itself first, the rest sorted."""
    config = call.engine.config
    allow = [a.strip() for a in config.allow_agents(requester_agent_id) if isinstance(a, str)]
    allow_any = "*" in allow
    configured = config.agent_ids()
    others = configured if allow_any else [normalize_agent_id(a) for a in allow if a and a != "*"]
    rest = sorted({a for a in others if a != requester_agent_id}, key=lambda a: (a.casefold(), a))
    return allow_any, [requester_agent_id, *rest]


def agents_list(call: ToolCall, params: dict[str, Any]) -> dict[str, Any]:
    ctx = RequesterContext.of(call)
    requester = normalize_agent_id(ctx.requester_agent_id)
    allow_any, ids = allowed_agents(call, requester)
    configured = set(call.engine.config.agent_ids())
    agents = []
    for agent_id in ids:
        agent = call.engine.config.agent(agent_id)
        name = agent.name.strip() if agent and isinstance(agent.name, str) else ""
        entry: dict[str, Any] = {"id": agent_id}
        if name:
            entry["name"] = name
        entry["configured"] = agent_id in configured
        agents.append(entry)
    return {"requester": requester, "allowAny": allow_any, "agents": agents}


SPEC = ToolSpec(
    name="agents_list",
    label="Agents",
    description=DESCRIPTION,
    arguments=AgentsListArgs,
    read=agents_list,
)
