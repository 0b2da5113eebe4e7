"""The requester's point of view: its context and the visibility guard, as OpenClaw's
`sessions-access` helpers decide them (docs/decisions.md D1).

Keys are compared in their canonical spelling (docs/decisions.md D9), so `main`, `agent:main:main`, or
`cron:job1` and `agent:main:cron:job1` are one session for the guard as everywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sessions_tui.engine.config_policies import ConfigPolicies
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.keys import agent_id_of, internal_key, is_subagent_session_key
from sessions_tui.engine.policy import AgentToAgentPolicy
from sessions_tui.tools.base import ToolCall

Action = Literal["history", "send", "list", "status"]

_PREFIX = {
    "history": "Session history",
    "send": "Session send",
    "list": "Session list",
    "status": "Session status",
}
_A2A_DISABLED = {
    "history": "Agent-to-agent history is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent access.",
    "send": "Agent-to-agent messaging is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent sends.",
    "list": "Agent-to-agent listing is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent visibility.",
    "status": "Agent-to-agent status is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent access.",
}
_A2A_DENIED = {
    "history": "Agent-to-agent history denied by tools.agentToAgent.allow.",
    "send": "Agent-to-agent messaging denied by tools.agentToAgent.allow.",
    "list": "Agent-to-agent listing denied by tools.agentToAgent.allow.",
    "status": "Agent-to-agent status denied by tools.agentToAgent.allow.",
}


def cross_visibility_message(action: Action) -> str:
    return f"{_PREFIX[action]} visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access."


def self_visibility_message(action: Action) -> str:
    return f"{_PREFIX[action]} visibility is restricted to the current session (tools.sessions.visibility=self)."


def tree_visibility_message(action: Action) -> str:
    return f"{_PREFIX[action]} visibility is restricted to the current session tree (tools.sessions.visibility=tree)."


@dataclass(frozen=True)
class RequesterContext:
    """OpenClaw's `resolveSandboxedSessionToolContext`, with canonical keys."""

    requester_internal_key: str | None
    effective_requester_key: str
    requester_agent_id: str
    restrict_to_spawned: bool
    sandboxed: bool
    visibility: str

    @classmethod
    def of(cls, call: ToolCall) -> RequesterContext:
        return cls.for_requester(call.engine, call.agent_session_key, call.sandboxed)

    @classmethod
    def for_requester(cls, policies: ConfigPolicies, key: str | None, sandboxed: bool) -> RequesterContext:
        """The context of a requester key (None: the main session), from the config alone."""
        raw = (key or "").strip()
        internal = policies.canonical(internal_key(raw, policies.alias)) if raw else None
        effective = internal or policies.main_session_key()
        restrict = (
            sandboxed
            and policies.sandbox_visibility() == "spawned"
            and internal is not None
            and not is_subagent_session_key(internal)
        )
        return cls(
            requester_internal_key=internal,
            effective_requester_key=effective,
            requester_agent_id=agent_id_of(effective),
            restrict_to_spawned=restrict,
            sandboxed=sandboxed,
            visibility=policies.visibility(sandboxed),
        )


@dataclass(frozen=True)
class Denial:
    error: str
    status: str = "forbidden"


class VisibilityGuard:
    """OpenClaw's `createSessionVisibilityGuard`: may the requester touch the target session?"""

    def __init__(
        self,
        engine: Engine,
        action: Action,
        requester_key: str,
        visibility: str,
        a2a: AgentToAgentPolicy,
    ) -> None:
        self.action = action
        self.requester_key = requester_key
        self.requester_agent_id = agent_id_of(requester_key)
        self.visibility = visibility
        self.a2a = a2a
        self.spawned: set[str] = engine.store.spawned_keys(requester_key) if visibility == "tree" else set()

    def check(self, target_key: str) -> Denial | None:
        target_agent = agent_id_of(target_key)
        if target_agent != self.requester_agent_id:
            if self.visibility != "all":
                return Denial(cross_visibility_message(self.action))
            if not self.a2a.enabled:
                return Denial(_A2A_DISABLED[self.action])
            if not self.a2a.is_allowed(self.requester_agent_id, target_agent):
                return Denial(_A2A_DENIED[self.action])
            return None
        if target_key == self.requester_key:
            return None
        if self.visibility == "self":
            return Denial(self_visibility_message(self.action))
        if self.visibility == "tree" and target_key not in self.spawned:
            return Denial(tree_visibility_message(self.action))
        return None


def guard_for(call: ToolCall, ctx: RequesterContext, action: Action) -> VisibilityGuard:
    return VisibilityGuard(call.engine, action, ctx.effective_requester_key, ctx.visibility, call.engine.a2a_policy())
