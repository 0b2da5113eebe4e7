"""The requester's point of view: its context and the visibility guard, as OpenClaw's
`sessions-access` helpers decide them (docs/decisions.md D1).

Keys are compared in their canonical spelling (docs/decisions.md D9), so `main`, `agent:main:main`, or
`cron:job1` and `agent:main:cron:job1` are one session for the guard as everywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NamedTuple

from sessions_tui.engine.config.policies import ConfigPolicies
from sessions_tui.engine.sessions.keys import agent_id_of, internal_key, is_subagent_session_key, js_trim
from sessions_tui.engine.sessions.policy import AgentToAgentPolicy
from sessions_tui.tools.calling.base import ToolCall

if TYPE_CHECKING:
    from sessions_tui.engine.engine import Engine

Action = Literal["history", "send", "list", "status", "search", "operate"]

_PREFIX = {
    "history": "Session history",
    "send": "Session send",
    "list": "Session list",
    "status": "Session status",
    "search": "Session search",
    "operate": "Session operation",
}
_A2A_DISABLED = {
    "history": "Agent-to-agent history is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent access.",
    "send": "Agent-to-agent messaging is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent sends.",
    "list": "Agent-to-agent listing is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent visibility.",
    "status": "Agent-to-agent status is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent access.",
    "search": "Agent-to-agent search is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent access.",
    "operate": "Agent-to-agent session operations are disabled. Set tools.agentToAgent.enabled=true to allow them.",
}
_A2A_DENIED = {
    "history": "Agent-to-agent history denied by tools.agentToAgent.allow.",
    "send": "Agent-to-agent messaging denied by tools.agentToAgent.allow.",
    "list": "Agent-to-agent listing denied by tools.agentToAgent.allow.",
    "status": "Agent-to-agent status denied by tools.agentToAgent.allow.",
    "search": "Agent-to-agent search denied by tools.agentToAgent.allow.",
    "operate": "Agent-to-agent session operations denied by tools.agentToAgent.allow.",
}


def cross_visibility_message(action: Action) -> str:
    if action == "search":  # sessions_search is 2026.9.6's tool, in 2026.9.6's words (docs/decisions.md D20)
        return (
            "Session search visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent "
            "access; use tools.agentToAgent to restrict permitted agent pairs."
        )
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
        raw = js_trim(key or "")
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


class Denial(NamedTuple):
    error: str
    status: str = "forbidden"


class Ruling(NamedTuple):
    """A verdict with the rule that made it: what a tool refuses by is what `explain` shows."""

    allowed: bool
    rule: str  # which rule decided: visibility, sandbox, agentToAgent, sendPolicy, allowAgents …
    why: str  # the rule in words, with the values it compared
    error: str = ""  # for a refusal, the tool's own error text


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
        self.spawned: set[str] = engine.store.sessions.spawned_keys(requester_key) if visibility == "tree" else set()

    def check(self, target_key: str) -> Denial | None:
        ruling = self.decide(target_key)
        return None if ruling.allowed else Denial(ruling.error)

    def decide(self, target_key: str) -> Ruling:
        """The guard's verdict on a target and the rule that gave it (`check` is its refusal)."""
        action, vis = self.action, self.visibility
        target_agent = agent_id_of(target_key)
        if target_agent != self.requester_agent_id:
            agents = f"agent {self.requester_agent_id} to agent {target_agent}"
            if vis != "all":
                why = f"visibility {vis}: {agents} needs tools.sessions.visibility=all"
                return Ruling(False, "visibility", why, cross_visibility_message(action))
            if not self.a2a.enabled:
                why = f"visibility all, but agent-to-agent is disabled (tools.agentToAgent.enabled): {agents}"
                return Ruling(False, "agentToAgent.enabled", why, _A2A_DISABLED[action])
            allow = ", ".join(self.a2a.allow)
            if not self.a2a.is_allowed(self.requester_agent_id, target_agent):
                why = f"tools.agentToAgent.allow [{allow}] does not match both agents: {agents}"
                return Ruling(False, "agentToAgent.allow", why, _A2A_DENIED[action])
            listed = f"tools.agentToAgent.allow [{allow}] matches both" if allow else "no allow list (every agent)"
            return Ruling(True, "agentToAgent.allow", f"visibility all, agent-to-agent enabled, {listed}: {agents}")
        if target_key == self.requester_key:
            return Ruling(True, "visibility", f"visibility {vis}: the requester's own session")
        if vis == "self":
            why = "visibility self: only the requester's own session"
            return Ruling(False, "visibility", why, self_visibility_message(action))
        if vis == "tree":
            if target_key not in self.spawned:
                why = "visibility tree: not in the sessions the requester spawned"
                return Ruling(False, "visibility", why, tree_visibility_message(action))
            return Ruling(True, "visibility", "visibility tree: a session the requester spawned")
        return Ruling(True, "visibility", f"visibility {vis}: a session of the same agent ({target_agent})")


def guard_for(call: ToolCall, ctx: RequesterContext, action: Action) -> VisibilityGuard:
    return VisibilityGuard(call.engine, action, ctx.effective_requester_key, ctx.visibility, call.engine.a2a_policy())
