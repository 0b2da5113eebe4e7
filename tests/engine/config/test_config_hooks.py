"""The `hooks` section: OpenClaw's keys for inbound hooks, checked as OpenClaw's `resolveHooksConfig` checks them."""

from __future__ import annotations

import pytest

from sessions_tui.engine.config import Config, ConfigError, parse_config
from sessions_tui.engine.config.sections.hooks import DEFAULT_HOOKS_MAX_BODY_BYTES, key_allowed
from sessions_tui.engine.engine import config_secrets


def test_off_by_default_with_openclaws_defaults():
    hooks = Config().hooks
    assert hooks.enabled is False and hooks.path == "/hooks"
    assert hooks.max_body_bytes == DEFAULT_HOOKS_MAX_BODY_BYTES == 262144
    assert hooks.allow_request_session_key is False
    assert hooks.allowed_session_key_prefixes is None and hooks.default_session_key is None


def test_openclaws_section_loads_with_the_keys_not_used_ignored():
    config, warnings = parse_config(
        {
            "hooks": {
                "enabled": True,
                "token": "hook-secret",
                "path": "ingress/",
                "allowedAgentIds": ["Main", "ops"],
                "allowRequestSessionKey": True,
                "allowedSessionKeyPrefixes": ["Hook:", "  ", "hook:"],
                "presets": ["gmail"],
                "mappings": [{"match": {"path": "github"}, "action": "agent"}],
            }
        },
        source="openclaw.json",
    )
    assert warnings == []
    hooks = config.hooks
    assert hooks.path == "/ingress"
    assert hooks.secret() == "hook-secret" and "hook-secret" not in repr(config)
    assert hooks.allowed_agent_ids == ["main", "ops"]
    assert hooks.allowed_session_key_prefixes == ["hook:"]


def test_a_star_or_no_list_lets_every_agent_and_an_empty_list_none():
    assert Config.model_validate({"hooks": {"allowedAgentIds": ["*", "x"]}}).hooks.allowed_agent_ids is None
    assert Config.model_validate({"hooks": {"allowedAgentIds": []}}).hooks.allowed_agent_ids == []


@pytest.mark.parametrize(
    ("section", "said"),
    [
        ({"enabled": True}, "hooks: hooks.enabled requires hooks.token"),
        ({"enabled": True, "token": "  "}, "hooks: hooks.enabled requires hooks.token"),
        ({"path": "/"}, "hooks.path: may not be '/'"),
        ({"path": "///"}, "hooks.path: may not be '/'"),
        (
            {"defaultSessionKey": "ops:x", "allowedSessionKeyPrefixes": ["hook:"]},
            "hooks: hooks.defaultSessionKey must match hooks.allowedSessionKeyPrefixes",
        ),
        (
            {"allowedSessionKeyPrefixes": ["ops:"]},
            "hooks: hooks.allowedSessionKeyPrefixes must include 'hook:' when hooks.defaultSessionKey is unset",
        ),
        ({"maxBodyBytes": 0}, "hooks.maxBodyBytes"),
        ({"enabled": "yes"}, "hooks.enabled: expected a boolean"),
    ],
)
def test_what_openclaw_refuses_is_a_config_error(section, said):
    with pytest.raises(ConfigError) as caught:
        parse_config({"hooks": section}, source="f.json")
    assert said in str(caught.value)


def test_a_default_key_inside_the_prefixes_needs_no_hook_prefix():
    hooks = Config.model_validate(
        {"hooks": {"defaultSessionKey": " ops:inbox ", "allowedSessionKeyPrefixes": ["ops:"]}}
    ).hooks
    assert hooks.default_session_key == "ops:inbox"


def test_the_token_is_masked_everywhere(monkeypatch):
    monkeypatch.setenv("HOOK_TOKEN", "from-env-hook")
    config = Config.model_validate({"hooks": {"enabled": True, "token": "${HOOK_TOKEN}"}})
    assert config.hooks.secret() == "from-env-hook"
    assert "from-env-hook" in config_secrets(config)


def test_prefixes_match_any_case():
    assert key_allowed("HOOK:Abc", ["hook:"])
    assert not key_allowed("ops:x", ["hook:"])
    assert key_allowed("anything", None)
