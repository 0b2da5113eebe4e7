"""Which agent and session a hook runs in (engine/hooks/policy.py), in OpenClaw's order and words."""

from __future__ import annotations

import pytest

from sessions_tui.engine.config import Config
from sessions_tui.engine.hooks.policy import HookRefused, place_hook
from sessions_tui.engine.sessions.keys import MainAlias

ALIAS = MainAlias()
KNOWN = ["main", "ops"]


def _place(hooks: dict, **asked):
    config = Config.model_validate({"hooks": hooks}).hooks
    asked.setdefault("agent_id", None)
    asked.setdefault("session_key", None)
    asked.setdefault("session_mode", "isolated")
    return place_hook(config, ALIAS, KNOWN, **asked)


def test_a_hook_that_names_nothing_gets_a_fresh_hook_session_of_main():
    one, two = _place({}), _place({})
    assert one.agent_id == "main" and one.logical_key.startswith("hook:")
    assert one.session_key == f"agent:main:{one.logical_key}"
    assert one.session_key != two.session_key


def test_the_default_key_serves_when_none_is_asked():
    placed = _place({"defaultSessionKey": "hook:inbox"})
    assert placed.session_key == "agent:main:hook:inbox"


def test_an_agent_must_be_configured_and_allowed():
    assert _place({}, agent_id=" OPS ").session_key.startswith("agent:ops:hook:")
    with pytest.raises(HookRefused, match='unknown agentId "nobody"'):
        _place({}, agent_id="nobody")
    with pytest.raises(HookRefused, match="agentId is not allowed by hooks.allowedAgentIds"):
        _place({"allowedAgentIds": ["main"]}, agent_id="ops")
    with pytest.raises(HookRefused, match="agentId is not allowed"):
        _place({"allowedAgentIds": []})  # [] lets none in, the default agent neither


def test_a_requested_key_needs_the_opt_in_and_a_matching_prefix():
    with pytest.raises(HookRefused, match="set hooks.allowRequestSessionKey=true to enable"):
        _place({}, session_key="hook:x")
    opened = {"allowRequestSessionKey": True, "allowedSessionKeyPrefixes": ["hook:", "ops:"]}
    assert _place(opened, session_key="Ops:Thread").session_key == "agent:main:ops:thread"
    assert _place(opened, agent_id="ops", session_key="hook:x").session_key == "agent:ops:hook:x"
    with pytest.raises(HookRefused, match="sessionKey must start with one of: hook:, ops:"):
        _place(opened, session_key="other:x")


def test_persistent_needs_a_key_and_prefixes():
    with pytest.raises(HookRefused, match="sessionKey is required when sessionMode is persistent"):
        _place({"allowRequestSessionKey": True}, session_mode="persistent")
    with pytest.raises(HookRefused, match="allowedSessionKeyPrefixes is required when direct hook sessionMode"):
        _place({"allowRequestSessionKey": True}, session_key="hook:x", session_mode="persistent")
    opened = {"allowRequestSessionKey": True, "allowedSessionKeyPrefixes": ["hook:"]}
    placed = _place(opened, session_key="hook:x", session_mode="persistent")
    assert placed.session_key == "agent:main:hook:x"


def test_the_agent_is_checked_before_the_key():
    with pytest.raises(HookRefused, match="unknown agentId"):
        _place({}, agent_id="nobody", session_key="hook:x")
