"""Tests for sessions_tui.engine.config: OpenClaw's key names and defaults (visibility, send policy,
sub-agent tools, models, paths; docs/decisions.md D1, D6, D14)."""

from pathlib import Path

import platformdirs
import pytest

from sessions_tui.engine.config import (
    VALUE_RULES,
    Choice,
    Config,
    ConfigError,
    IntRange,
    ModelRef,
    load_config,
    parse_config,
    resolve_config_path,
    resolve_state_dir,
)

REALISTIC_OPENCLAW_JSON = r"""
// ~/.openclaw/openclaw.json — trimmed from a real install
{
  meta: { lastTouchedVersion: "2026.4.2", lastTouchedAt: "2026-04-20T09:12:00.000Z" },
  wizard: { lastRunAt: "2026-04-01T10:00:00.000Z", lastRunCommand: "onboard", lastRunMode: "local" },
  env: { vars: { OPENROUTER_API_KEY: "sk-or-..." } },
  auth: { profiles: { "anthropic:default": { provider: "anthropic", mode: "token" } } },
  gateway: {
    port: 18789, mode: "local", bind: "loopback",
    auth: { mode: "token", token: "abc123" },
    tools: { deny: ["gateway"], allow: [] },
    http: { endpoints: { chatCompletions: { enabled: false } } },
    webchat: { chatHistoryMaxChars: 12000 },
    controlUi: { enabled: true },
  },
  channels: {
    whatsapp: {
      dmPolicy: "pairing",
      allowFrom: ["+15555550123"],
      groups: { "*": { requireMention: true } },
      webhookUrl: "https://hooks.example.com/wa",
    },
    telegram: { enabled: true, botToken: "123:abc", streamMode: "partial" },
    discord: { enabled: false, token: "xyz", guilds: { "123": { channels: { general: { allow: true } } } } },
  },
  bindings: [{ agentId: "ops", match: { channel: "discord", accountId: "*" } }],
  hooks: {
    enabled: true, token: "hook-secret", path: "/hooks", mappings: [{ match: { path: "gmail" }, action: "agent" }],
  },
  plugins: { entries: { "voice-call": { enabled: false, config: { provider: "twilio" } } } },
  skills: { install: { nodeManager: "pnpm" }, entries: { peekaboo: { enabled: true } } },
  commands: { native: "auto", text: true, restart: true },
  messages: { ackReactionScope: "group-mentions", responsePrefix: "🦞" },
  cron: { enabled: true, maxConcurrentRuns: 2 },
  browser: { enabled: true, color: "#FF4500" },
  ui: { seamColor: "#FF4500", assistant: { name: "Claw", avatar: "🦞" }, keybindings: { quit: "q,ctrl+q" } },
  logging: { level: "info", file: "/tmp/openclaw.log", consoleLevel: "warn", redactSensitive: "off" },
  session: {
    scope: "per-sender",
    mainKey: "  Main ",
    dmScope: "per-channel-peer",
    reset: { mode: "daily", atHour: 4 },
    identityLinks: { alice: ["telegram:123", "discord:456"] },
    store: "~/.openclaw/agents/{agentId}/sessions/sessions.json",
    typingIntervalSeconds: 6,
    sendPolicy: {
      default: "allow",
      rules: [
        { action: "deny", match: { channel: "discord", chatType: "group" } },
        { action: "deny", match: { keyPrefix: "cron:" } },
      ],
    },
    agentToAgent: { maxPingPongTurns: 3 },
  },
  tools: {
    profile: "coding",
    web: { search: { enabled: true, provider: "brave" } },
    exec: { host: "sandbox", timeoutSec: 1800 },
    elevated: { enabled: false },
    agentToAgent: { enabled: true, allow: ["main", "ops*"] },
    sessions: { visibility: "agent" },
    subagents: { tools: { deny: ["browser"], alsoAllow: ["sessions_list"] } },
  },
  models: {
    mode: "merge",
    providers: {
      local: {
        baseUrl: "http://127.0.0.1:8080/v1",
        apiKey: "not-needed",
        api: "openai-completions",
        headers: { "X-Trace": "1" },
        models: [
          { id: "qwen3-8b", name: "Qwen3 8B", reasoning: true, input: ["text"],
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
            contextWindow: 32768, maxTokens: 8192 },
        ],
      },
    },
  },
  agents: {
    defaults: {
      workspace: "~/.openclaw/workspace",
      model: { primary: "anthropic/claude-opus-4-6", fallbacks: ["openai/gpt-5.2"] },
      models: { "anthropic/claude-opus-4-6": { alias: "opus" } },
      heartbeat: { every: "30m", target: "last" },
      compaction: { mode: "safeguard" },
      maxConcurrent: 4,
      sandbox: { mode: "non-main", workspaceAccess: "ro", scope: "agent",
                 docker: { image: "openclaw-sandbox:bookworm-slim" }, sessionToolsVisibility: "all" },
      subagents: { maxConcurrent: 8, maxSpawnDepth: 2, archiveAfterMinutes: 30, allowAgents: ["research"] },
    },
    list: [
      { id: "main", default: true, name: "Main", workspace: "~/.openclaw/workspace",
        identity: { name: "Claw", emoji: "🦞" }, groupChat: { mentionPatterns: ["@claw"] } },
      { id: "Ops", name: "Operations", model: "local/qwen3-8b", agentDir: "~/.openclaw/agents/ops/agent",
        tools: { profile: "minimal" }, sandbox: { mode: "all", scope: "session" },
        subagents: { allowAgents: ["*"], requireAgentId: true } },
    ],
  },
}
"""


