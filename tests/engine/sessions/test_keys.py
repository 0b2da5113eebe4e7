"""The key model: OpenClaw's key helpers, main alias, kind and channel vectors, and docs/decisions.md
D9–D10."""

import pytest

from sessions_tui.engine.sessions.keys import (
    MainAlias,
    agent_id_of,
    canonical_key,
    classify_session_kind,
    derive_channel,
    display_key,
    internal_key,
    is_cron_run_session_key,
    is_cron_session_key,
    is_subagent_session_key,
    is_valid_agent_id,
    looks_like_session_id,
    looks_like_session_key,
    normalize_agent_id,
    normalize_main_key,
    parse_agent_session_key,
    parse_session_label,
    should_resolve_session_id_input,
    subagent_depth,
)

UUID = "3f2b9c1e-8a4d-4b6f-9c2e-1d0a5b7e9f31"
DEFAULT = MainAlias.of()


def test_normalize_main_key():
    assert normalize_main_key(" Work ") == "work"
    assert normalize_main_key("") == "main"
    assert normalize_main_key(None) == "main"


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("", "main"),
        ("  ", "main"),
        ("Research", "research"),
        ("my-research_agent01", "my-research_agent01"),
        ("Ops Team!", "ops-team"),
        ("../../../etc/passwd", "etc-passwd"),
        ("a" * 70, "a" * 64),
        ("!!!", "main"),
    ],
)
def test_normalize_agent_id(raw, expected):
    assert normalize_agent_id(raw) == expected


def test_is_valid_agent_id():
    assert is_valid_agent_id("my-research_agent01")
    assert not is_valid_agent_id("../../../etc/passwd")
    assert not is_valid_agent_id("a" * 65)
    assert is_valid_agent_id("a" * 64)
    assert not is_valid_agent_id("")


def test_parse_agent_session_key():
    parsed = parse_agent_session_key(" Agent:Ops:Discord:Group:1 ")
    assert (parsed.agent_id, parsed.rest) == ("ops", "discord:group:1")
    assert parse_agent_session_key("agent:main") is None
    assert parse_agent_session_key("cron:job") is None
    assert parse_agent_session_key("agent::main:main").rest == "main"


def test_agent_of_bare_keys_is_main():
    assert agent_id_of("cron:job-1") == "main"
    assert agent_id_of("agent:ops:main") == "ops"


def test_subagent_cron_and_depth_helpers():
    assert is_subagent_session_key("agent:main:subagent:x")
    assert is_subagent_session_key("subagent:x")
    assert not is_subagent_session_key("agent:main:main")
    assert is_cron_session_key("agent:main:cron:x")
    assert not is_cron_session_key("cron:x")  # as in OpenClaw: bare cron keys are not canonical cron keys
    assert is_cron_run_session_key("agent:main:cron:job:run:abc")
    assert not is_cron_run_session_key("agent:main:cron:job")
    assert subagent_depth("agent:main:subagent:a:subagent:b") == 2


def test_shape_detection_vectors():
    assert looks_like_session_id(UUID)
    assert not looks_like_session_id("not-a-uuid")
    for key in ["main", "current", "agent:main:main", "cron:daily-report", "node:macbook", "telegram:group:123"]:
        assert looks_like_session_key(key), key
    assert not looks_like_session_key("random-slug")
    assert should_resolve_session_id_input("agent:main:main") is False
    assert should_resolve_session_id_input("current") is False
    assert should_resolve_session_id_input(UUID) is True
    assert should_resolve_session_id_input("random-slug") is True


def test_session_label_errors():
    assert parse_session_label("  dev ") == "dev"
    with pytest.raises(ValueError, match="invalid label: must be a string"):
        parse_session_label(3)
    with pytest.raises(ValueError, match="invalid label: empty"):
        parse_session_label("   ")
    with pytest.raises(ValueError, match=r"invalid label: too long \(max 512\)"):
        parse_session_label("x" * 513)


