"""The `gateway` section: OpenClaw's keys for the HTTP face, tokens kept secret everywhere."""

from __future__ import annotations

import pytest

from sessions_tui.engine.config import Config, ConfigError, parse_config
from sessions_tui.engine.config.model.secret_refs import secret_text
from sessions_tui.engine.engine import config_secrets


def test_openclaws_gateway_section_loads_with_its_other_keys_ignored():
    config, warnings = parse_config(
        {
            "gateway": {
                "mode": "local",
                "bind": "loopback",
                "port": 18789,
                "auth": {"mode": "token", "token": "t0k"},
                "tools": {"allow": ["sessions_send"], "deny": ["agents_list"]},
                "remote": {"url": "http://h:1", "token": "r3m"},
            }
        },
        source="openclaw.json",
    )
    assert warnings == []
    gateway = config.gateway
    assert gateway.port == 18789
    assert gateway.tools.allow == ["sessions_send"] and gateway.tools.deny == ["agents_list"]
    assert gateway.remote.url == "http://h:1"
    assert secret_text(gateway.auth.token) == "t0k" and secret_text(gateway.remote.token) == "r3m"
    assert "t0k" not in repr(config) and "r3m" not in str(config)


def test_the_tokens_are_among_the_secrets_masked_everywhere(monkeypatch):
    monkeypatch.setenv("GW_TOKEN", "from-the-environment")
    monkeypatch.setenv("SESSIONS_TUI_TOKEN", "the-serve-token")
    config = Config.model_validate({"gateway": {"auth": {"token": "${GW_TOKEN}"}, "remote": {"token": "remote-one"}}})
    assert {"from-the-environment", "remote-one", "the-serve-token"} <= set(config_secrets(config))


@pytest.mark.parametrize(
    ("value", "env", "expected"),
    [
        ("abc", {}, "abc"),
        ("  abc ", {}, "abc"),
        ("${X}", {"X": "v"}, "v"),
        ("${X}", {}, None),
        ("", {}, None),
        (None, {}, None),
    ],
)
def test_a_secret_is_itself_or_the_variable_it_names(value, env, expected):
    assert secret_text(value, env) == expected


def test_a_token_of_the_wrong_type_is_refused_with_its_path():
    with pytest.raises(ConfigError, match=r"gateway\.auth\.token"):
        parse_config({"gateway": {"auth": {"token": 5}}}, source="c.json5")