def write(tmp_path: Path, text: str, name: str = "config.json5") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def parse(data: dict) -> tuple[Config, list[str]]:
    return parse_config(data, source="cfg.json5")


def error_of(data: object) -> str:
    with pytest.raises(ConfigError) as info:
        parse_config(data, source="cfg.json5")
    return str(info.value)


# -- defaults ---------------------------------------------------------------------------------


def test_missing_file_gives_defaults_and_no_warnings(tmp_path):
    loaded = load_config(tmp_path / "absent.json5")
    assert loaded.exists is False
    assert loaded.warnings == []
    assert loaded.path == tmp_path / "absent.json5"
    cfg = loaded.config
    assert cfg.session.scope == "per-sender"
    assert cfg.session.main_key == "main"
    assert cfg.session.dm_scope == "main"
    assert cfg.session.send_policy is None
    assert cfg.session.agent_to_agent.max_ping_pong_turns == 5
    assert cfg.tools.agent_to_agent.enabled is False
    assert cfg.tools.agent_to_agent.allow == []
    assert cfg.tools.sessions.visibility == "all"
    assert cfg.tools.subagents.tools.allow is None
    sub = cfg.agents.defaults.subagents
    assert (sub.max_spawn_depth, sub.max_children_per_agent, sub.max_concurrent) == (1, 5, 8)
    assert (sub.archive_after_minutes, sub.run_timeout_seconds) == (60, 0)
    assert sub.announce_timeout_ms == 120_000
    assert sub.allow_agents is None and sub.require_agent_id is False
    assert cfg.agents.defaults.sandbox.mode == "off"
    assert cfg.agents.defaults.sandbox.session_tools_visibility == "spawned"
    assert cfg.agents.defaults.model is None
    assert cfg.agents.list == []
    assert cfg.logging.redact_sensitive == "tools"
    assert cfg.logging.redact_patterns is None
    assert cfg.models.providers == {}
    assert cfg.channels == {}
    assert cfg.ui.keybindings == {}


def test_missing_file_with_required_raises_naming_the_file(tmp_path):
    path = tmp_path / "absent.json5"
    with pytest.raises(ConfigError, match="absent.json5: config file not found"):
        load_config(path, required=True)


def test_a_config_over_1_mib_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    import json5

    def parse(text: str) -> None:
        raise AssertionError("parsed")

    monkeypatch.setattr(json5, "loads", parse)
    path = write(tmp_path, "{}" + " " * (1024 * 1024 - 1))
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert str(refused.value) == f"{path}: 1048577 bytes, over the 1 MiB a config file may hold"


def test_a_config_of_1_mib_loads(tmp_path):
    loaded = load_config(write(tmp_path, '{"ui": {"theme": "dark"}}'.ljust(1024 * 1024)))
    assert loaded.exists and loaded.warnings == []


def test_empty_object_file_gives_defaults_and_exists_true(tmp_path):
    loaded = load_config(write(tmp_path, "{}"))
    assert loaded.exists is True
    assert loaded.warnings == []
    assert loaded.config == Config()


# -- a real openclaw.json ---------------------------------------------------------------------


