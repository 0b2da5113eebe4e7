"""The whole config file as one model, `Config`, and the lookups that merge an agent's settings with the defaults.

Validating a `Config` applies the value rules first (clamps and enum fallbacks, see `rules`),
so `Config.model_validate(data)` clamps too; pass `context={"warnings": [...], "source": "..."}`
to collect the warnings instead of logging them.
"""

import copy
import logging
from typing import Any

from pydantic import Field, ValidationInfo, model_validator

from sessions_tui.engine.config.model.base import ConfigModel
from sessions_tui.engine.config.model.rules import apply_value_rules, show_number
from sessions_tui.engine.config.sections.agents import AgentConfig, AgentsConfig
from sessions_tui.engine.config.sections.channels import ChannelConfig
from sessions_tui.engine.config.sections.cron import CronConfig
from sessions_tui.engine.config.sections.gateway import GatewayConfig
from sessions_tui.engine.config.sections.hooks import HooksConfig
from sessions_tui.engine.config.sections.providers import ModelsConfig
from sessions_tui.engine.config.sections.redaction import LoggingConfig
from sessions_tui.engine.config.sections.session import SessionConfig
from sessions_tui.engine.config.sections.store import StoreConfig
from sessions_tui.engine.config.sections.tools import ToolsConfig
from sessions_tui.engine.config.sections.ui import UiConfig
from sessions_tui.engine.sessions.keys import normalize_agent_id

__all__ = ["Config"]

log = logging.getLogger("sessions_tui.engine.config")


class Config(ConfigModel):
    """The config file (OpenClaw's `openclaw.json` shape); sections and keys it does not use are ignored."""

    session: SessionConfig = Field(default_factory=SessionConfig, description="Session keys and the send policy.")
    tools: ToolsConfig = Field(
        default_factory=ToolsConfig, description="What the session tools may reach; the sub-agents' tools."
    )
    agents: AgentsConfig = Field(
        default_factory=AgentsConfig, description="Agent defaults and the configured agents; default: none listed."
    )
    logging: LoggingConfig = Field(default_factory=LoggingConfig, description="Redaction settings.")
    models: ModelsConfig = Field(
        default_factory=ModelsConfig, description="Model providers and the demo model; default: the demo only."
    )
    channels: dict[str, ChannelConfig] = Field(
        default_factory=dict, description="Delivery channels by name (webhooks); default {}."
    )
    ui: UiConfig = Field(default_factory=UiConfig, description="sessions-tui's own dashboard settings.")
    gateway: GatewayConfig = Field(
        default_factory=GatewayConfig,
        description="The HTTP face (`serve`) and the gateway OpenClaw sessions send through.",
    )
    hooks: HooksConfig = Field(
        default_factory=HooksConfig, description="Inbound hooks on `serve` (`POST /hooks/agent`); default: off."
    )
    cron: CronConfig = Field(default_factory=CronConfig, description="Scheduled jobs and the scheduler's settings.")
    store: StoreConfig = Field(
        default_factory=StoreConfig, description="Hosts sharing a PostgreSQL store (`--store`): their leases."
    )

    @model_validator(mode="before")
    @classmethod
    def _apply_value_rules(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            return data
        data = copy.deepcopy(data)
        context = info.context if isinstance(info.context, dict) else {}
        sink = context.get("warnings")
        source = context.get("source", "<config>")
        redact = context.get("redact") or (lambda text: text)

        def on_warning(path: str, why: str, used: Any) -> None:
            # The path and the value apart: `mainKey: unknown …` together would read as a secret field.
            shown = show_number(used) if isinstance(used, (int, float)) else str(used)
            message = f"{source}: {redact(path)}: {redact(why)}; using {shown}"
            if isinstance(sink, list):
                sink.append(message)
            else:
                log.warning("%s", message)

        apply_value_rules(data, on_warning)
        return data

    # -- lookups ------------------------------------------------------------------------------

    def agent(self, agent_id: str) -> AgentConfig | None:
        """The configured agent with this id (normalised), or None."""
        wanted = normalize_agent_id(agent_id)
        for entry in self.agents.list:
            if entry.id == wanted:
                return entry
        return None

    def agent_ids(self) -> list[str]:
        """The ids of `agents.list`, in file order, without duplicates."""
        return list(dict.fromkeys(entry.id for entry in self.agents.list))

    def sandbox_mode(self, agent_id: str) -> str:
        """`agents.list[].sandbox.mode`, else `agents.defaults.sandbox.mode`."""
        entry = self.agent(agent_id)
        if entry is not None and entry.sandbox is not None and entry.sandbox.mode is not None:
            return entry.sandbox.mode
        return self.agents.defaults.sandbox.mode

    def allow_agents(self, agent_id: str) -> list[str]:
        """The agent's `subagents.allowAgents` ?? the defaults' ?? []."""
        entry = self.agent(agent_id)
        if entry is not None and entry.subagents is not None:
            if entry.subagents.allow_agents is not None:
                return list(entry.subagents.allow_agents)
        return list(self.agents.defaults.subagents.allow_agents or [])

    def require_agent_id(self, agent_id: str) -> bool:
        """The agent's `subagents.requireAgentId` ?? the defaults'."""
        entry = self.agent(agent_id)
        if entry is not None and entry.subagents is not None:
            if entry.subagents.require_agent_id is not None:
                return entry.subagents.require_agent_id
        return self.agents.defaults.subagents.require_agent_id
