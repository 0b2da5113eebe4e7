"""`sessions_history`: OpenClaw's behaviour and test cases, as docs/decisions.md D1, D2, D9, D11–D13
decide them."""

import pytest

from conftest import add_session, run_tool
from sessions_tui.engine.redaction.sanitize import HISTORY_MAX_BYTES
from sessions_tui.tools.calling.base import ToolInputError

OPEN = {"tools": {"sessions": {"visibility": "all"}, "agentToAgent": {"enabled": True}}}
TOOL_RESULT = {"role": "toolResult", "toolCallId": "c1", "toolName": "x", "content": [{"type": "text", "text": "out"}]}
ASSISTANT = {"role": "assistant", "content": [{"type": "text", "text": "hi"}]}


def test_session_key_is_required(engine):
    with pytest.raises(ToolInputError, match="^sessionKey required$"):
        run_tool(engine, "sessions_history", {})
    with pytest.raises(ToolInputError, match="^sessionKey required$"):
        run_tool(engine, "sessions_history", {"sessionKey": "   "})


def test_snake_case_session_key_is_accepted(engine):
    add_session(engine, "main", [ASSISTANT])
    assert run_tool(engine, "sessions_history", {"session_key": "main"})["sessionKey"] == "main"


def test_filters_tool_messages_by_default(engine):
    add_session(engine, "main", [TOOL_RESULT, {"role": "tool", "content": "legacy"}, ASSISTANT])
    result = run_tool(engine, "sessions_history", {"sessionKey": "main"})
    assert [m["role"] for m in result["messages"]] == ["assistant"]
    result = run_tool(engine, "sessions_history", {"sessionKey": "main", "includeTools": True})
    assert [m["role"] for m in result["messages"]] == ["toolResult", "tool", "assistant"]


def test_result_shape_of_spec_d2(engine):
    add_session(engine, "main", [ASSISTANT])
    result = run_tool(engine, "sessions_history", {"sessionKey": "main"})
    assert list(result) == [
        "sessionKey",
        "messages",
        "truncated",
        "droppedMessages",
        "contentTruncated",
        "contentRedacted",
        "bytes",
        "hardCapped",
        "totalBytes",
        "offset",
        "hasMore",
        "totalMessages",
    ]
    assert result["bytes"] == result["totalBytes"]
    assert result["totalMessages"] == 1 and result["hasMore"] is False
    assert result["messages"][0]["__openclaw"]["seq"] == 1


def test_limit_counts_raw_messages_before_tool_results_are_dropped(engine):
    add_session(engine, "main", [ASSISTANT, TOOL_RESULT, TOOL_RESULT])
    result = run_tool(engine, "sessions_history", {"sessionKey": "main", "limit": 2})
    assert result["messages"] == []
    assert result["hasMore"] is True and result["nextOffset"] == 2


def test_offset_pages_back_from_the_newest(engine):
    add_session(engine, "main", [{"role": "user", "content": f"m{i}"} for i in range(7)])
    page = run_tool(engine, "sessions_history", {"sessionKey": "main", "limit": 3})
    assert [m["content"] for m in page["messages"]] == ["m4", "m5", "m6"]
    page = run_tool(engine, "sessions_history", {"sessionKey": "main", "limit": 3, "offset": page["nextOffset"]})
    assert [m["content"] for m in page["messages"]] == ["m1", "m2", "m3"]
    assert page["offset"] == 3 and page["nextOffset"] == 6 and page["hasMore"]
    page = run_tool(engine, "sessions_history", {"sessionKey": "main", "limit": 3, "offset": 6})
    assert [m["content"] for m in page["messages"]] == ["m0"] and not page["hasMore"] and "nextOffset" not in page
    assert page["totalMessages"] == 7
    with pytest.raises(ToolInputError, match="offset must be a non-negative integer"):
        run_tool(engine, "sessions_history", {"sessionKey": "main", "offset": -2})