def test_realistic_openclaw_json_with_unknown_keys_loads(tmp_path):
    loaded = load_config(write(tmp_path, REALISTIC_OPENCLAW_JSON, "openclaw.json"))
    assert [w.split(": ", 1)[1] for w in loaded.warnings] == [  # the one setting we do not follow, said so
        'logging.redactSensitive "off" is ignored: sessions-tui never shows a secret '
        "(OpenClaw 2026.9.6 also redacts tool results regardless)"
    ]
    cfg = loaded.config
    assert cfg.session.main_key == "main"
    assert cfg.session.dm_scope == "per-channel-peer"
    assert cfg.session.agent_to_agent.max_ping_pong_turns == 3
    rules = cfg.session.send_policy.rules
    assert cfg.session.send_policy.default == "allow"
    assert [r.action for r in rules] == ["deny", "deny"]
    assert rules[0].match.channel == "discord" and rules[0].match.chat_type == "group"
    assert rules[1].match.key_prefix == "cron:"
    assert cfg.tools.agent_to_agent.enabled is True
    assert cfg.tools.agent_to_agent.allow == ["main", "ops*"]
    assert cfg.tools.sessions.visibility == "agent"
    assert cfg.tools.subagents.tools.deny == ["browser"]
    assert cfg.tools.subagents.tools.also_allow == ["sessions_list"]
    assert cfg.logging.redact_sensitive == "off"
    local = cfg.models.providers["local"]
    assert local.base_url == "http://127.0.0.1:8080/v1"
    assert local.api_key is not None and not isinstance(local.api_key, dict)
    assert local.api_key.get_secret_value() == "not-needed"
    assert local.api == "openai-completions"
    assert {name: value.get_secret_value() for name, value in (local.headers or {}).items()} == {"X-Trace": "1"}
    assert [m.id for m in local.models] == ["qwen3-8b"]
    assert cfg.channels["whatsapp"].webhook_url == "https://hooks.example.com/wa"
    assert cfg.channels["telegram"].webhook_url is None
    assert cfg.ui.keybindings == {"quit": "q,ctrl+q"}
    defaults = cfg.agents.defaults
    assert defaults.model.primary == "anthropic/claude-opus-4-6"
    assert defaults.model.fallbacks == ["openai/gpt-5.2"]
    assert defaults.sandbox.mode == "non-main"
    assert defaults.sandbox.session_tools_visibility == "all"
    assert defaults.subagents.max_spawn_depth == 2
    assert defaults.subagents.archive_after_minutes == 30
    assert cfg.agent_ids() == ["main", "ops"]
    assert cfg.agent("ops").model.primary == "local/qwen3-8b"
    assert cfg.agent("main").default is True


def test_snake_case_attribute_names_are_accepted_as_keys():
    cfg, _ = parse({"session": {"main_key": "Work", "agent_to_agent": {"max_ping_pong_turns": 2}}})
    assert cfg.session.main_key == "work"
    assert cfg.session.agent_to_agent.max_ping_pong_turns == 2


# -- D14 errors -------------------------------------------------------------------------------


