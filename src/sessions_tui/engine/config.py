"""Configuration: OpenClaw's JSON5 config file, loaded into pydantic models (SPEC §3, §4, D14).

The file uses OpenClaw's key names (camelCase, REFERENCE §2). Python attributes are snake_case
with the camelCase spelling as alias; either spelling is accepted on input. Keys this project
does not use are ignored, so a real `openclaw.json` loads.

Bad values (D14):

* JSON5 that does not parse, a top level that is not an object, or a value of the wrong type
  → `ConfigError` with a one-line message naming the file and the line/column or key path.
* An out-of-range number or an unknown enum value of a key we use → a warning
  `"<file>: <key.path>: <why>; using <value>"` and REF's clamp or fallback. All of these are
  declared in one table, `VALUE_RULES`, keyed by JSON key-path patterns; the table is applied
  by a before-validator of `Config`, so `Config.model_validate(data)` clamps too (pass
  `context={"warnings": [...], "source": "..."}` to collect the warnings).

Numbers for integer keys may be floats; they are floored (REF floors numbers). Booleans never
pass as numbers and strings never pass as numbers or booleans (strict types).
"""

import builtins
import copy
import json
import logging
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, Union

import json5
import platformdirs
from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from sessions_tui.engine.files import NotRegularFile, read_regular_bytes
from sessions_tui.engine.keys import normalize_agent_id

__all__ = [
    "AgentConfig",
    "AgentDefaults",
    "AgentSandboxConfig",
    "AgentSubagentsConfig",
    "AgentsConfig",
    "ChannelConfig",
    "Config",
    "ConfigError",
    "LoadedConfig",
    "LoggingConfig",
    "ModelRef",
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
    "VALUE_RULES",
    "CONFIG_FILE_NAME",
    "STATE_DIR_ENV",
    "CONFIG_PATH_ENV",
    "load_config",
    "parse_config",
    "resolve_config_path",
    "resolve_state_dir",
]

log = logging.getLogger(__name__)

APP_NAME = "sessions-tui"
CONFIG_FILE_NAME = "config.json5"
STATE_DIR_ENV = "SESSIONS_TUI_HOME"
CONFIG_PATH_ENV = "SESSIONS_TUI_CONFIG"

DEFAULT_MAIN_KEY = "main"
MAX_TIMER_MS = 2_147_000_000


class ConfigError(Exception):
    """A config file that cannot be used. `str(err)` is one line and names the file."""

    def __init__(self, message: str) -> None:
        message = " ".join(str(message).split("\n")).replace("\r", " ")
        super().__init__(message)
        self.message = message


# --------------------------------------------------------------------------------------------
# Value rules (D14): clamps and enum fallbacks, one declarative table.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IntRange:
    """An integer key: floats are floored, then clamped to [min, max] with a warning.

    `default` replaces non-finite numbers (NaN, ±Infinity). With `keep_positive`, a positive
    value never floors below 1 (REF's `max(1, floor(x))` for archiveAfterMinutes).
    """

    default: int
    min: int | None = None
    max: int | None = None
    keep_positive: bool = False


@dataclass(frozen=True)
class Choice:
    """An enum key: matched case-insensitively after trimming; unknown → `fallback` + warning."""

    values: tuple[str, ...]
    fallback: str
    aliases: Mapping[str, str] = field(default_factory=dict)


