"""`sessions_send` on the demo model: gating, results, ping-pong, announce, policy (docs/decisions.md D6, D8,
D13)."""

import pytest

from conftest import add_session, call_tool
from sessions_tui.engine.events import SendProgress
from sessions_tui.engine.messaging.audit import audit_entries
from sessions_tui.engine.messaging.commands import run_owner_command
from sessions_tui.tools.calling.base import ToolInputError

GROUP = "agent:main:discord:group:dev"
OPEN = {"tools": {"sessions": {"visibility": "all"}, "agentToAgent": {"enabled": True}}}
UUID_RE = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"


def roles(engine, key):
    return [m["role"] for m in engine.store.transcripts.history(key).messages]


async def test_message_is_required(live_engine):
    engine = live_engine()
    with pytest.raises(ToolInputError, match="^message required$"):
        await call_tool(engine, "sessions_send", {"sessionKey": "main"})


async def test_both_key_and_label_is_an_error(live_engine):
    result = await call_tool(live_engine(), "sessions_send", {"sessionKey": "main", "label": "x", "message": "m"})
    assert result["status"] == "error" and result["error"] == "Provide either sessionKey or label (not both)."
    assert len(result["runId"]) == 36


async def test_neither_key_nor_label_is_an_error(live_engine):
    result = await call_tool(live_engine(), "sessions_send", {"message": "m"})
    assert result["status"] == "error" and result["error"] == "Either sessionKey or label is required"


async def test_fire_and_forget_returns_accepted_and_the_run_goes_on(live_engine):
    engine = live_engine()
    add_session(engine, GROUP)
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hello", "timeoutSeconds": 0})
    assert result["status"] == "accepted" and result["sessionKey"] == GROUP
    assert result["delivery"] == {"status": "pending", "mode": "announce"}
    await engine.drain()
    assert engine.runs.get(result["runId"]).status == "ok"
    assert roles(engine, GROUP)[:2] == ["user", "assistant"]


async def test_wait_returns_ok_with_the_new_reply(live_engine):
    engine = live_engine()
    add_session(engine, GROUP)
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "count the words in: a b"})
    assert list(result) == ["runId", "status", "reply", "sessionKey", "delivery"]
    assert result["status"] == "ok" and result["reply"] == "That text has 2 words."
    await engine.drain()


async def test_timeout_leaves_the_run_going_and_its_reply_lands(live_engine):
    engine = live_engine({"models": {"demo": {"latencyMs": 1500}}})
    add_session(engine, GROUP)
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hi", "timeoutSeconds": 1})
    assert result["status"] == "timeout" and result["sessionKey"] == GROUP and "the run goes on" in result["error"]
    await engine.drain()
    assert engine.runs.get(result["runId"]).status == "ok"
    assert roles(engine, GROUP) == ["user", "assistant"]


async def test_the_a2a_context_reaches_the_target(live_engine):
    engine = live_engine()
    add_session(engine, GROUP)
    add_session(engine, "main")
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "ping"}, as_key="main")
    assert result["reply"] == "Received from agent:main:main: ping. On it."
    first = engine.store.transcripts.history(GROUP).messages[0]
    assert (
        first["provenance"]
        == {
            "kind": "inter_session",
            "sourceSessionKey": "agent:main:main",
            "sourceChannel": None,
            "sourceTool": "sessions_send",
        }
        or first["provenance"]["sourceTool"] == "sessions_send"
    )
    await engine.drain()


async def test_ping_pong_alternates_until_reply_skip_then_announces(live_engine):
    engine = live_engine()
    add_session(engine, GROUP)
    add_session(engine, "main")
    progress = []
    engine.events.subscribe(lambda e: progress.append(e) if isinstance(e, SendProgress) else None)
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "ping"}, as_key="main")
    await engine.drain()
    turns = [(e.turn, e.speaker, e.text) for e in progress if e.phase == "ping_pong"]
    # The demo model answers on turns 1 and 2 and stops the ping-pong with REPLY_SKIP on turn 3.
    assert [t[:2] for t in turns] == [(1, "agent:main:main"), (2, GROUP), (3, "agent:main:main")]
    assert turns[2][2] == "REPLY_SKIP"
    # Requester: two reply-step turns; target: the first run, one reply step, the announce step.
    assert roles(engine, "agent:main:main") == ["user", "assistant", "user", "assistant"]
    assert roles(engine, GROUP) == ["user", "assistant"] * 3
    [delivery] = engine.outbox.list()
    assert (delivery.kind, delivery.channel, delivery.to, delivery.state) == ("a2a", "discord", "group:dev", "recorded")
    assert delivery.message.startswith("Update from this session:")
    assert result["runId"] == progress[0].run_id