def test_unparseable_json5_error_names_file_line_and_column(tmp_path):
    path = write(tmp_path, '{\n  session: {\n    scope: "global"\n    mainKey: "x",\n  },\n}\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"{path}:4:")
    assert "invalid JSON5" in message
    assert "\n" not in message


def test_trailing_garbage_error_has_line_and_column(tmp_path):
    path = write(tmp_path, "{a: 1}\n junk")
    with pytest.raises(ConfigError, match=r"config\.json5:2:2: invalid JSON5: Unexpected"):
        load_config(path)


def test_empty_file_is_invalid_json5_naming_the_file(tmp_path):
    path = write(tmp_path, "  \n")
    with pytest.raises(ConfigError, match=r"config\.json5: invalid JSON5: empty file"):
        load_config(path)


def test_top_level_not_an_object_is_an_error(tmp_path):
    path = write(tmp_path, "[1, 2]")
    with pytest.raises(ConfigError, match=r"config\.json5: top level must be an object, got array"):
        load_config(path)


def test_wrong_type_error_names_file_and_json_key_path(tmp_path):
    path = write(tmp_path, '{session: {agentToAgent: {maxPingPongTurns: "3"}}}')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == (f"{path}: session.agentToAgent.maxPingPongTurns: expected a number, got string")


def test_wrong_type_in_list_item_uses_index_in_key_path():
    message = error_of({"agents": {"list": [{"id": "main"}, {"id": 7}]}})
    assert message == "cfg.json5: agents.list[1].id: expected a string, got number"


def test_missing_required_agent_id_is_reported():
    assert error_of({"agents": {"list": [{"name": "x"}]}}) == "cfg.json5: agents.list[0].id: required"


def test_boolean_is_not_accepted_as_a_number():
    message = error_of({"agents": {"defaults": {"subagents": {"maxSpawnDepth": True}}}})
    assert "agents.defaults.subagents.maxSpawnDepth: expected a number, got boolean" in message


def test_string_is_not_accepted_as_a_boolean():
    message = error_of({"tools": {"agentToAgent": {"enabled": "true"}}})
    assert message == "cfg.json5: tools.agentToAgent.enabled: expected a boolean, got string"


def test_section_of_wrong_type_is_reported_as_expected_object():
    assert error_of({"session": [1]}) == "cfg.json5: session: expected an object, got array"


def test_enum_of_wrong_type_is_an_error_not_a_warning():
    message = error_of({"tools": {"sessions": {"visibility": 3}}})
    assert message == "cfg.json5: tools.sessions.visibility: expected a string, got number"


def test_dict_key_with_dots_is_quoted_in_key_path():
    message = error_of({"channels": {"my.chan": {"webhookUrl": 1}}})
    assert message == 'cfg.json5: channels["my.chan"].webhookUrl: expected a string, got number'


def test_several_type_errors_are_joined_with_semicolons():
    message = error_of({"session": {"mainKey": 1}, "logging": {"redactPatterns": "x"}})
    assert message == (
        "cfg.json5: session.mainKey: expected a string, got number; "
        "logging.redactPatterns: expected an array, got string"
    )


def test_float_for_int_field_is_floored_without_warning():
    cfg, warnings = parse({"session": {"agentToAgent": {"maxPingPongTurns": 2.9}}})
    assert cfg.session.agent_to_agent.max_ping_pong_turns == 2
    assert warnings == []


# -- D14 clamps and fallbacks -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "path", "attr", "expected", "why"),
    [
        (
            {"session": {"agentToAgent": {"maxPingPongTurns": 9}}},
            "session.agentToAgent.maxPingPongTurns",
            lambda c: c.session.agent_to_agent.max_ping_pong_turns,
            5,
            "9 is above the maximum 5; using 5",
        ),
        (
            {"session": {"agentToAgent": {"maxPingPongTurns": -1}}},
            "session.agentToAgent.maxPingPongTurns",
            lambda c: c.session.agent_to_agent.max_ping_pong_turns,
            0,
            "-1 is below the minimum 0; using 0",
        ),
        (
            {"agents": {"defaults": {"subagents": {"maxSpawnDepth": 0}}}},
            "agents.defaults.subagents.maxSpawnDepth",
            lambda c: c.agents.defaults.subagents.max_spawn_depth,
            1,
            "0 is below the minimum 1; using 1",
        ),
        (
            {"agents": {"defaults": {"subagents": {"maxChildrenPerAgent": 50}}}},
            "agents.defaults.subagents.maxChildrenPerAgent",
            lambda c: c.agents.defaults.subagents.max_children_per_agent,
            20,
            "50 is above the maximum 20; using 20",
        ),
        (
            {"agents": {"defaults": {"subagents": {"announceTimeoutMs": 3_000_000_000}}}},
            "agents.defaults.subagents.announceTimeoutMs",
            lambda c: c.agents.defaults.subagents.announce_timeout_ms,
            2_147_000_000,
            "3000000000 is above the maximum 2147000000; using 2147000000",
        ),
        (
            {"agents": {"defaults": {"sandbox": {"mode": "weird"}}}},
            "agents.defaults.sandbox.mode",
            lambda c: c.agents.defaults.sandbox.mode,
            "off",
            'unknown value "weird" (expected one of off, non-main, all); using off',
        ),
        (
            {"agents": {"list": [{"id": "a"}, {"id": "b", "sandbox": {"mode": "weird"}}]}},
            "agents.list[1].sandbox.mode",
            lambda c: c.agents.list[1].sandbox.mode,
            "off",
            'unknown value "weird" (expected one of off, non-main, all); using off',
        ),
        (
            {"logging": {"redactSensitive": "everything"}},
            "logging.redactSensitive",
            lambda c: c.logging.redact_sensitive,
            "tools",
            'unknown value "everything" (expected one of off, tools); using tools',
        ),
        (
            {"session": {"sendPolicy": {"rules": [{"action": "block"}]}}},
            "session.sendPolicy.rules[0].action",
            lambda c: c.session.send_policy.rules[0].action,
            "allow",
            'unknown value "block" (expected one of allow, deny); using allow',
        ),
    ],
)
def test_out_of_range_or_unknown_value_warns_with_key_path_and_falls_back(data, path, attr, expected, why):
    cfg, warnings = parse(data)
    assert attr(cfg) == expected
    assert warnings == [f"cfg.json5: {path}: {why}"]