#: JSON key-path pattern → rule. `[*]` stands for every element of an array.
VALUE_RULES: dict[str, IntRange | Choice] = {
    "session.scope": Choice(("per-sender", "global"), "per-sender"),
    "session.dmScope": Choice(("main", "per-peer", "per-channel-peer", "per-account-channel-peer"), "main"),
    "session.sendPolicy.default": Choice(("allow", "deny"), "allow"),
    "session.sendPolicy.rules[*].action": Choice(("allow", "deny"), "allow"),
    "session.agentToAgent.maxPingPongTurns": IntRange(default=5, min=0, max=5),
    "tools.sessions.visibility": Choice(("self", "tree", "agent", "all"), "tree"),
    "agents.defaults.sandbox.mode": Choice(("off", "non-main", "all"), "off"),
    "agents.defaults.sandbox.sessionToolsVisibility": Choice(("spawned", "all"), "spawned"),
    "agents.list[*].sandbox.mode": Choice(("off", "non-main", "all"), "off"),
    "agents.defaults.subagents.maxSpawnDepth": IntRange(default=1, min=1, max=5),
    "agents.defaults.subagents.maxChildrenPerAgent": IntRange(default=5, min=1, max=20),
    "agents.defaults.subagents.maxConcurrent": IntRange(default=8, min=1),
    "agents.defaults.subagents.archiveAfterMinutes": IntRange(default=60, min=0, keep_positive=True),
    "agents.defaults.subagents.runTimeoutSeconds": IntRange(default=0, min=0),
    "agents.defaults.subagents.announceTimeoutMs": IntRange(default=120_000, min=1, max=MAX_TIMER_MS),
    "agents.defaults.timeoutSeconds": IntRange(default=600, min=0),
    "models.demo.latencyMs": IntRange(default=400, min=0, max=60_000),
    "models.demo.chunkMs": IntRange(default=40, min=0, max=10_000),
    "logging.redactSensitive": Choice(("off", "tools"), "tools"),
}

_ITEM = object()  # pattern segment: every element of an array


def _split_pattern(pattern: str) -> list[object]:
    segments: list[object] = []
    for part in pattern.split("."):
        name, _, rest = part.partition("[")
        segments.append(name)
        if rest:
            segments.append(_ITEM)
    return segments


_COMPILED_RULES = [(_split_pattern(p), rule) for p, rule in VALUE_RULES.items()]


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _show_number(value: int | float) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value.is_integer():
            return str(int(value))
    return repr(value)


def _apply_rule(rule: IntRange | Choice, value: Any, warn) -> Any:
    """The clamped/normalised value; values of the wrong type are returned unchanged."""
    if isinstance(rule, Choice):
        if not isinstance(value, str):
            return value  # the model rejects it as a type error
        text = value.strip().lower()
        text = rule.aliases.get(text, text)
        if text in rule.values:
            return text
        warn(
            f"unknown value {json.dumps(value)} (expected one of {', '.join(rule.values)})",
            rule.fallback,
        )
        return rule.fallback
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        warn(f"{_show_number(value)} is not a finite number", rule.default)
        return rule.default
    number = math.floor(value)
    if rule.keep_positive and value > 0:
        number = max(1, number)
    if rule.min is not None and number < rule.min:
        warn(f"{_show_number(value)} is below the minimum {rule.min}", rule.min)
        return rule.min
    if rule.max is not None and number > rule.max:
        warn(f"{_show_number(value)} is above the maximum {rule.max}", rule.max)
        return rule.max
    return number


def _walk(node: Any, segments: list[object], path: str, rule, on_warning) -> None:
    head, rest = segments[0], segments[1:]
    if head is _ITEM:
        if isinstance(node, list):
            for index, item in enumerate(node):
                if rest:
                    _walk(item, rest, f"{path}[{index}]", rule, on_warning)
        return
    if not isinstance(node, dict):
        return
    assert isinstance(head, str)
    for key in dict.fromkeys((head, _snake(head))):
        if key not in node:
            continue
        child_path = f"{path}.{key}" if path else key
        if rest:
            _walk(node[key], rest, child_path, rule, on_warning)
        else:

            def warn(why: str, used: Any, _path: str = child_path) -> None:
                on_warning(_path, why, used)

            node[key] = _apply_rule(rule, node[key], warn)


def apply_value_rules(data: dict, on_warning) -> None:
    """Apply `VALUE_RULES` to raw config data in place; `on_warning(path, why, used)`."""
    for segments, rule in _COMPILED_RULES:
        _walk(data, segments, "", rule, on_warning)


# --------------------------------------------------------------------------------------------
# Field types
# --------------------------------------------------------------------------------------------


def _floor_number(value: Any) -> Any:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise PydanticCustomError("finite_number", "expected a finite number")
        return math.floor(value)
    return value


#: An integer that also accepts (and floors) a float; never a boolean or a string.
FlooredInt = Annotated[int, BeforeValidator(_floor_number)]


class _Model(BaseModel):
    model_config = ConfigDict(
        strict=True,
        populate_by_name=True,
        extra="ignore",
        validate_default=False,
    )


