"""Configuration: OpenClaw's JSON5 config file, loaded into pydantic models.

The config sits on the engine's floor: the engine and the faces read it, and it imports nothing
of the engine but its leaf helpers (keys, files, the JavaScript-regex checker), so it can be
loaded and checked before any engine exists. By concept:

* `model/` — the strict model base and shared field types (`base`: camelCase aliases, floored integers),
  the clamps and enum fallbacks that turn bad values into warnings (`rules`: `VALUE_RULES`), and the
  secrets a value may point at (`secret_refs`);
* `sections/` — one module per section: `session`, `tools`, `agents`, `providers`, `channels`,
  `redaction`, `ui`, `gateway`, `hooks`, `cron`, `store`;
* `document` — `Config`, the whole file, and the lookups merging an agent with the defaults;
  `policies` — what the engine derives from it;
* `file/` — where the state dir and config file are (`paths`), reading and parsing one (`loading`),
  and its one-line errors (`errors`).

Every name callers use is re-exported here: `from sessions_tui.engine.config import Config`.
"""

from sessions_tui.engine.config.document import Config
from sessions_tui.engine.config.file.errors import ConfigError
from sessions_tui.engine.config.file.loading import LoadedConfig, load_config, parse_config
from sessions_tui.engine.config.file.paths import (
    APP_NAME,
    CONFIG_FILE_NAME,
    CONFIG_PATH_ENV,
    STATE_DIR_ENV,
    config_path_origin,
    resolve_config_path,
    resolve_state_dir,
)
from sessions_tui.engine.config.model.base import ConfigModel, FlooredInt, ModelRef, ModelRefField, defaults_of
from sessions_tui.engine.config.model.rules import MAX_TIMER_MS, VALUE_RULES, Choice, IntRange, apply_value_rules
from sessions_tui.engine.config.sections.agents import (
    AgentConfig,
    AgentDefaults,
    AgentSandboxConfig,
    AgentsConfig,
    AgentSubagentsConfig,
    SandboxDefaults,
    SubagentDefaults,
)
from sessions_tui.engine.config.sections.channels import ChannelConfig
from sessions_tui.engine.config.sections.cron import CronConfig
from sessions_tui.engine.config.sections.gateway import (
    GatewayAuthConfig,
    GatewayConfig,
    GatewayRemoteConfig,
    GatewayToolsConfig,
)
from sessions_tui.engine.config.sections.hooks import HooksConfig
from sessions_tui.engine.config.sections.providers import (
    DemoModelConfig,
    ModelCostConfig,
    ModelsConfig,
    ProviderConfig,
    ProviderModelConfig,
)
from sessions_tui.engine.config.sections.redaction import LoggingConfig
from sessions_tui.engine.config.sections.session import (
    SendPolicyConfig,
    SendPolicyMatch,
    SendPolicyRule,
    SessionAgentToAgentConfig,
    SessionConfig,
)
from sessions_tui.engine.config.sections.tools import (
    SubagentToolPolicy,
    ToolsAgentToAgentConfig,
    ToolsConfig,
    ToolsSessionsConfig,
    ToolsSubagentsConfig,
)
from sessions_tui.engine.config.sections.ui import UiConfig
from sessions_tui.engine.sessions.keys import DEFAULT_MAIN_KEY

__all__ = [
    "GatewayAuthConfig",
    "GatewayConfig",
    "GatewayRemoteConfig",
    "GatewayToolsConfig",
    "HooksConfig",
    "APP_NAME",
    "CONFIG_FILE_NAME",
    "CONFIG_PATH_ENV",
    "DEFAULT_MAIN_KEY",
    "MAX_TIMER_MS",
    "STATE_DIR_ENV",
    "VALUE_RULES",
    "AgentConfig",
    "AgentDefaults",
    "AgentSandboxConfig",
    "AgentSubagentsConfig",
    "AgentsConfig",
    "ChannelConfig",
    "CronConfig",
    "Choice",
    "Config",
    "ConfigError",
    "ConfigModel",
    "DemoModelConfig",
    "FlooredInt",
    "IntRange",
    "LoadedConfig",
    "LoggingConfig",
    "ModelRef",
    "ModelRefField",
    "ModelCostConfig",
    "ModelsConfig",
    "ProviderConfig",
    "ProviderModelConfig",
    "SandboxDefaults",
    "SendPolicyConfig",
    "SendPolicyMatch",
    "SendPolicyRule",
    "SessionAgentToAgentConfig",
    "SessionConfig",
    "SubagentDefaults",
    "SubagentToolPolicy",
    "ToolsAgentToAgentConfig",
    "ToolsConfig",
    "ToolsSessionsConfig",
    "ToolsSubagentsConfig",
    "UiConfig",
    "defaults_of",
    "apply_value_rules",
    "config_path_origin",
    "load_config",
    "parse_config",
    "resolve_config_path",
    "resolve_state_dir",
]