def test_warnings_from_load_config_name_the_file(tmp_path):
    path = write(tmp_path, "{session: {agentToAgent: {maxPingPongTurns: 9}}}")
    loaded = load_config(path)
    assert loaded.config.session.agent_to_agent.max_ping_pong_turns == 5
    assert loaded.warnings == [f"{path}: session.agentToAgent.maxPingPongTurns: 9 is above the maximum 5; using 5"]


def test_non_finite_number_falls_back_to_default_with_warning(tmp_path):
    path = write(tmp_path, "{agents: {defaults: {subagents: {maxConcurrent: Infinity}}}}")
    loaded = load_config(path)
    assert loaded.config.agents.defaults.subagents.max_concurrent == 8
    assert loaded.warnings == [
        f"{path}: agents.defaults.subagents.maxConcurrent: Infinity is not a finite number; using 8"
    ]


def test_positive_fraction_of_archive_minutes_does_not_disable_archiving():
    cfg, warnings = parse({"agents": {"defaults": {"subagents": {"archiveAfterMinutes": 0.5}}}})
    assert cfg.agents.defaults.subagents.archive_after_minutes == 1
    assert warnings == []


def test_value_rules_fallbacks_are_allowed_values():
    for pattern, rule in VALUE_RULES.items():
        if isinstance(rule, Choice):
            assert rule.fallback in rule.values, pattern
        else:
            assert isinstance(rule, IntRange)
            assert rule.min is None or rule.default >= rule.min, pattern
            assert rule.max is None or rule.default <= rule.max, pattern


def test_model_validate_without_context_still_clamps():
    cfg = Config.model_validate({"session": {"agentToAgent": {"maxPingPongTurns": 99}}})
    assert cfg.session.agent_to_agent.max_ping_pong_turns == 5


# -- visibility (D1) --------------------------------------------------------------------------


def test_visibility_defaults_to_all_when_absent():
    cfg, _ = parse({"tools": {"sessions": {}}})
    assert cfg.tools.sessions.visibility == "all"


def test_visibility_is_case_insensitive():
    cfg, warnings = parse({"tools": {"sessions": {"visibility": " TREE "}}})
    assert cfg.tools.sessions.visibility == "tree"
    assert warnings == []


def test_invalid_visibility_falls_back_to_tree_with_warning():
    cfg, warnings = parse({"tools": {"sessions": {"visibility": "bogus"}}})
    assert cfg.tools.sessions.visibility == "tree"
    assert warnings == [
        'cfg.json5: tools.sessions.visibility: unknown value "bogus" '
        "(expected one of self, tree, agent, all); using tree"
    ]


# -- send policy (D6) -------------------------------------------------------------------------


def test_match_surface_is_an_alias_of_channel():
    cfg, _ = parse(
        {
            "session": {
                "sendPolicy": {"rules": [{"action": "deny", "match": {"surface": "discord", "chatType": "group"}}]}
            }
        }
    )
    match = cfg.session.send_policy.rules[0].match
    assert match.channel == "discord"
    assert match.chat_type == "group"


def test_match_channel_wins_over_surface_when_both_given():
    cfg, _ = parse({"session": {"sendPolicy": {"rules": [{"match": {"surface": "discord", "channel": "slack"}}]}}})
    assert cfg.session.send_policy.rules[0].match.channel == "slack"


def test_send_policy_rule_defaults_and_action_normalisation():
    cfg, warnings = parse(
        {
            "session": {
                "sendPolicy": {
                    "default": "DENY",
                    "rules": [{}, {"action": " Deny ", "match": {"rawKeyPrefix": "Agent:Main:"}}],
                }
            }
        }
    )
    policy = cfg.session.send_policy
    assert policy.default == "deny"
    assert policy.rules[0].action == "allow"
    assert policy.rules[0].match.channel is None
    assert policy.rules[1].action == "deny"
    assert policy.rules[1].match.raw_key_prefix == "agent:main:"
    assert warnings == []


