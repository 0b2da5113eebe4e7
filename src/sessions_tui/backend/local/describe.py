"""A requester's view of the sessions, from the config alone: one answer for local and remote faces."""

from __future__ import annotations

from sessions_tui.backend.contract.types import Requester, RequesterView
from sessions_tui.engine.config.policies import ConfigPolicies
from sessions_tui.tools.requester.access import RequesterContext


def describe_requester(policies: ConfigPolicies, requester: Requester) -> RequesterView:
    """What the requester's tools may see: its agent, visibility, sandbox clamp, agent-to-agent."""
    ctx = RequesterContext.for_requester(policies, requester.key, requester.sandboxed)
    a2a = policies.a2a_policy()
    return RequesterView(
        agent_id=ctx.requester_agent_id,
        visibility=ctx.visibility,
        restrict_to_spawned=ctx.restrict_to_spawned,
        a2a_enabled=a2a.enabled,
        a2a_allow_any=not a2a.allow,
    )
