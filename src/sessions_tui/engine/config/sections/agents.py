"""The `agents` section: the configured agents, their models, sandboxing and sub-agent limits.

`agents.defaults` holds what every agent gets; `agents.list` names agents and may override a
few of those settings per agent (the lookups that merge the two live on `Config`).
"""

import builtins
from typing import Literal

from pydantic import Field, field_validator

from sessions_tui.engine.config.model.base import ConfigModel, FlooredInt, ModelRefField
from sessions_tui.engine.sessions.keys import normalize_agent_id

__all__ = [
    "AgentConfig",
    "AgentDefaults",
    "AgentSandboxConfig",
    "AgentSubagentsConfig",
    "AgentsConfig",
    "SandboxDefaults",
    "SubagentDefaults",
]

_MODE_HELP = '"off", "non-main" (every session but the main one) or "all": which of an agent\'s sessions are sandboxed'


class SandboxDefaults(ConfigModel):
    """`agents.defaults.sandbox`: which sessions are sandboxed, and what a sandboxed one sees."""

    mode: Literal["off", "non-main", "all"] = Field(default="off", description=f'{_MODE_HELP}; default "off".')
    session_tools_visibility: Literal["spawned", "all"] = Field(
        default="spawned",
        alias="sessionToolsVisibility",
        description='"spawned": a sandboxed session sees only the sessions it spawned; "all" lifts that. '
        'Default "spawned".',
    )


class SubagentDefaults(ConfigModel):
    """`agents.defaults.subagents`: the limits and defaults of `sessions_spawn`."""

    allow_agents: list[str] | None = Field(
        default=None,
        alias="allowAgents",
        description='Agent ids a requester may spawn under (["*"]: any); default: only its own agent.',
    )
    require_agent_id: bool = Field(
        default=False, alias="requireAgentId", description="A spawn must name its agent id; default false."
    )
    max_spawn_depth: FlooredInt = Field(
        default=1,
        alias="maxSpawnDepth",
        description="How deep sub-agents may nest, 1–5 (1: sub-agents cannot spawn); default 1.",
    )
    max_children_per_agent: FlooredInt = Field(
        default=5,
        alias="maxChildrenPerAgent",
        description="How many active sub-agents one session may have, 1–20; default 5.",
    )
    max_concurrent: FlooredInt = Field(
        default=8,
        alias="maxConcurrent",
        description="OpenClaw's cap on concurrent sub-agent runs, at least 1 (read and checked); default 8.",
    )
    archive_after_minutes: FlooredInt = Field(
        default=60,
        alias="archiveAfterMinutes",
        description="Minutes after which a finished sub-agent session is archived (0: never); default 60.",
    )
    run_timeout_seconds: FlooredInt = Field(
        default=0,
        alias="runTimeoutSeconds",
        description="The default time limit of a sub-agent run in seconds (0: none); default 0.",
    )
    announce_timeout_ms: FlooredInt = Field(
        default=120_000,
        alias="announceTimeoutMs",
        description="How long the announce of a finished sub-agent may take, in ms; default 120000.",
    )
    model: ModelRefField = Field(default=None, description="The model of sub-agent runs; default: the agent's model.")
    thinking: str | None = Field(
        default=None, description="The thinking level of sub-agent runs; default: none (the model's own)."
    )


class AgentDefaults(ConfigModel):
    """`agents.defaults`: what every agent gets unless its `agents.list` entry says otherwise."""

    model: ModelRefField = Field(default=None, description='The model agents run on; default: the offline "demo".')
    timeout_seconds: FlooredInt = Field(
        default=600,
        alias="timeoutSeconds",
        description="How long a run may take, in seconds (0: the built-in 600); default 600.",
    )
    sandbox: SandboxDefaults = Field(default_factory=SandboxDefaults, description="Sandboxing; default: off.")
    subagents: SubagentDefaults = Field(
        default_factory=SubagentDefaults, description="Sub-agent limits and defaults (see each key)."
    )


class AgentSandboxConfig(ConfigModel):
    """`agents.list[].sandbox`: one agent's sandbox mode."""

    mode: Literal["off", "non-main", "all"] | None = Field(
        default=None, description=f"{_MODE_HELP}; default: agents.defaults.sandbox.mode."
    )


class AgentSubagentsConfig(ConfigModel):
    """`agents.list[].subagents`: one agent's sub-agent settings."""

    allow_agents: list[str] | None = Field(
        default=None,
        alias="allowAgents",
        description="Agent ids this agent may spawn under; default: agents.defaults.subagents.allowAgents.",
    )
    require_agent_id: bool | None = Field(
        default=None,
        alias="requireAgentId",
        description="A spawn must name its agent id; default: agents.defaults.subagents.requireAgentId.",
    )
    model: ModelRefField = Field(
        default=None, description="The model of this agent's sub-agent runs; default: the agent's model."
    )
    thinking: str | None = Field(
        default=None,
        description="The thinking level of its sub-agent runs; default: agents.defaults.subagents.thinking.",
    )


class AgentConfig(ConfigModel):
    """One entry of `agents.list`."""

    id: str = Field(description="The agent id (required; normalised like a session key's agent part).")
    name: str | None = Field(default=None, description="A display name; default: none.")
    default: bool = Field(
        default=False, description="OpenClaw's default-agent flag (read, not used here); default false."
    )
    model: ModelRefField = Field(default=None, description="The agent's model; default: agents.defaults.model.")
    sandbox: AgentSandboxConfig | None = Field(
        default=None, description="The agent's sandbox mode; default: agents.defaults.sandbox."
    )
    subagents: AgentSubagentsConfig | None = Field(
        default=None, description="The agent's sub-agent settings; default: agents.defaults.subagents."
    )

    @field_validator("id")
    @classmethod
    def _normalize_id(cls, value: str) -> str:
        return normalize_agent_id(value)


class AgentsConfig(ConfigModel):
    """`agents`: defaults and the list of configured agents."""

    defaults: AgentDefaults = Field(default_factory=AgentDefaults, description="Settings every agent gets.")
    list: builtins.list[AgentConfig] = Field(
        default_factory=lambda: [], description="The configured agents, in order; default []."
    )