def test_caps_oversized_payloads_and_strips_heavy_fields(engine):
    message = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "x" * 5000},
            {"type": "thinking", "thinking": "t" * 7000, "thinkingSignature": "s" * 12000},
        ],
        "details": {"big": True},
        "usage": {"input": 1, "output": 2},
    }
    add_session(engine, "main", [message] * 80)
    result = run_tool(engine, "sessions_history", {"sessionKey": "main"})
    assert result["truncated"] and result["droppedMessages"] and result["contentTruncated"]
    assert result["contentRedacted"] is False
    assert result["bytes"] <= HISTORY_MAX_BYTES and len(result["messages"]) >= 1
    first = result["messages"][0]
    assert "details" not in first and "usage" not in first
    assert len(first["content"][0]["text"]) <= 4015
    assert "thinkingSignature" not in first["content"][1]


def test_hard_cap_replaces_a_single_huge_message(engine):
    add_session(engine, "main", [{"role": "assistant", "content": "small", "extra": "y" * 200_000}])
    result = run_tool(engine, "sessions_history", {"sessionKey": "main"})
    assert result["truncated"] and result["droppedMessages"] and result["hardCapped"]
    assert result["contentTruncated"] is False and result["contentRedacted"] is False
    assert result["bytes"] <= HISTORY_MAX_BYTES
    assert len(result["messages"]) == 1
    assert "[sessions_history omitted: message too large]" in result["messages"][0]["content"]


def test_sets_content_redacted_when_secrets_are_masked(engine):
    add_session(
        engine, "main", [{"role": "assistant", "content": "Use sk-1234567890abcdef1234 to authenticate with the API."}]
    )
    result = run_tool(engine, "sessions_history", {"sessionKey": "main"})
    assert "sk-1234567890abcdef1234" not in str(result["messages"])
    assert result["contentRedacted"] and not result["contentTruncated"] and not result["truncated"]


def test_redaction_and_truncation_flags_are_independent(engine):
    add_session(engine, "main", [{"role": "assistant", "content": "safe text " * 420 + " sk-9876543210fedcba9876 end"}])
    result = run_tool(engine, "sessions_history", {"sessionKey": "main"})
    assert result["contentRedacted"] and result["contentTruncated"] and result["truncated"]


def test_redaction_off_does_not_let_secrets_out(make_engine):
    engine = make_engine({"logging": {"redactSensitive": "off"}})  # as OpenClaw 2026.9.6: tool payloads always
    add_session(engine, "main", [{"role": "assistant", "content": "sk-1234567890abcdef1234"}])
    result = run_tool(engine, "sessions_history", {"sessionKey": "main"})
    assert result["messages"][0]["content"] == "sk-123…1234" and result["contentRedacted"]


def test_custom_redaction_patterns_apply(make_engine):
    engine = make_engine({"logging": {"redactPatterns": ["/secret=([a-z0-9]+)/i"]}})
    add_session(engine, "main", [{"role": "assistant", "content": "secret=abcdef1234567890ghij"}])
    result = run_tool(engine, "sessions_history", {"sessionKey": "main"})
    assert result["messages"][0]["content"] == "secret=abcdef…ghij"


def test_images_become_placeholders_with_their_size(engine):
    add_session(
        engine, "main", [{"role": "user", "content": [{"type": "image", "data": "A" * 3628, "mimeType": "image/png"}]}]
    )
    block = run_tool(engine, "sessions_history", {"sessionKey": "main"})["messages"][0]["content"][0]
    assert block == {"type": "image", "mimeType": "image/png", "omitted": True, "bytes": 3628}


def test_resolves_session_id_inputs(engine):
    key = add_session(engine, "discord:channel:1457165743010611293", [ASSISTANT])
    session_id = engine.store.sessions.get(key).session_id
    result = run_tool(engine, "sessions_history", {"sessionKey": session_id})
    assert result["sessionKey"] == "agent:main:discord:channel:1457165743010611293"
    assert len(result["messages"]) == 1


def test_resolves_free_text_session_ids(engine):
    key = "agent:main:main"
    engine.store.sessions.create(key, session_id="sess-group")
    engine.store.transcripts.append(key, ASSISTANT)
    assert run_tool(engine, "sessions_history", {"sessionKey": "sess-group"})["sessionKey"] == "main"


def test_errors_on_missing_session_id(engine):
    result = run_tool(engine, "sessions_history", {"sessionKey": "3f2b9c1e-8a4d-4b6f-9c2e-1d0a5b7e9f31"})
    assert result == {
        "status": "error",
        "error": "Session not found: 3f2b9c1e-8a4d-4b6f-9c2e-1d0a5b7e9f31 (use the full sessionKey from sessions_list)",
    }