class ModelRef(_Model):
    """A model reference: `"provider/model"` or `{primary, fallbacks}` in the file."""

    primary: str | None = None
    fallbacks: list[str] = Field(default_factory=list)


def _coerce_model_ref(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        return {"primary": text} if text else None
    if value is None or isinstance(value, (dict, ModelRef)):
        return value
    raise PydanticCustomError("model_ref_type", "expected a string or an object")


ModelRefField = Annotated[ModelRef | None, BeforeValidator(_coerce_model_ref)]


# --------------------------------------------------------------------------------------------
# session.*
# --------------------------------------------------------------------------------------------


class SendPolicyMatch(_Model):
    """`session.sendPolicy.rules[].match`; `surface` (the seeds' name) is an alias of `channel`."""

    channel: str | None = Field(default=None, validation_alias=AliasChoices("channel", "surface"))
    chat_type: str | None = Field(default=None, alias="chatType")
    key_prefix: str | None = Field(default=None, alias="keyPrefix")
    raw_key_prefix: str | None = Field(default=None, alias="rawKeyPrefix")

    @field_validator("channel", "chat_type")
    @classmethod
    def _lower_trim(cls, value: str | None) -> str | None:
        if value is None:
            return None
        text = value.strip().lower()
        return "direct" if text == "dm" else text

    @field_validator("key_prefix", "raw_key_prefix")
    @classmethod
    def _lower(cls, value: str | None) -> str | None:
        return value.lower() if value is not None else None


class SendPolicyRule(_Model):
    action: Literal["allow", "deny"] = "allow"
    match: SendPolicyMatch = Field(default_factory=SendPolicyMatch)


class SendPolicyConfig(_Model):
    default: Literal["allow", "deny"] | None = None
    rules: list[SendPolicyRule] = Field(default_factory=list)


class SessionAgentToAgentConfig(_Model):
    max_ping_pong_turns: FlooredInt = Field(default=5, alias="maxPingPongTurns")


class SessionConfig(_Model):
    scope: Literal["per-sender", "global"] = "per-sender"
    main_key: str = Field(default=DEFAULT_MAIN_KEY, alias="mainKey")
    dm_scope: Literal["main", "per-peer", "per-channel-peer", "per-account-channel-peer"] = Field(
        default="main", alias="dmScope"
    )
    send_policy: SendPolicyConfig | None = Field(default=None, alias="sendPolicy")
    agent_to_agent: SessionAgentToAgentConfig = Field(default_factory=SessionAgentToAgentConfig, alias="agentToAgent")

    @field_validator("main_key")
    @classmethod
    def _normalize_main_key(cls, value: str) -> str:
        return value.strip().lower() or DEFAULT_MAIN_KEY


# --------------------------------------------------------------------------------------------
# tools.*
# --------------------------------------------------------------------------------------------


class ToolsAgentToAgentConfig(_Model):
    enabled: bool = False
    allow: list[str] = Field(default_factory=list)


class ToolsSessionsConfig(_Model):
    visibility: Literal["self", "tree", "agent", "all"] = "all"  # SPEC D1 (REF: "tree")


class SubagentToolPolicy(_Model):
    allow: list[str] | None = None
    also_allow: list[str] | None = Field(default=None, alias="alsoAllow")
    deny: list[str] | None = None


class ToolsSubagentsConfig(_Model):
    tools: SubagentToolPolicy = Field(default_factory=SubagentToolPolicy)


class ToolsConfig(_Model):
    agent_to_agent: ToolsAgentToAgentConfig = Field(default_factory=ToolsAgentToAgentConfig, alias="agentToAgent")
    sessions: ToolsSessionsConfig = Field(default_factory=ToolsSessionsConfig)
    subagents: ToolsSubagentsConfig = Field(default_factory=ToolsSubagentsConfig)


# --------------------------------------------------------------------------------------------
# agents.*
# --------------------------------------------------------------------------------------------


class SandboxDefaults(_Model):
    mode: Literal["off", "non-main", "all"] = "off"
    session_tools_visibility: Literal["spawned", "all"] = Field(default="spawned", alias="sessionToolsVisibility")


class SubagentDefaults(_Model):
    allow_agents: list[str] | None = Field(default=None, alias="allowAgents")
    require_agent_id: bool = Field(default=False, alias="requireAgentId")
    max_spawn_depth: FlooredInt = Field(default=1, alias="maxSpawnDepth")
    max_children_per_agent: FlooredInt = Field(default=5, alias="maxChildrenPerAgent")
    max_concurrent: FlooredInt = Field(default=8, alias="maxConcurrent")
    archive_after_minutes: FlooredInt = Field(default=60, alias="archiveAfterMinutes")
    run_timeout_seconds: FlooredInt = Field(default=0, alias="runTimeoutSeconds")
    announce_timeout_ms: FlooredInt = Field(default=120_000, alias="announceTimeoutMs")
    model: ModelRefField = None
    thinking: str | None = None


class AgentDefaults(_Model):
    model: ModelRefField = None
    timeout_seconds: FlooredInt = Field(default=600, alias="timeoutSeconds")
    sandbox: SandboxDefaults = Field(default_factory=SandboxDefaults)
    subagents: SubagentDefaults = Field(default_factory=SubagentDefaults)


class AgentSandboxConfig(_Model):
    mode: Literal["off", "non-main", "all"] | None = None


class AgentSubagentsConfig(_Model):
    allow_agents: list[str] | None = Field(default=None, alias="allowAgents")
    require_agent_id: bool | None = Field(default=None, alias="requireAgentId")
    model: ModelRefField = None
    thinking: str | None = None


class AgentConfig(_Model):
    id: str
    name: str | None = None
    default: bool = False
    model: ModelRefField = None
    sandbox: AgentSandboxConfig | None = None
    subagents: AgentSubagentsConfig | None = None

    @field_validator("id")
    @classmethod
    def _normalize_id(cls, value: str) -> str:
        return normalize_agent_id(value)


class AgentsConfig(_Model):
    defaults: AgentDefaults = Field(default_factory=AgentDefaults)
    list: builtins.list[AgentConfig] = Field(default_factory=lambda: [])


# --------------------------------------------------------------------------------------------
# logging.*, models.*, channels.*, ui.*
# --------------------------------------------------------------------------------------------


class LoggingConfig(_Model):
    redact_sensitive: Literal["off", "tools"] = Field(default="tools", alias="redactSensitive")
    redact_patterns: list[str] | None = Field(default=None, alias="redactPatterns")


class ProviderModelConfig(_Model):
    """One entry of `models.providers.<name>.models`; only `id` (and `name`) are read."""

    id: str
    name: str | None = None


class ProviderConfig(_Model):
    base_url: str | None = Field(default=None, alias="baseUrl")
    # A string, or one of OpenClaw's secret-reference objects (read by the model client).
    api_key: str | dict[str, Any] | None = Field(default=None, alias="apiKey")
    api: str | None = None
    # sessions-tui's own: false asks for whole (non-streamed) completions.
    stream: bool = True
    models: list[ProviderModelConfig] = Field(default_factory=list)
    headers: dict[str, str] | None = None


class DemoModelConfig(_Model):
    """sessions-tui's own `models.demo`: the offline demo model's simulated latency."""

    latency_ms: FlooredInt = Field(default=400, alias="latencyMs")
    chunk_ms: FlooredInt = Field(default=40, alias="chunkMs")


class ModelsConfig(_Model):
    providers: dict[str, ProviderConfig] = Field(default_factory=dict)
    demo: DemoModelConfig = Field(default_factory=DemoModelConfig)


class ChannelConfig(_Model):
    webhook_url: str | None = Field(default=None, alias="webhookUrl")

    @field_validator("webhook_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        """An absolute http(s) URL with a host, as both URL parsers (pydantic's, and httpx's, which
        POSTs to it) read it; an empty string is no webhook."""
        import httpx
        from pydantic import HttpUrl, TypeAdapter

        text = (value or "").strip()
        if not text:
            return None
        try:
            TypeAdapter(HttpUrl).validate_python(text)
            usable = httpx.URL(text).scheme in ("http", "https") and bool(httpx.URL(text).host)
        except (ValidationError, httpx.InvalidURL):
            usable = False
        if not usable:
            raise PydanticCustomError("webhook_url", "must be an http(s) URL")
        return text


class UiConfig(_Model):
    """sessions-tui's own section: `keybindings` maps an action name to key string(s)."""

    keybindings: dict[str, str] = Field(default_factory=dict)


# --------------------------------------------------------------------------------------------
# The whole file
# --------------------------------------------------------------------------------------------


class Config(_Model):
    session: SessionConfig = Field(default_factory=SessionConfig)
    tools: ToolsConfig = Field(default_factory=ToolsConfig)
    agents: AgentsConfig = Field(default_factory=AgentsConfig)
    logging: LoggingConfig = Field(default_factory=LoggingConfig)
    models: ModelsConfig = Field(default_factory=ModelsConfig)
    channels: dict[str, ChannelConfig] = Field(default_factory=dict)
    ui: UiConfig = Field(default_factory=UiConfig)

    @model_validator(mode="before")
    @classmethod
    def _apply_value_rules(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict):
            return data
        data = copy.deepcopy(data)
        context = info.context if isinstance(info.context, dict) else {}
        sink = context.get("warnings")
        source = context.get("source", "<config>")

        def on_warning(path: str, why: str, used: Any) -> None:
            shown = _show_number(used) if isinstance(used, (int, float)) else str(used)
            message = f"{source}: {path}: {why}; using {shown}"
            if isinstance(sink, list):
                sink.append(message)
            else:
                log.warning("%s", message)

        apply_value_rules(data, on_warning)
        return data

    # -- helpers ------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------


@dataclass
class LoadedConfig:
    config: Config
    warnings: list[str]
    path: Path
    exists: bool


_EXPECTED = {
    "int_type": "expected a number",
    "int_parsing": "expected a number",
    "int_from_float": "expected a number",
    "float_type": "expected a number",
    "bool_type": "expected a boolean",
    "bool_parsing": "expected a boolean",
    "string_type": "expected a string",
    "list_type": "expected an array",
    "tuple_type": "expected an array",
    "dict_type": "expected an object",
    "model_type": "expected an object",
    "model_attributes_type": "expected an object",
    "dataclass_type": "expected an object",
}
_PLAIN_SEGMENT = re.compile(r"^[A-Za-z0-9_-]+$")
_MAX_REPORTED_ERRORS = 5


def _format_loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and _PLAIN_SEGMENT.match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(str(part))}]"
    return out or "(top level)"