# -- model refs -------------------------------------------------------------------------------


def test_model_as_string_becomes_object_with_primary():
    cfg, _ = parse({"agents": {"defaults": {"model": "openai/gpt-4o-mini"}}})
    assert cfg.agents.defaults.model == ModelRef(primary="openai/gpt-4o-mini", fallbacks=[])


def test_model_as_object_keeps_primary_and_fallbacks():
    cfg, _ = parse({"agents": {"list": [{"id": "a", "model": {"primary": "local/qwen", "fallbacks": ["demo"]}}]}})
    model = cfg.agents.list[0].model
    assert model.primary == "local/qwen"
    assert model.fallbacks == ["demo"]


def test_model_of_wrong_type_is_an_error():
    message = error_of({"agents": {"defaults": {"subagents": {"model": 5}}}})
    assert message == ("cfg.json5: agents.defaults.subagents.model: expected a string or an object, got number")


# -- session.mainKey / agent ids --------------------------------------------------------------


def test_main_key_is_lowercased_trimmed_and_empty_becomes_main():
    assert parse({"session": {"mainKey": "  Work "}})[0].session.main_key == "work"
    assert parse({"session": {"mainKey": "   "}})[0].session.main_key == "main"


def test_agent_ids_are_normalised_and_lookup_is_normalised():
    cfg, _ = parse({"agents": {"list": [{"id": " Research "}, {"id": "OPS"}]}})
    assert cfg.agent_ids() == ["research", "ops"]
    assert cfg.agent("Research ").id == "research"
    assert cfg.agent("nobody") is None


# -- helper methods ---------------------------------------------------------------------------


def helper_config() -> Config:
    cfg, _ = parse(
        {
            "agents": {
                "defaults": {
                    "sandbox": {"mode": "non-main"},
                    "subagents": {"allowAgents": ["research"], "requireAgentId": True},
                },
                "list": [
                    {"id": "main"},
                    {
                        "id": "ops",
                        "sandbox": {"mode": "all"},
                        "subagents": {"allowAgents": ["*"], "requireAgentId": False},
                    },
                    {"id": "coder", "sandbox": {}, "subagents": {"model": "x/y"}},
                ],
            }
        }
    )
    return cfg


def test_allow_agents_uses_agent_list_then_defaults():
    cfg = helper_config()
    assert cfg.allow_agents("ops") == ["*"]
    assert cfg.allow_agents("coder") == ["research"]
    assert cfg.allow_agents("main") == ["research"]
    assert cfg.allow_agents("unconfigured") == ["research"]
    assert Config().allow_agents("main") == []


def test_sandbox_mode_falls_back_to_defaults():
    cfg = helper_config()
    assert cfg.sandbox_mode("ops") == "all"
    assert cfg.sandbox_mode("coder") == "non-main"
    assert cfg.sandbox_mode("main") == "non-main"
    assert cfg.sandbox_mode("unconfigured") == "non-main"
    assert Config().sandbox_mode("main") == "off"


def test_require_agent_id_falls_back_to_defaults():
    cfg = helper_config()
    assert cfg.require_agent_id("ops") is False
    assert cfg.require_agent_id("coder") is True
    assert Config().require_agent_id("main") is False


# -- paths (--state, --config and their environment variables) --------------------------------


def test_state_dir_cli_value_wins_over_env(monkeypatch, tmp_path):
    monkeypatch.setenv("SESSIONS_TUI_HOME", str(tmp_path / "env"))
    assert resolve_state_dir(str(tmp_path / "cli")) == tmp_path / "cli"


def test_state_dir_env_used_without_cli_value(monkeypatch, tmp_path):
    monkeypatch.setenv("SESSIONS_TUI_HOME", str(tmp_path / "env"))
    assert resolve_state_dir(None) == tmp_path / "env"


def test_state_dir_defaults_to_xdg_data_dir(monkeypatch):
    monkeypatch.delenv("SESSIONS_TUI_HOME", raising=False)
    assert resolve_state_dir(None) == Path(platformdirs.user_data_dir("sessions-tui"))