def test_well_formed_key_naming_no_session_is_an_error(engine):
    result = run_tool(engine, "sessions_history", {"sessionKey": "agent:main:discord:group:nope"})
    assert result == {"status": "error", "error": "No session found: agent:main:discord:group:nope"}


def test_bare_and_prefixed_spellings_are_the_same_session(engine):
    add_session(engine, "cron:job1", [ASSISTANT])
    for spelling in ("cron:job1", "agent:main:cron:job1", "AGENT:MAIN:CRON:JOB1"):
        result = run_tool(engine, "sessions_history", {"sessionKey": spelling})
        assert result["sessionKey"] == "cron:job1" and len(result["messages"]) == 1


def test_current_is_the_requester(engine):
    key = add_session(engine, "agent:main:discord:group:1", [ASSISTANT])
    result = run_tool(engine, "sessions_history", {"sessionKey": "current"}, as_key=key)
    assert result["sessionKey"] == key


def test_a_store_entry_literally_named_current_wins(engine):
    add_session(engine, "agent:main:current", [ASSISTANT])
    other = add_session(engine, "agent:main:discord:group:1")
    result = run_tool(engine, "sessions_history", {"sessionKey": "current"}, as_key=other)
    assert result["sessionKey"] == "agent:main:current"


def test_main_means_the_requesters_own_agent_main(make_engine):
    engine = make_engine(OPEN)
    add_session(engine, "agent:ops:main", [{"role": "assistant", "content": "ops"}])
    add_session(engine, "agent:main:main", [{"role": "assistant", "content": "main"}])
    result = run_tool(engine, "sessions_history", {"sessionKey": "main"}, as_key="agent:ops:discord:group:1")
    assert result["sessionKey"] == "main" and result["messages"][0]["content"] == "ops"


# -- visibility (OpenClaw's visibility guard and its tests, with docs/decisions.md D1) -------------


def test_tree_visibility_allows_self_and_spawned_only(make_engine):
    engine = make_engine({"tools": {"sessions": {"visibility": "tree"}}})
    add_session(engine, "main", [ASSISTANT])
    add_session(engine, "agent:main:discord:direct:someone-else", [ASSISTANT])
    child = add_session(engine, "agent:main:subagent:child-1", [ASSISTANT], spawnedBy="agent:main:main")
    denied = run_tool(engine, "sessions_history", {"sessionKey": "agent:main:discord:direct:someone-else"})
    assert denied == {
        "status": "forbidden",
        "error": "Session history visibility is restricted to the current "
        "session tree (tools.sessions.visibility=tree).",
    }
    assert run_tool(engine, "sessions_history", {"sessionKey": child})["sessionKey"] == child
    # docs/decisions.md D9: "main" and "agent:main:main" are one session, so the requester always sees itself.
    assert run_tool(engine, "sessions_history", {"sessionKey": "main"})["sessionKey"] == "main"


def test_default_visibility_all_allows_other_sessions_of_the_agent(engine):
    add_session(engine, "main")
    add_session(engine, "agent:main:discord:direct:someone-else", [ASSISTANT])
    result = run_tool(engine, "sessions_history", {"sessionKey": "agent:main:discord:direct:someone-else"})
    assert len(result["messages"]) == 1


def test_self_visibility_message(make_engine):
    engine = make_engine({"tools": {"sessions": {"visibility": "self"}}})
    add_session(engine, "agent:main:telegram:group:1")
    result = run_tool(engine, "sessions_history", {"sessionKey": "agent:main:telegram:group:1"})
    assert result == {
        "status": "forbidden",
        "error": "Session history visibility is restricted to the current session (tools.sessions.visibility=self).",
    }


@pytest.mark.parametrize("visibility", ["self", "tree", "agent"])
def test_cross_agent_access_needs_visibility_all(make_engine, visibility):
    engine = make_engine({"tools": {"sessions": {"visibility": visibility}, "agentToAgent": {"enabled": True}}})
    add_session(engine, "agent:other:main", [ASSISTANT])
    result = run_tool(engine, "sessions_history", {"sessionKey": "agent:other:main"})
    assert result == {
        "status": "forbidden",
        "error": "Session history visibility is restricted. Set "
        "tools.sessions.visibility=all to allow cross-agent access.",
    }