def test_main_alias_vectors():
    g = MainAlias.of(" Primary ", "global")
    assert (g.main_key, g.alias, g.scope) == ("primary", "global", "global")
    d = MainAlias.of()
    assert (d.main_key, d.alias, d.scope) == ("main", "main", "per-sender")


def test_display_and_internal_mapping_vectors():
    g = MainAlias.of(None, "global")
    assert display_key("global", g) == "main"
    assert display_key("main", DEFAULT) == "main"
    assert display_key("agent:ops:main", DEFAULT) == "agent:ops:main"
    assert internal_key("main", g) == "global"
    assert internal_key("current", DEFAULT, "agent:main:discord:group:1") == "agent:main:discord:group:1"
    assert internal_key("current", DEFAULT) == "current"


def test_canonical_spellings_name_one_session():
    assert (
        canonical_key("cron:job1", DEFAULT) == canonical_key("agent:main:cron:job1", DEFAULT) == "agent:main:cron:job1"
    )
    assert canonical_key("main", DEFAULT) == "agent:main:main"
    assert canonical_key("main", DEFAULT, "ops") == "agent:ops:main"
    assert canonical_key("Discord:Group:Dev", DEFAULT) == "agent:main:discord:group:dev"
    assert canonical_key("main", MainAlias.of(None, "global")) == "global"
    assert canonical_key("agent:ops:main", MainAlias.of("work")) == "agent:ops:work"
    assert canonical_key("unknown", DEFAULT) == "unknown"


def test_display_is_relative_to_the_requester_agent():
    assert display_key("agent:main:main", DEFAULT, "main") == "main"
    assert display_key("agent:main:main", DEFAULT, "ops") == "agent:main:main"
    assert display_key("agent:ops:main", DEFAULT, "ops") == "main"
    assert display_key("agent:main:cron:nightly", DEFAULT) == "cron:nightly"
    assert display_key("agent:main:hook:abc", DEFAULT) == "hook:abc"
    assert display_key("agent:main:node-mac", DEFAULT) == "node-mac"
    assert display_key("agent:ops:cron:nightly", DEFAULT) == "agent:ops:cron:nightly"
    assert display_key("agent:main:discord:group:1", DEFAULT) == "agent:main:discord:group:1"
    assert display_key("agent:main:subagent:x", DEFAULT) == "agent:main:subagent:x"


@pytest.mark.parametrize(
    "key, gateway_kind, expected",
    [
        ("agent:main:main", None, "main"),
        ("agent:ops:main", None, "main"),
        ("agent:main:cron:x", None, "cron"),
        ("cron:x", None, "cron"),
        ("agent:main:hook:x", None, "hook"),
        ("agent:main:node-mac", None, "node"),
        ("node:mac", None, "node"),
        ("agent:main:discord:group:1", None, "group"),
        ("discord:channel:1", None, "group"),
        ("agent:main:x", "group", "group"),
        ("agent:main:subagent:x", None, "other"),
        ("agent:main:discord:direct:bob", None, "other"),
    ],
)
def test_classify_kind_on_the_rest_of_the_key(key, gateway_kind, expected):
    assert classify_session_kind(key, gateway_kind, DEFAULT) == expected


def test_classify_global_is_main_under_global_scope():
    assert classify_session_kind("global", None, MainAlias.of(None, "global")) == "main"


@pytest.mark.parametrize(
    "key, kind, channel, last, expected",
    [
        ("agent:main:cron:x", "cron", "discord", None, "internal"),
        ("agent:main:hook:x", "hook", None, None, "internal"),
        ("agent:main:node-x", "node", None, None, "internal"),
        ("agent:main:main", "main", None, "whatsapp", "whatsapp"),
        ("agent:main:discord:group:1", "group", " telegram ", None, "telegram"),
        ("agent:main:discord:group:1", "group", None, None, "discord"),
        ("discord:group:1", "group", None, None, "discord"),
        ("agent:main:subagent:x", "other", None, None, "unknown"),
    ],
)
def test_derive_channel(key, kind, channel, last, expected):
    assert derive_channel(key, kind, channel, last) == expected
