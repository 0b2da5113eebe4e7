"""Which agent and which session an inbound hook runs in, or why it may not: OpenClaw's hook policy.

As the gateway's `hooks-request-handler` decides it, in its order and with its words (each
refusal is its `400` error text): a requested agent must be a configured one (`main` always is) and
pass `hooks.allowedAgentIds`; a persistent hook must name its session; a requested session key needs
`hooks.allowRequestSessionKey`; the key (requested, else `hooks.defaultSessionKey`, else a fresh
`hook:<uuid>`) must start with one of `hooks.allowedSessionKeyPrefixes`; a persistent hook needs
those prefixes set; an agent-prefixed key is re-scoped to the hook's agent and checked again. The
key runs under the agent as the engine stores keys (`agent:<id>:<rest>`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sessions_tui.engine.config.sections.hooks import HooksConfig, key_allowed
from sessions_tui.engine.sessions.ids import new_uuid
from sessions_tui.engine.sessions.keys import (
    DEFAULT_AGENT_ID,
    MainAlias,
    canonical_key,
    normalize_agent_id,
    parse_agent_session_key,
)

SessionMode = Literal["isolated", "persistent"]


class HookRefused(ValueError):
    """A hook the policy refuses; its text is the gateway's `error` (a 400)."""


@dataclass(frozen=True)
class HookPlacement:
    """Where an admitted hook runs: its agent, its logical key (as asked, defaulted or generated)
    and the key of the session it runs in."""

    agent_id: str
    logical_key: str
    session_key: str


def prefix_error(prefixes: list[str]) -> str:
    return f"sessionKey must start with one of: {', '.join(prefixes)}"


def hook_agent(requested: str | None, known: list[str], allowed: list[str] | None) -> str:
    """The agent a hook runs: the one it names (a configured one), else `main`."""
    agent = DEFAULT_AGENT_ID
    if requested is not None:
        raw = requested.strip()
        agent = normalize_agent_id(raw)  # `Bad Agent!` is `bad-agent`, as OpenClaw normalises it
        if not raw or agent not in {*known, DEFAULT_AGENT_ID}:
            raise HookRefused(f'unknown agentId "{agent if raw else raw}"')
    if allowed is not None and agent not in allowed:
        raise HookRefused("agentId is not allowed by hooks.allowedAgentIds")
    return agent


def logical_key(hooks: HooksConfig, requested: str | None) -> str:
    """The hook's key: as requested (when requests may name one), else the default, else `hook:<uuid>`."""
    prefixes = hooks.allowed_session_key_prefixes
    if requested:
        if not hooks.allow_request_session_key:
            raise HookRefused(
                "sessionKey is disabled for externally supplied hook payload values; "
                "set hooks.allowRequestSessionKey=true to enable"
            )
        if not key_allowed(requested, prefixes):
            raise HookRefused(prefix_error(prefixes or []))
        return requested
    if hooks.default_session_key:
        return hooks.default_session_key
    generated = f"hook:{new_uuid()}"
    if not key_allowed(generated, prefixes):
        raise HookRefused(prefix_error(prefixes or []))
    return generated


def place_hook(
    hooks: HooksConfig,
    alias: MainAlias,
    known_agents: list[str],
    *,
    agent_id: str | None,
    session_key: str | None,
    session_mode: SessionMode,
) -> HookPlacement:
    """Where a hook runs, or `HookRefused` with the gateway's words, checked in the gateway's order."""
    agent = hook_agent(agent_id, known_agents, hooks.allowed_agent_ids)
    if session_mode == "persistent" and not session_key:
        raise HookRefused("sessionKey is required when sessionMode is persistent")
    logical = logical_key(hooks, session_key)
    prefixes = hooks.allowed_session_key_prefixes
    if session_mode == "persistent" and not prefixes:
        raise HookRefused("hooks.allowedSessionKeyPrefixes is required when direct hook sessionMode is persistent")
    parsed = parse_agent_session_key(logical)
    dispatch = f"agent:{agent}:{parsed.rest}" if parsed else logical
    if not key_allowed(dispatch, prefixes):
        raise HookRefused(prefix_error(prefixes or []))
    stored = canonical_key(dispatch if parsed else f"agent:{agent}:{logical.strip()}", alias, agent)
    return HookPlacement(agent_id=agent, logical_key=logical, session_key=stored)