def _describe_error(error: Mapping[str, Any]) -> str:
    kind = error.get("type", "")
    value = error.get("input")
    if kind == "missing":
        return "required"
    if kind == "literal_error":
        if isinstance(value, str):
            expected = (error.get("ctx") or {}).get("expected", "")
            return f"unknown value {json.dumps(value)} (expected {expected})"
        return f"expected a string, got {_json_type(value)}"
    if kind in _EXPECTED:
        return f"{_EXPECTED[kind]}, got {_json_type(value)}"
    if kind in ("model_ref_type", "finite_number"):
        got = _show_number(value) if isinstance(value, float) else _json_type(value)
        return f"{error.get('msg')}, got {got}"
    message = str(error.get("msg", "invalid value"))
    return message[:1].lower() + message[1:]


def _format_validation_error(source: str, err: ValidationError) -> str:
    parts: list[str] = []
    for error in err.errors(include_url=False):
        text = f"{_format_loc(tuple(error.get('loc', ())))}: {_describe_error(error)}"
        if text not in parts:
            parts.append(text)
    shown = parts[:_MAX_REPORTED_ERRORS]
    if len(parts) > len(shown):
        shown.append(f"and {len(parts) - len(shown)} more")
    return f"{source}: " + "; ".join(shown)


def parse_config(data: Any, *, source: str = "<config>") -> tuple[Config, list[str]]:
    """Validate already-parsed config data: `(config, warnings)`, or `ConfigError`.

    `source` names the file in messages. Clamps and fallbacks of `VALUE_RULES` apply.
    """
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: top level must be an object, got {_json_type(data)}")
    warnings: list[str] = []
    try:
        config = Config.model_validate(data, context={"warnings": warnings, "source": source})
    except ValidationError as err:
        raise ConfigError(_format_validation_error(source, err)) from None
    warnings.extend(_redaction_warnings(config, source))
    return config, warnings


