"""`sessions_list`: OpenClaw's behaviour and test cases, as docs/decisions.md D1, D3, D8–D11 decide them."""

import json

import pytest

from conftest import NOW_MS, add_session, run_tool
from sessions_tui.tools.calling.base import ToolInputError
from sessions_tui.tools.calling.registry import TOOLS

OPEN = {"tools": {"sessions": {"visibility": "all"}, "agentToAgent": {"enabled": True}}}


def keys(result):
    return [row["key"] for row in result["sessions"]]


def _walk_types(schema):
    if isinstance(schema, dict):
        if "type" in schema:
            yield schema["type"]
        for value in schema.values():
            yield from _walk_types(value)


def test_tool_schemas_use_number_never_integer_and_no_top_level_unions():
    for name, spec in TOOLS.items():
        assert "integer" not in list(_walk_types(spec.parameters)), name
        assert "anyOf" not in spec.parameters and "oneOf" not in spec.parameters
    props = TOOLS["sessions_list"].parameters["properties"]
    assert props["limit"]["type"] == props["activeMinutes"]["type"] == props["messageLimit"]["type"] == "number"
    assert TOOLS["sessions_history"].parameters["properties"]["limit"]["type"] == "number"


@pytest.fixture
def populated(make_engine):
    engine = make_engine(OPEN)
    add_session(
        engine,
        "main",
        [
            {"role": "toolResult", "toolCallId": "c1", "content": [{"type": "text", "text": "tool out"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
        ],
        lastChannel="whatsapp",
        updatedAt=NOW_MS - 1000,
    )
    add_session(
        engine,
        "discord:group:dev",
        [],
        channel="discord",
        status="running",
        startedAt=100,
        runtimeMs=42,
        estimatedCostUsd=0.0042,
        childSessions=["agent:main:subagent:worker"],
        updatedAt=NOW_MS - 2000,
    )
    add_session(engine, "agent:main:dashboard:child", parentSessionKey="agent:main:main", updatedAt=NOW_MS - 3000)
    add_session(engine, "agent:main:subagent:worker", spawnedBy="agent:main:main", updatedAt=NOW_MS - 4000)
    add_session(engine, "cron:job-1", updatedAt=NOW_MS - 5000)
    engine.store.sessions.create("global", {"updatedAt": NOW_MS})
    engine.store.sessions.create("unknown", {"updatedAt": NOW_MS})
    return engine


def test_filters_kinds_and_includes_messages(populated):
    result = run_tool(populated, "sessions_list", {"messageLimit": 1})
    assert result["count"] == 5
    assert keys(result) == [
        "main",
        "agent:main:discord:group:dev",
        "agent:main:dashboard:child",
        "agent:main:subagent:worker",
        "cron:job-1",
    ]
    main = result["sessions"][0]
    assert main["kind"] == "main" and main["channel"] == "whatsapp"
    assert [m["role"] for m in main["messages"]] == ["assistant"]
    assert main["messages"][0]["content"][0]["text"] == "hi"
    group = result["sessions"][1]
    assert (group["kind"], group["channel"], group["status"]) == ("group", "discord", "running")
    assert (group["startedAt"], group["runtimeMs"], group["estimatedCostUsd"]) == (100, 42, 0.0042)
    assert group["childSessions"] == ["agent:main:subagent:worker"]
    assert result["sessions"][2]["parentSessionKey"] == "main"
    assert result["sessions"][3]["spawnedBy"] == "main"
    cron = run_tool(populated, "sessions_list", {"kinds": ["cron"]})
    assert cron["count"] == 1 and cron["sessions"][0]["kind"] == "cron"
    assert cron["sessions"][0]["channel"] == "internal"


def test_messages_only_when_message_limit_is_positive(populated):
    result = run_tool(populated, "sessions_list", {})
    assert all("messages" not in row for row in result["sessions"])


def test_unknown_kinds_are_dropped_and_an_empty_filter_lists_everything(populated):
    assert run_tool(populated, "sessions_list", {"kinds": ["bogus"]})["count"] == 5
    assert run_tool(populated, "sessions_list", {"kinds": " CRON "})["count"] == 1


def test_global_and_unknown_are_never_listed(populated):
    assert "global" not in keys(run_tool(populated, "sessions_list", {}))
    assert "unknown" not in keys(run_tool(populated, "sessions_list", {}))


def test_global_scope_shows_the_global_session_as_main(make_engine):
    engine = make_engine({"session": {"scope": "global"}})
    engine.store.sessions.create("global", {"updatedAt": NOW_MS})
    result = run_tool(engine, "sessions_list", {})
    assert keys(result) == ["main"] and result["sessions"][0]["kind"] == "main"


def test_inline_messages_are_sanitised_like_history(make_engine):
    engine = make_engine()
    add_session(
        engine,
        "main",
        [
            {"role": "user", "content": "key sk-1234567890abcdef1234 " + "x" * 5000},
            {"role": "user", "content": [{"type": "image", "data": "QUJD" * 10, "mimeType": "image/png"}]},
        ],
    )
    row = run_tool(engine, "sessions_list", {"messageLimit": 5})["sessions"][0]
    text = row["messages"][0]["content"]
    assert "sk-1234567890abcdef1234" not in text and text.endswith("…(truncated)…")
    assert row["messages"][1]["content"][0] == {"type": "image", "mimeType": "image/png", "omitted": True, "bytes": 40}


def test_message_limit_is_clamped_to_20(make_engine):
    engine = make_engine()
    add_session(engine, "main", [{"role": "user", "content": f"m{i}"} for i in range(30)])
    row = run_tool(engine, "sessions_list", {"messageLimit": 50})["sessions"][0]
    assert len(row["messages"]) == 20 and row["messages"][-1]["content"] == "m29"


def test_limit_defaults_to_100_clamps_to_200_and_pages_with_offset(make_engine):
    engine = make_engine()
    for i in range(250):
        add_session(engine, f"agent:main:s{i:03d}", updatedAt=NOW_MS - i)
    first = run_tool(engine, "sessions_list", {})
    assert first["count"] == 100 and first["hasMore"] and first["nextOffset"] == 100
    assert run_tool(engine, "sessions_list", {"limit": 1000})["count"] == 200
    assert run_tool(engine, "sessions_list", {"limit": "2"})["count"] == 2  # a string of one, as the gateway takes it
    for bad in (0, 2.9, -1):  # the gateway refuses them (tests/fixtures/openclaw-2026.9.6/numbers/)
        with pytest.raises(ToolInputError, match="^limit must be a positive integer$"):
            run_tool(engine, "sessions_list", {"limit": bad})
    last = run_tool(engine, "sessions_list", {"limit": 100, "offset": 200})
    assert last["count"] == 50 and not last["hasMore"] and "nextOffset" not in last
    assert keys(last)[0] == "agent:main:s200"


def test_offset_must_be_a_non_negative_integer(engine):
    for bad in (-1, 1.5, "x", True):
        with pytest.raises(ToolInputError, match="offset must be a non-negative integer"):
            run_tool(engine, "sessions_list", {"offset": bad})


def test_null_and_blank_numbers_are_absent(make_engine):
    engine = make_engine()
    add_session(engine, "main")
    assert run_tool(engine, "sessions_list", {"limit": "5", "activeMinutes": None, "messageLimit": " "})["count"] == 1


def test_active_minutes_keeps_recent_sessions_only(make_engine):
    engine = make_engine()
    add_session(engine, "agent:main:fresh", updatedAt=NOW_MS - 4 * 60_000)
    add_session(engine, "agent:main:stale", updatedAt=NOW_MS - 6 * 60_000)
    add_session(engine, "agent:main:now", updatedAt=NOW_MS - 30_000)
    assert keys(run_tool(engine, "sessions_list", {"activeMinutes": 5})) == ["agent:main:now", "agent:main:fresh"]
    assert keys(run_tool(engine, "sessions_list", {"activeMinutes": 1})) == ["agent:main:now"]
    with pytest.raises(ToolInputError, match="^activeMinutes must be a positive integer$"):
        run_tool(engine, "sessions_list", {"activeMinutes": 0.5})


def test_limit_applies_before_the_kind_filter(make_engine):
    engine = make_engine()
    add_session(engine, "agent:main:other", updatedAt=NOW_MS)
    add_session(engine, "cron:x", updatedAt=NOW_MS - 1)
    assert run_tool(engine, "sessions_list", {"limit": 1, "kinds": ["cron"]})["count"] == 0


def test_transcript_path_points_at_the_mirror(populated):
    row = run_tool(populated, "sessions_list", {"kinds": ["main"]})["sessions"][0]
    session = populated.store.sessions.get("agent:main:main")
    assert row["transcriptPath"] == session.mirror_path
    assert row["transcriptPath"].endswith(f"agents/main/sessions/{session.session_id}.jsonl")


def test_delivery_context_thread_ids_keep_their_type(make_engine):
    engine = make_engine()
    add_session(
        engine,
        "agent:main:a",
        deliveryContext={"channel": "slack", "to": "channel:C1", "threadId": "thread-1"},
        updatedAt=NOW_MS,
    )
    add_session(
        engine,
        "agent:main:b",
        deliveryContext={"channel": "telegram", "to": "123", "threadId": 271},
        updatedAt=NOW_MS - 1,
    )
    rows = run_tool(engine, "sessions_list", {})["sessions"]
    assert rows[0]["deliveryContext"]["threadId"] == "thread-1"
    assert rows[1]["deliveryContext"]["threadId"] == 271
    assert rows[0]["lastChannel"] == "slack" and rows[0]["lastTo"] == "channel:C1"


def test_live_session_settings_pass_through(make_engine):
    engine = make_engine()
    add_session(
        engine,
        "main",
        fastMode=True,
        reasoningLevel="high",
        elevatedLevel="on",
        responseUsage="tokens",
        thinkingLevel="low",
        verboseLevel="on",
        systemSent=True,
        abortedLastRun=False,
        sendPolicy="deny",
    )
    row = run_tool(engine, "sessions_list", {})["sessions"][0]
    for field, value in {
        "fastMode": True,
        "reasoningLevel": "high",
        "elevatedLevel": "on",
        "responseUsage": "tokens",
        "thinkingLevel": "low",
        "verboseLevel": "on",
        "systemSent": True,
        "abortedLastRun": False,
        "sendPolicy": "deny",
    }.items():
        assert row[field] == value, field


def test_channel_falls_back_to_origin_provider(make_engine):
    engine = make_engine()
    add_session(engine, "agent:main:x", origin={"provider": "discord", "accountId": "acc"})
    row = run_tool(engine, "sessions_list", {})["sessions"][0]
    assert row["channel"] == "discord" and row["origin"] == {"provider": "discord", "accountId": "acc"}


def test_unknown_status_values_are_omitted(make_engine):
    engine = make_engine()
    add_session(engine, "main", status="idle")
    assert "status" not in run_tool(engine, "sessions_list", {})["sessions"][0]


def test_other_agents_are_filtered_out_when_agent_to_agent_is_disabled(make_engine):
    engine = make_engine({"tools": {"sessions": {"visibility": "all"}}})
    add_session(engine, "agent:main:main")
    add_session(engine, "agent:other:main")
    result = run_tool(engine, "sessions_list", {})
    assert result["count"] == 1 and keys(result) == ["main"]


def test_default_visibility_all_lists_every_session_of_the_agent(make_engine):
    engine = make_engine()  # docs/decisions.md D1: default visibility all
    add_session(engine, "main")
    add_session(engine, "agent:main:discord:direct:someone-else")
    assert run_tool(engine, "sessions_list", {})["count"] == 2


def test_tree_visibility_lists_self_and_spawned(make_engine):
    engine = make_engine({"tools": {"sessions": {"visibility": "tree"}}})
    add_session(engine, "main", updatedAt=NOW_MS)
    add_session(engine, "agent:main:subagent:child", spawnedBy="agent:main:main", updatedAt=NOW_MS - 1)
    add_session(engine, "agent:main:discord:group:1", updatedAt=NOW_MS - 2)
    assert keys(run_tool(engine, "sessions_list", {})) == ["main", "agent:main:subagent:child"]


def test_self_visibility_lists_only_the_requester(make_engine):
    engine = make_engine({"tools": {"sessions": {"visibility": "self"}}})
    add_session(engine, "main")
    add_session(engine, "agent:main:discord:group:1")
    assert keys(run_tool(engine, "sessions_list", {}, as_key="agent:main:discord:group:1")) == [
        "agent:main:discord:group:1"
    ]


def test_sandboxed_requester_sees_only_sessions_it_spawned(make_engine):
    engine = make_engine(OPEN)
    requester = add_session(engine, "agent:main:discord:group:req", updatedAt=NOW_MS)
    add_session(engine, "agent:main:subagent:mine", spawnedBy=requester, updatedAt=NOW_MS - 1)
    add_session(engine, "agent:main:subagent:theirs", spawnedBy="agent:main:main", updatedAt=NOW_MS - 2)
    add_session(engine, "main", updatedAt=NOW_MS - 3)
    result = run_tool(engine, "sessions_list", {}, as_key=requester, sandboxed=True)
    assert keys(result) == ["agent:main:subagent:mine"]


def test_agent_to_agent_allow_patterns_filter_listing(make_engine):
    engine = make_engine(
        {"tools": {"sessions": {"visibility": "all"}, "agentToAgent": {"enabled": True, "allow": ["main", "ops-*"]}}}
    )
    add_session(engine, "agent:main:main", updatedAt=NOW_MS)
    add_session(engine, "agent:ops-a:main", updatedAt=NOW_MS - 1)
    add_session(engine, "agent:guest:main", updatedAt=NOW_MS - 2)
    assert keys(run_tool(engine, "sessions_list", {})) == ["main", "agent:ops-a:main"]


def test_another_agent_sees_its_own_main_as_main(make_engine):
    engine = make_engine(OPEN)
    add_session(engine, "agent:main:main", updatedAt=NOW_MS)
    add_session(engine, "agent:ops:main", updatedAt=NOW_MS - 1)
    assert keys(run_tool(engine, "sessions_list", {}, as_key="agent:ops:main")) == ["agent:main:main", "main"]


def test_archived_sessions_are_listed_only_when_asked(make_engine):
    engine = make_engine()
    key = add_session(engine, "agent:main:subagent:old", spawnedBy="agent:main:main")
    engine.store.sessions.set_archived(key, NOW_MS)
    assert run_tool(engine, "sessions_list", {})["count"] == 0
    row = run_tool(engine, "sessions_list", {"includeArchived": True})["sessions"][0]
    assert row["archived"] is True


def test_result_is_json_serialisable_and_omits_absent_fields(populated):
    result = run_tool(populated, "sessions_list", {})
    text = json.dumps(result)
    assert "null" not in text


def test_rows_are_what_session_row_declares_in_its_order(make_engine):
    """Rows are built as dicts, without a validation pass: each must be exactly what `SessionRow`
    makes of it (its fields, their types, its order), with every field given a value here."""
    from sessions_tui.tools.reading.session_row import SessionRow

    engine = make_engine(OPEN)
    add_session(
        engine,
        "discord:group:dev",
        [{"role": "assistant", "content": [{"type": "text", "text": "hi"}]}],
        origin={"provider": "discord", "accountId": "acct", "extra": 1},
        spawnedBy="agent:main:main",
        parentSessionKey="agent:main:main",
        label="dev",
        displayName="Dev room",
        deliveryContext={"channel": "discord", "to": "room", "accountId": "acct", "threadId": 7, "x": "y"},
        model="m1",
        contextTokens=1000,
        totalTokens=12.5,
        estimatedCostUsd=0.0042,
        status="running",
        startedAt=100,
        endedAt=200,
        runtimeMs=42,
        childSessions=["agent:main:subagent:worker", 3],
        thinkingLevel="high",
        fastMode=True,
        verboseLevel="on",
        reasoningLevel="low",
        elevatedLevel="off",
        responseUsage="full",
        systemSent=False,
        abortedLastRun=True,
        sendPolicy="allow",
        lastChannel="discord",
        lastTo="room",
        lastAccountId="acct",
        updatedAt=NOW_MS - 1000,
    )
    add_session(engine, "agent:main:dashboard:bare", fastMode="yes", status="weird", updatedAt=NOW_MS - 2000)
    rows = run_tool(engine, "sessions_list", {"messageLimit": 1})["sessions"]
    declared = list(SessionRow.model_fields)
    full = next(row for row in rows if row["key"].endswith("discord:group:dev"))
    assert set(declared) - set(full) == {"archived", "messagesCapped"}  # every other field exercised
    for row in rows:
        assert row == SessionRow.model_validate(row).dump()
        assert list(row) == [name for name in declared if name in row]
        for nested in ("origin", "deliveryContext"):
            if nested in row:
                assert list(row[nested]) == list(SessionRow.model_validate(row).dump()[nested])