@pytest.mark.parametrize("turns, expected", [(0, 0), (1, 1), (2, 2)])
async def test_max_ping_pong_turns_bounds_the_exchange(live_engine, turns, expected):
    engine = live_engine({"session": {"agentToAgent": {"maxPingPongTurns": turns}}})
    add_session(engine, GROUP)
    add_session(engine, "main")
    progress = []
    engine.events.subscribe(lambda e: progress.append(e) if isinstance(e, SendProgress) else None)
    await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "ping"}, as_key="main")
    await engine.drain()
    assert len([e for e in progress if e.phase == "ping_pong"]) == expected
    assert len(engine.outbox.list()) == 1


async def test_no_ping_pong_without_a_requester_session(live_engine):
    engine = live_engine()
    add_session(engine, GROUP)
    await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "ping"})
    await engine.drain()
    assert roles(engine, GROUP) == ["user", "assistant", "user", "assistant"]  # first run + announce step


async def test_announce_skip_stays_silent(live_engine):
    engine = live_engine()
    add_session(engine, GROUP)
    await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "please keep this quiet"})
    await engine.drain()
    assert engine.outbox.list() == []
    assert engine.store.transcripts.history(GROUP).messages[-1]["content"][-1]["text"] == "ANNOUNCE_SKIP"


async def test_whatsapp_announce_goes_to_the_stored_route(live_engine):
    engine = live_engine()
    add_session(
        engine,
        "agent:main:whatsapp:group:fam",
        lastTo="123@g.us",
        lastAccountId="work",
        deliveryContext={"channel": "whatsapp", "to": "123@g.us", "threadId": 99},
    )
    await call_tool(engine, "sessions_send", {"sessionKey": "agent:main:whatsapp:group:fam", "message": "hi"})
    await engine.drain()
    [delivery] = engine.outbox.list()
    assert (delivery.channel, delivery.to, delivery.account_id, delivery.thread_id) == (
        "whatsapp",
        "123@g.us",
        "work",
        "99",
    )


async def test_label_resolution(live_engine):
    engine = live_engine()
    add_session(engine, GROUP, label="dev-chat")
    result = await call_tool(engine, "sessions_send", {"label": "dev-chat", "message": "hi", "timeoutSeconds": 0})
    assert result["status"] == "accepted" and result["sessionKey"] == GROUP
    missing = await call_tool(engine, "sessions_send", {"label": "nope", "message": "hi"})
    assert missing["status"] == "error" and missing["error"] == "No session found with label: nope"
    add_session(engine, "agent:main:slack:channel:c1", label="dev-chat")
    both = await call_tool(engine, "sessions_send", {"label": "dev-chat", "message": "hi"})
    assert both["status"] == "error" and both["error"].startswith("Multiple sessions found with label: dev-chat (")
    await engine.drain()


async def test_cross_agent_label_needs_agent_to_agent(live_engine):
    engine = live_engine()
    add_session(engine, "agent:ops:discord:group:x", label="ops")
    result = await call_tool(engine, "sessions_send", {"label": "ops", "agentId": "ops", "message": "hi"})
    assert result["status"] == "forbidden"
    assert result["error"] == (
        "Agent-to-agent messaging is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent sends."
    )
    engine2 = live_engine({"tools": {"agentToAgent": {"enabled": True, "allow": ["main"]}}})
    add_session(engine2, "agent:ops:discord:group:x", label="ops")
    denied = await call_tool(engine2, "sessions_send", {"label": "ops", "agentId": "ops", "message": "hi"})
    assert denied["error"] == "Agent-to-agent messaging denied by tools.agentToAgent.allow."


async def test_sandboxed_label_lookup_is_limited_to_the_agent(live_engine):
    engine = live_engine(OPEN)
    requester = add_session(engine, "agent:main:discord:group:req")
    result = await call_tool(
        engine, "sessions_send", {"label": "x", "agentId": "ops", "message": "hi"}, as_key=requester, sandboxed=True
    )
    assert result == {
        "runId": result["runId"],
        "status": "forbidden",
        "error": "Sandboxed sessions_send label lookup is limited to this agent",
    }


async def test_cross_agent_send_gating_texts(live_engine):
    engine = live_engine()
    add_session(engine, "agent:other:main")
    result = await call_tool(engine, "sessions_send", {"sessionKey": "agent:other:main", "message": "hi"})
    assert result["status"] == "forbidden" and result["sessionKey"] == "agent:other:main"
    assert result["error"] == (
        "Agent-to-agent messaging is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent sends."
    )
    tree = live_engine({"tools": {"sessions": {"visibility": "tree"}, "agentToAgent": {"enabled": True}}})
    add_session(tree, "agent:other:main")
    result = await call_tool(tree, "sessions_send", {"sessionKey": "agent:other:main", "message": "hi"})
    assert result["error"] == (
        "Session send visibility is restricted. Set tools.sessions.visibility=all to allow cross-agent access."
    )


