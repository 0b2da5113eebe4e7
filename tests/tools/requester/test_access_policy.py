"""Requester context, visibility and the agent-to-agent and send policies, as OpenClaw decides
them (docs/decisions.md D1, D6)."""

import pytest

from sessions_tui.engine.config import parse_config
from sessions_tui.engine.sessions.policy import AgentToAgentPolicy, chat_type_from_key, resolve_send_policy
from sessions_tui.tools.calling.base import ToolCall
from sessions_tui.tools.requester.access import RequesterContext


def context(make_engine, config=None, key=None, sandboxed=False):
    return RequesterContext.of(ToolCall(engine=make_engine(config), agent_session_key=key, sandboxed=sandboxed))


def test_visibility_defaults_to_all_when_unset(make_engine):  # docs/decisions.md D1 (OpenClaw's default: tree)
    assert context(make_engine).visibility == "all"


def test_invalid_visibility_falls_back_to_tree(make_engine):
    cfg, warnings = parse_config({"tools": {"sessions": {"visibility": "bogus"}}})
    assert cfg.tools.sessions.visibility == "tree" and warnings


def test_visibility_is_case_insensitive(make_engine):
    assert context(make_engine, {"tools": {"sessions": {"visibility": "ALL"}}}).visibility == "all"


@pytest.mark.parametrize("configured", ["self", "agent", "all"])
def test_sandbox_clamps_to_tree_when_sandbox_visibility_is_spawned(make_engine, configured):
    ctx = context(make_engine, {"tools": {"sessions": {"visibility": configured}}}, "agent:main:main", sandboxed=True)
    assert ctx.visibility == "tree"


def test_sandbox_clamp_all_preserves_visibility(make_engine):
    config = {
        "tools": {"sessions": {"visibility": "agent"}},
        "agents": {"defaults": {"sandbox": {"sessionToolsVisibility": "all"}}},
    }
    assert context(make_engine, config, "agent:main:main", sandboxed=True).visibility == "agent"


def test_restricts_non_subagent_sandboxed_sessions_to_spawned(make_engine):
    ctx = context(make_engine, None, "agent:main:main", sandboxed=True)
    assert ctx.restrict_to_spawned and ctx.effective_requester_key == "agent:main:main"


def test_does_not_restrict_subagent_sessions_in_sandboxed_mode(make_engine):
    assert not context(make_engine, None, "agent:main:subagent:x", sandboxed=True).restrict_to_spawned


def test_no_requester_key_acts_as_main_and_is_never_restricted(make_engine):
    ctx = context(make_engine, None, None, sandboxed=True)
    assert ctx.effective_requester_key == "agent:main:main" and not ctx.restrict_to_spawned


def test_agent_to_agent_denied_when_disabled():
    policy = AgentToAgentPolicy(enabled=False)
    assert policy.is_allowed("main", "main") and not policy.is_allowed("main", "ops")


def test_agent_to_agent_allow_patterns():
    policy = AgentToAgentPolicy(enabled=True, allow=("ops-*", "main"))
    assert policy.is_allowed("ops-a", "ops-b")
    assert policy.is_allowed("main", "ops-a")
    assert not policy.is_allowed("guest", "ops-a")
    assert AgentToAgentPolicy(enabled=True, allow=("OPS-*",)).matches_allow("ops-x")  # globs ignore case
    assert not AgentToAgentPolicy(enabled=True, allow=("Main",)).matches_allow("main")  # exact ids do not
    assert AgentToAgentPolicy(enabled=True).is_allowed("a", "b")  # empty list = everyone


# -- send policy (OpenClaw's resolveSendPolicy cases) ---------------------------------------------


def policy(data):
    return parse_config({"session": {"sendPolicy": data}})[0].session.send_policy


def test_send_policy_defaults_to_allow():
    assert resolve_send_policy(None).decision == "allow"
    assert resolve_send_policy(policy({})).decision == "allow"


def test_entry_override_wins():
    verdict = resolve_send_policy(policy({"default": "allow"}), entry={"sendPolicy": "deny"})
    assert verdict.decision == "deny" and verdict.reason == "session override (deny)"
    assert resolve_send_policy(policy({"default": "deny"}), entry={"sendPolicy": "allow"}).allowed


def test_rule_match_by_channel_and_chat_type():
    p = policy({"rules": [{"action": "deny", "match": {"channel": "demo-channel", "chatType": "group"}}]})
    verdict = resolve_send_policy(p, entry={"channel": "demo-channel", "chatType": "group"}, session_key="agent:main:x")
    assert verdict.decision == "deny" and verdict.reason == "rule 1 (channel=demo-channel, chatType=group)"


def test_surface_is_an_alias_of_channel():
    p = policy({"rules": [{"action": "deny", "match": {"surface": "discord"}}]})
    assert resolve_send_policy(p, session_key="agent:main:discord:group:1").decision == "deny"


def test_rule_match_by_key_prefix_on_raw_or_stripped_key():
    p = policy({"rules": [{"action": "deny", "match": {"keyPrefix": "cron:"}}]})
    assert resolve_send_policy(p, session_key="cron:job-1").decision == "deny"
    assert resolve_send_policy(p, session_key="agent:main:cron:job-1").decision == "deny"
    assert resolve_send_policy(p, session_key="agent:main:main").decision == "allow"


def test_rule_match_by_raw_key_prefix():
    p = policy({"rules": [{"action": "deny", "match": {"rawKeyPrefix": "agent:main:demo-channel:"}}]})
    assert resolve_send_policy(p, session_key="agent:main:demo-channel:group:dev").decision == "deny"
    assert resolve_send_policy(p, session_key="agent:main:other-channel:group:dev").decision == "allow"


def test_first_deny_wins_and_allow_beats_default_deny():
    p = policy(
        {
            "default": "deny",
            "rules": [
                {"action": "allow", "match": {"channel": "discord"}},
                {"action": "deny", "match": {"chatType": "group"}},
            ],
        }
    )
    assert resolve_send_policy(p, session_key="agent:main:discord:group:1").reason == "rule 2 (chatType=group)"
    assert resolve_send_policy(p, entry={"channel": "discord"}, session_key="agent:main:discord:direct:bob").allowed
    assert resolve_send_policy(p, session_key="agent:main:main").reason == "default deny"


@pytest.mark.parametrize(
    "key, expected",
    [
        ("agent:main:discord:group:1", "group"),
        ("slack:channel:c1", "channel"),
        ("agent:main:telegram:direct:x", "direct"),
        ("agent:main:dm:x", "direct"),
        ("group:abc", "group"),
        ("120363-123@g.us", "group"),
        ("discord:guild-1:channel-2", "channel"),
        ("agent:main:main", None),
    ],
)
def test_chat_type_from_key(key, expected):
    assert chat_type_from_key(key) == expected