def test_state_dir_expands_tilde(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("SESSIONS_TUI_HOME", raising=False)
    assert resolve_state_dir("~/state") == tmp_path / "state"


def test_config_path_cli_value_wins_over_env(monkeypatch, tmp_path):
    monkeypatch.setenv("SESSIONS_TUI_CONFIG", str(tmp_path / "env.json5"))
    assert resolve_config_path(str(tmp_path / "cli.json5"), tmp_path) == tmp_path / "cli.json5"


def test_config_path_env_used_without_cli_value(monkeypatch, tmp_path):
    monkeypatch.setenv("SESSIONS_TUI_CONFIG", str(tmp_path / "env.json5"))
    assert resolve_config_path(None, tmp_path / "state") == tmp_path / "env.json5"


def test_config_path_defaults_to_state_dir_config_json5(monkeypatch, tmp_path):
    monkeypatch.delenv("SESSIONS_TUI_CONFIG", raising=False)
    assert resolve_config_path(None, tmp_path) == tmp_path / "config.json5"


def test_config_path_expands_tilde(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("SESSIONS_TUI_CONFIG", raising=False)
    assert resolve_config_path("~/c.json5", tmp_path / "state") == tmp_path / "c.json5"


def test_a_config_nested_too_deeply_says_so_naming_the_file_and_where(tmp_path):
    path = write(tmp_path, "{a: " + "[" * 5000 + "]" * 5000 + "}")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"{path}:1:68: invalid JSON5: nested too deeply (more than 64 levels)"
    brackets_in_text = "{a: '" + "[" * 200 + "', // " + "{" * 200 + "\n b: [[1]]}"
    assert load_config(write(tmp_path, brackets_in_text)).config is not None  # strings and comments do not count


GHP = "ghp_Zq8Lm3Np7Rt2Vx6Bz1Cd5Fg9Hj4Kk0Ll2Mm3"


def test_config_warnings_and_errors_are_redacted_and_never_repeat_a_redact_pattern(tmp_path, capsys):
    from sessions_tui.cli import main

    literal = "HunterPassw0rd77xyz"  # a secret the user listed to have it masked
    config = tmp_path / "config.json5"
    config.write_text(
        f'{{ session: {{ sendPolicy: {{ default: "{GHP}" }} }}, tools: {{ sessions: {{ visibility: "{literal}" }} }},'
        f' logging: {{ redactPatterns: ["{literal}", "({literal}+)+$"] }} }}'
    )
    said = " ".join(load_config(config).warnings)
    assert "logging.redactPatterns[1] is unsafe" in said and '"ghp_Zq…2Mm3"' in said, said
    assert "visibility: unknown value" in said and "Lm3Np7Rt2Vx6Bz1Cd5Fg9" not in said and literal not in said, said
    assert main(["--state", str(tmp_path / "state"), "--config", str(config), "sends"]) == 0
    err = capsys.readouterr().err
    assert "warning: " in err and "Lm3Np7Rt2Vx6Bz1Cd5Fg9" not in err and literal not in err, err
    bad = tmp_path / "bad.json5"
    bad.write_text(
        f'{{ logging: {{ redactPatterns: ["{literal}"] }}, models: {{ providers: {{ {literal}: 5, {GHP}: 5 }} }} }}'
    )
    with pytest.raises(ConfigError) as refused:
        load_config(bad)  # providers named with a pasted secret: the error names where, masked
    assert str(refused.value).endswith(
        ": models.providers.Hunter…7xyz: expected an object, got number; "
        "models.providers.ghp_Zq…2Mm3: expected an object, got number"
    )


def test_ui_notify_defaults_every_channel_on_and_watches_the_operators_sends():
    cfg, _ = parse({})
    notify = cfg.ui.notify
    assert (notify.toast, notify.bell, notify.desktop, notify.watch) == (True, True, "auto", "sends")
    cfg, _ = parse({"ui": {"notify": {"toast": False, "bell": False, "desktop": False, "watch": "all"}}})
    assert (cfg.ui.notify.toast, cfg.ui.notify.bell, cfg.ui.notify.desktop, cfg.ui.notify.watch) == (
        False,
        False,
        False,
        "all",
    )
    assert parse({"ui": {"notify": {"desktop": "osc777"}}})[0].ui.notify.desktop == "osc777"


def test_ui_notify_refuses_an_unknown_channel_or_watch_naming_the_key():
    assert "ui.notify.desktop" in error_of({"ui": {"notify": {"desktop": "osc52"}}})
    assert "ui.notify.watch" in error_of({"ui": {"notify": {"watch": "everything"}}})
