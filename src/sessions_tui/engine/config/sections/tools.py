"""The `tools` section: which sessions the session tools may reach, and which tools sub-agents get.

Visibility and agent-to-agent access decide what `sessions_list`, `sessions_history` and
`sessions_send` may see and touch (docs/decisions.md D1); the sub-agent tool policy trims the
tools a spawned session is offered.
"""

from typing import Literal

from pydantic import Field

from sessions_tui.engine.config.model.base import ConfigModel

__all__ = [
    "SubagentToolPolicy",
    "ToolsAgentToAgentConfig",
    "ToolsConfig",
    "ToolsSessionsConfig",
    "ToolsSubagentsConfig",
]


class ToolsAgentToAgentConfig(ConfigModel):
    """`tools.agentToAgent`: whether a session may reach the sessions of another agent."""

    enabled: bool = Field(default=False, description="Allow cross-agent access at all; default false.")
    allow: list[str] = Field(
        default_factory=list,
        description="Agent ids (globs with `*`) that take part in cross-agent access; default [].",
    )


class ToolsSessionsConfig(ConfigModel):
    """`tools.sessions`: how far the session tools see."""

    # docs/decisions.md D1: "all" by default (OpenClaw's own default is "tree").
    visibility: Literal["self", "tree", "agent", "all"] = Field(
        default="all",
        description='"self", "tree" (self and what it spawned), "agent" (the same agent\'s sessions) or "all"; '
        'default "all"; an unknown value means "tree".',
    )


class SubagentToolPolicy(ConfigModel):
    """`tools.subagents.tools`: changes to the tools a sub-agent session is offered."""

    allow: list[str] | None = Field(
        default=None, description="Tool names given back to sub-agents although denied by default; default none."
    )
    also_allow: list[str] | None = Field(
        default=None, alias="alsoAllow", description="More tool names given back, like `allow`; default none."
    )
    deny: list[str] | None = Field(
        default=None, description="Tool names sub-agents never get (wins over allow); default none."
    )


class ToolsSubagentsConfig(ConfigModel):
    """`tools.subagents`: tool settings of spawned sessions."""

    tools: SubagentToolPolicy = Field(
        default_factory=SubagentToolPolicy,
        description="The allow/deny changes to a sub-agent's tools; default: the built-in denials only.",
    )


class ToolsConfig(ConfigModel):
    """`tools`: the session tools' reach and the sub-agents' tools."""

    agent_to_agent: ToolsAgentToAgentConfig = Field(
        default_factory=ToolsAgentToAgentConfig,
        alias="agentToAgent",
        description="Cross-agent access; default: off.",
    )
    sessions: ToolsSessionsConfig = Field(
        default_factory=ToolsSessionsConfig, description='Session visibility; default "all".'
    )
    subagents: ToolsSubagentsConfig = Field(
        default_factory=ToolsSubagentsConfig, description="Sub-agents' tools; default: the built-in denials only."
    )