def _redaction_warnings(config: Config, source: str) -> list[str]:
    """Redaction is never silently off: every custom pattern left out is named, with why."""
    from sessions_tui.engine.redact_js import pattern_problem

    out = []
    for index, raw in enumerate(config.logging.redact_patterns or []):
        why = pattern_problem(raw)
        if why:
            out.append(
                f"{source}: logging.redactPatterns[{index}] {json.dumps(raw)} is {why} and is ignored; "
                "the built-in patterns stay on"
            )
    if config.logging.redact_sensitive == "off":
        out.append(
            f'{source}: logging.redactSensitive "off" is ignored: sessions-tui never shows a secret '
            "(OpenClaw 2026.9.6 also redacts tool results regardless)"
        )
    return out


_JSON5_ERROR_RE = re.compile(r"^<string>:(\d+) (.*) at column (\d+)$", re.DOTALL)


def _parse_json5(text: str, source: str) -> Any:
    if not text.strip():
        raise ConfigError(f"{source}: invalid JSON5: empty file")
    try:
        return json5.loads(text)
    except (ValueError, RecursionError) as err:
        why = str(err) or type(err).__name__
        found = _JSON5_ERROR_RE.match(why)
        if found:
            line, reason, col = found.group(1), found.group(2), found.group(3)
            raise ConfigError(f"{source}:{line}:{col}: invalid JSON5: {reason}") from None
        raise ConfigError(f"{source}: invalid JSON5: {why}") from None