async def test_unknown_targets(live_engine):
    engine = live_engine()
    result = await call_tool(engine, "sessions_send", {"sessionKey": "agent:main:discord:group:none", "message": "hi"})
    assert result["status"] == "error" and result["error"] == "No session found: agent:main:discord:group:none"
    result = await call_tool(
        engine, "sessions_send", {"sessionKey": "3f2b9c1e-8a4d-4b6f-9c2e-1d0a5b7e9f31", "message": "hi"}
    )
    assert result["error"] == (
        "Session not found: 3f2b9c1e-8a4d-4b6f-9c2e-1d0a5b7e9f31 (use the full sessionKey from sessions_list)"
    )


async def test_session_id_inputs_resolve(live_engine):
    engine = live_engine()
    key = add_session(engine, "agent:main:discord:channel:123")
    sid = engine.store.sessions.get(key).session_id
    result = await call_tool(engine, "sessions_send", {"sessionKey": sid, "message": "hi", "timeoutSeconds": 0})
    assert result["status"] == "accepted" and result["sessionKey"] == key
    await engine.drain()
    assert roles(engine, key)[0] == "user"


async def test_send_policy_rule_forbids_and_is_audited(live_engine):
    engine = live_engine(
        {
            "session": {
                "sendPolicy": {"rules": [{"action": "deny", "match": {"channel": "discord", "chatType": "group"}}]}
            }
        }
    )
    add_session(engine, GROUP)
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hi"}, as_key="main")
    assert result["status"] == "forbidden" and result["sessionKey"] == GROUP
    assert result["error"] == "send blocked by session policy: rule 1 (channel=discord, chatType=group)"
    assert roles(engine, GROUP) == []
    [entry] = audit_entries(engine)
    assert (entry.session_key, entry.via, entry.requester) == (GROUP, "sessions_send", "agent:main:main")


async def test_owner_send_off_and_on(live_engine):
    engine = live_engine()
    add_session(engine, GROUP)
    assert run_owner_command(engine, GROUP, "/send off") == "⚙️ Send policy set to off."
    assert engine.store.sessions.get(GROUP).entry["sendPolicy"] == "deny"
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hi"})
    assert result["error"] == "send blocked by session policy: session override (deny)"
    assert run_owner_command(engine, GROUP, "/SEND inherit ") == "⚙️ Send policy set to inherit."
    assert "sendPolicy" not in engine.store.sessions.get(GROUP).entry
    assert run_owner_command(engine, GROUP, "/send maybe") == "⚙️ Usage: /send on|off|inherit"
    assert run_owner_command(engine, GROUP, "/send") == "⚙️ Usage: /send on|off|inherit"
    assert run_owner_command(engine, GROUP, "/sending x") is None


async def test_override_on_beats_a_deny_rule(live_engine):
    engine = live_engine({"session": {"sendPolicy": {"default": "deny"}}})
    add_session(engine, GROUP)
    run_owner_command(engine, GROUP, "/send on")
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hi", "timeoutSeconds": 0})
    assert result["status"] == "accepted"
    await engine.drain()


async def test_an_agents_send_command_is_an_ordinary_message(live_engine):
    engine = live_engine()
    add_session(engine, GROUP)
    await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "/send off", "timeoutSeconds": 0})
    await engine.drain()
    assert "sendPolicy" not in engine.store.sessions.get(GROUP).entry
    assert engine.store.transcripts.history(GROUP).messages[0]["content"] == "/send off"


async def test_agents_call_sessions_send_as_themselves(live_engine):
    engine = live_engine({"session": {"sendPolicy": {"rules": [{"action": "deny", "match": {"keyPrefix": "cron:"}}]}}})
    add_session(engine, "main")
    add_session(engine, "cron:nightly")
    run_id = engine.runs.start(
        __import__("sessions_tui.engine.runs.runs", fromlist=["RunRequest"]).RunRequest(
            session_key="agent:main:main", message="ask cron:nightly: status please"
        )
    )
    await engine.drain()
    messages = engine.store.transcripts.history("agent:main:main").messages
    result = [m for m in messages if m["role"] == "toolResult"][0]
    assert result["toolName"] == "sessions_send" and result["isError"] is True
    assert result["details"]["status"] == "forbidden"
    assert audit_entries(engine)[0].requester == "agent:main:main"
    assert engine.runs.get(run_id).status == "ok"