def test_cross_agent_history_needs_agent_to_agent_enabled(engine):
    add_session(engine, "agent:other:main", [ASSISTANT])
    result = run_tool(engine, "sessions_history", {"sessionKey": "agent:other:main"})
    assert result == {
        "status": "forbidden",
        "error": "Agent-to-agent history is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent access.",
    }


def test_cross_agent_history_respects_the_allow_list(make_engine):
    engine = make_engine({"tools": {"agentToAgent": {"enabled": True, "allow": ["main"]}}})
    add_session(engine, "agent:other:main", [ASSISTANT])
    result = run_tool(engine, "sessions_history", {"sessionKey": "agent:other:main"})
    assert result == {"status": "forbidden", "error": "Agent-to-agent history denied by tools.agentToAgent.allow."}


def test_cross_agent_history_allowed_when_enabled(make_engine):
    engine = make_engine(OPEN)
    add_session(engine, "agent:other:main", [ASSISTANT])
    assert run_tool(engine, "sessions_history", {"sessionKey": "agent:other:main"})["sessionKey"] == "agent:other:main"


def test_forbidden_comes_before_not_found(make_engine):
    engine = make_engine({"tools": {"sessions": {"visibility": "self"}}})
    result = run_tool(engine, "sessions_history", {"sessionKey": "agent:main:discord:group:missing"})
    assert result["status"] == "forbidden"


def test_sandboxed_requester_clamped_to_spawned(make_engine):
    config = {"tools": {"sessions": {"visibility": "all"}, "agentToAgent": {"enabled": True, "allow": ["*"]}}}
    engine = make_engine(config)
    requester = add_session(engine, "agent:main:discord:group:req")
    add_session(engine, "agent:other:main", [ASSISTANT])
    add_session(engine, "agent:main:discord:group:peer", [ASSISTANT])
    child = add_session(engine, "agent:main:subagent:kid", [ASSISTANT], spawnedBy=requester)
    assert (
        run_tool(engine, "sessions_history", {"sessionKey": "agent:other:main"}, as_key=requester, sandboxed=True)[
            "status"
        ]
        == "forbidden"
    )
    assert run_tool(
        engine, "sessions_history", {"sessionKey": "agent:main:discord:group:peer"}, as_key=requester, sandboxed=True
    ) == {
        "status": "forbidden",
        "error": "Session not visible from this sandboxed agent session: agent:main:discord:group:peer",
    }
    assert (
        run_tool(engine, "sessions_history", {"sessionKey": child}, as_key=requester, sandboxed=True)["sessionKey"]
        == child
    )
    # An unknown sessionId from a sandboxed requester is "not visible", not "not found".
    assert run_tool(engine, "sessions_history", {"sessionKey": "random-slug"}, as_key=requester, sandboxed=True) == {
        "status": "forbidden",
        "error": "Session not visible from this sandboxed agent session: random-slug",
    }


def test_sandbox_clamp_all_keeps_configured_visibility(make_engine):
    engine = make_engine({**OPEN, "agents": {"defaults": {"sandbox": {"sessionToolsVisibility": "all"}}}})
    requester = add_session(engine, "agent:main:discord:group:req")
    add_session(engine, "agent:main:discord:group:peer", [ASSISTANT])
    result = run_tool(
        engine, "sessions_history", {"sessionKey": "agent:main:discord:group:peer"}, as_key=requester, sandboxed=True
    )
    assert result["sessionKey"] == "agent:main:discord:group:peer"


def test_sandboxed_subagent_is_not_restricted_to_spawned(make_engine):
    engine = make_engine(OPEN)
    requester = add_session(engine, "agent:main:subagent:worker")
    add_session(engine, "agent:main:discord:group:peer", [ASSISTANT])
    # Not restricted to spawned, but the sandbox clamp still makes visibility "tree".
    result = run_tool(
        engine, "sessions_history", {"sessionKey": "agent:main:discord:group:peer"}, as_key=requester, sandboxed=True
    )
    assert result["status"] == "forbidden" and "current session tree" in result["error"]