def load_config(path: Path, *, required: bool = False) -> LoadedConfig:
    """Load the JSON5 config file at `path` (SPEC D14).

    A missing file gives the defaults (`exists=False`), or `ConfigError` when `required`.
    Unparseable JSON5, a non-object top level, an unreadable file, one that is not a regular file
    (a FIFO or a device: never opened to wait or read forever) or a value of the wrong type
    raise `ConfigError`; out-of-range numbers and unknown enum values become `warnings`.
    """
    path = Path(path)
    source = str(path)
    try:
        # Only a regular file is read: a FIFO would hang the start, a device never end.
        data_bytes = read_regular_bytes(path)
    except (FileNotFoundError, NotADirectoryError):
        if required:
            raise ConfigError(f"{source}: config file not found") from None
        return LoadedConfig(config=Config(), warnings=[], path=path, exists=False)
    except NotRegularFile as err:
        raise ConfigError(f"{source}: is {err.kind}, not a config file") from None
    except OSError as err:
        raise ConfigError(f"{source}: cannot read: {err.strerror or err}") from None
    try:
        text = data_bytes.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(f"{source}: not UTF-8 text (byte {err.start})") from None
    text = text.removeprefix("\ufeff")
    data = _parse_json5(text, source)
    config, warnings = parse_config(data, source=source)
    return LoadedConfig(config=config, warnings=warnings, path=path, exists=True)


# --------------------------------------------------------------------------------------------
# Paths (SPEC §4)
# --------------------------------------------------------------------------------------------


def _nonempty(value: Union[str, "os.PathLike[str]", None]) -> str | None:
    if value is None:
        return None
    text = os.fspath(value)
    return text if text.strip() else None


def resolve_state_dir(cli_value: Union[str, "os.PathLike[str]", None]) -> Path:
    """`--state`, else `$SESSIONS_TUI_HOME`, else the XDG data dir; `~` expanded."""
    chosen = _nonempty(cli_value) or _nonempty(os.environ.get(STATE_DIR_ENV)) or platformdirs.user_data_dir(APP_NAME)
    return Path(chosen).expanduser()


def resolve_config_path(cli_value: Union[str, "os.PathLike[str]", None], state_dir: Path) -> Path:
    """`--config`, else `$SESSIONS_TUI_CONFIG`, else `<state>/config.json5`; `~` expanded."""
    chosen = _nonempty(cli_value) or _nonempty(os.environ.get(CONFIG_PATH_ENV))
    if chosen is not None:
        return Path(chosen).expanduser()
    return Path(state_dir).expanduser() / CONFIG_FILE_NAME


def config_path_origin(cli_value: Union[str, "os.PathLike[str]", None]) -> str | None:
    """Who named the config file (`--config`, `$SESSIONS_TUI_CONFIG`), or None for the default:
    a file someone named must exist, the default one may be absent."""
    if _nonempty(cli_value) is not None:
        return "--config"
    if _nonempty(os.environ.get(CONFIG_PATH_ENV)) is not None:
        return f"${CONFIG_PATH_ENV}"
    return None
