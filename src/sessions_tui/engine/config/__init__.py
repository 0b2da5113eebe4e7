"""Configuration: OpenClaw's JSON5 config file, loaded into pydantic models.

The config sits on the engine's floor: the engine and the faces read it, and it imports nothing
of the engine but its leaf helpers (keys, files, the JavaScript-regex checker), so it can be
loaded and checked before any engine exists. One concept per module:

* `base` — the strict model base and shared field types (camelCase aliases, floored integers);
* `session`, `tools`, `agents`, `providers`, `channels`, `redaction`, `ui`, `gateway`, `hooks`, `cron` — one
  section each;
* `document` — `Config`, the whole file, and the lookups merging an agent with the defaults;
* `rules` — the clamps and enum fallbacks (`VALUE_RULES`) that turn bad values into warnings;
* `errors` — `ConfigError` and its one-line messages;
* `loading` — reading and parsing a file; `paths` — where the state dir and config file are.

Every name callers use is re-exported here: `from sessions_tui.engine.config import Config`.
"""

from sessions_tui.engine.config.agents import (
    AgentConfig,
    AgentDefaults,
    AgentSandboxConfig,
    AgentsConfig,
    AgentSubagentsConfig,
    SandboxDefaults,
    SubagentDefaults,
)
from sessions_tui.engine.config.base import ConfigModel, FlooredInt, ModelRef, ModelRefField, defaults_of
from sessions_tui.engine.config.channels import ChannelConfig
from sessions_tui.engine.config.cron import CronConfig
from sessions_tui.engine.config.document import Config
from sessions_tui.engine.config.errors import ConfigError
from sessions_tui.engine.config.gateway import GatewayAuthConfig, GatewayConfig, GatewayRemoteConfig, GatewayToolsConfig
from sessions_tui.engine.config.hooks import HooksConfig
from sessions_tui.engine.config.loading import LoadedConfig, load_config, parse_config
from sessions_tui.engine.config.paths import (
    APP_NAME,
    CONFIG_FILE_NAME,
    CONFIG_PATH_ENV,
    STATE_DIR_ENV,
    config_path_origin,
    resolve_config_path,
    resolve_state_dir,
)
from sessions_tui.engine.config.providers import (
    DemoModelConfig,
    ModelCostConfig,
    ModelsConfig,
    ProviderConfig,
    ProviderModelConfig,
)
from sessions_tui.engine.config.redaction import LoggingConfig
from sessions_tui.engine.config.rules import MAX_TIMER_MS, VALUE_RULES, Choice, IntRange, apply_value_rules
from sessions_tui.engine.config.session import (
    SendPolicyConfig,
    SendPolicyMatch,
    SendPolicyRule,
    SessionAgentToAgentConfig,
    SessionConfig,
)
from sessions_tui.engine.config.tools import (
    SubagentToolPolicy,
    ToolsAgentToAgentConfig,
    ToolsConfig,
    ToolsSessionsConfig,
    ToolsSubagentsConfig,
)
from sessions_tui.engine.config.ui import UiConfig
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
