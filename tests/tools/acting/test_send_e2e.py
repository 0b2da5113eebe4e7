"""sessions_send end to end over HTTP: a real OpenAI-compatible server on loopback, scripted per test.

Nothing is mocked: the engine's httpx client talks to `openai_server` (tests/openai_server.py).
"""

import json

import pytest

from conftest import add_session, call_tool
from openai_server import Reply, system_text
from sessions_tui.engine.events import SendProgress
from sessions_tui.engine.runs.runs import RunRequest

GROUP = "agent:main:discord:group:dev"


def user_texts(request):
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


async def test_ok_with_the_models_reply_and_usage_recorded(engine_for, openai_server):
    engine = engine_for()
    add_session(engine, GROUP)
    openai_server.script(Reply(text="All green.", usage=(120, 30), cost=0.0012))
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "status?"})
    assert result["status"] == "ok" and result["reply"] == "All green."
    first = openai_server.requests[0]
    assert first["model"] == "test-model" and first["stream"] is True
    assert openai_server.headers[0]["authorization"] == "Bearer test-key"
    assert user_texts(first) == ["status?"]
    entry = engine.store.sessions.get(GROUP).entry
    assert (entry["inputTokens"], entry["outputTokens"], entry["totalTokens"]) == (120, 30, 150)
    assert entry["estimatedCostUsd"] == pytest.approx(0.0012)
    assert entry["model"] == "test-model" and entry["modelProvider"] == "local"
    await engine.drain()


async def test_a2a_message_context_reaches_the_model_as_system_text(engine_for, openai_server):
    engine = engine_for()
    add_session(engine, GROUP)
    requester = add_session(engine, "agent:main:slack:channel:req", channel="slack")
    openai_server.default = Reply(text="REPLY_SKIP")
    openai_server.script(Reply(text="first"))
    await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hi"}, as_key=requester)
    await engine.drain()
    system = system_text(openai_server.requests[0])
    assert system.endswith(
        "Agent-to-agent message context:\n"
        f"Agent 1 (requester) session: {requester}.\n"
        "Agent 1 (requester) channel: slack.\n"
        f"Agent 2 (target) session: {GROUP}."
    )
    reply_step = system_text(openai_server.requests[1])
    assert reply_step.endswith(
        "Agent-to-agent reply step:\n"
        "Current agent: Agent 1 (requester).\n"
        "Turn 1 of 5.\n"
        f"Agent 1 (requester) session: {requester}.\n"
        "Agent 1 (requester) channel: slack.\n"
        f"Agent 2 (target) session: {GROUP}.\n"
        "Agent 2 (target) channel: discord.\n"
        'If you want to stop the ping-pong, reply exactly "REPLY_SKIP".'
    )
    assert user_texts(openai_server.requests[1])[-1] == "first"
    announce = system_text(openai_server.requests[2])
    assert announce.endswith(
        "Agent-to-agent announce step:\n"
        f"Agent 1 (requester) session: {requester}.\n"
        "Agent 1 (requester) channel: slack.\n"
        f"Agent 2 (target) session: {GROUP}.\n"
        "Agent 2 (target) channel: discord.\n"
        "Original request: hi\n"
        "Round 1 reply: first\n"
        "Latest reply: first\n"
        'If you want to remain silent, reply exactly "ANNOUNCE_SKIP".\n'
        "Any other reply will be posted to the target channel.\n"
        "After this reply, the agent-to-agent conversation is over."
    )
    assert user_texts(openai_server.requests[2])[-1] == "Agent-to-agent announce step."


async def test_fire_and_forget_and_wait_make_the_expected_runs(engine_for, openai_server):
    """OpenClaw's test "sessions_send supports fire-and-forget and wait" (maxPingPongTurns 2)."""
    engine = engine_for({"session": {"agentToAgent": {"maxPingPongTurns": 2}}})
    requester = add_session(engine, "discord:group:req", channel="discord")
    add_session(engine, "main")
    openai_server.default = Reply(text="done")
    accepted = await call_tool(
        engine, "sessions_send", {"sessionKey": "main", "message": "ping", "timeoutSeconds": 0}, as_key=requester
    )
    assert accepted["status"] == "accepted" and accepted["delivery"] == {"status": "pending", "mode": "announce"}
    await engine.drain()
    waited = await call_tool(
        engine, "sessions_send", {"sessionKey": "main", "message": "wait", "timeoutSeconds": 1}, as_key=requester
    )
    assert waited["status"] == "ok" and waited["reply"] == "done"
    await engine.drain()
    # Each send: the target's run, two reply steps, the announce step: 8 model turns in all.
    assert len(openai_server.requests) == 8
    assert all("Agent-to-agent" in system_text(r) for r in openai_server.requests)


async def test_ping_pong_then_announce(engine_for, openai_server):
    """OpenClaw's test "sessions_send runs ping-pong then announces"."""
    engine = engine_for({"session": {"agentToAgent": {"maxPingPongTurns": 2}}})
    requester = add_session(engine, "agent:main:discord:group:req")
    target = add_session(engine, "discord:group:target")
    openai_server.script(Reply(text="initial"), Reply(text="pong-1"), Reply(text="pong-2"), Reply(text="announce now"))
    result = await call_tool(
        engine, "sessions_send", {"sessionKey": "discord:group:target", "message": "go"}, as_key=requester
    )
    assert result["status"] == "ok" and result["reply"] == "initial"
    await engine.drain()
    assert len(openai_server.requests) == 4
    [delivery] = engine.outbox.list()
    assert (delivery.to, delivery.channel, delivery.message) == ("group:target", "discord", "announce now")
    assert delivery.session_key == target


@pytest.mark.parametrize("skip_turn", [1, 2, 3])
async def test_reply_skip_at_turn_k_stops_the_ping_pong(engine_for, openai_server, skip_turn):
    engine = engine_for()
    add_session(engine, GROUP)
    add_session(engine, "main")
    openai_server.on(lambda req: Reply(text="REPLY_SKIP") if f"Turn {skip_turn} of" in system_text(req) else None)
    openai_server.default = Reply(text="more")
    progress = []
    engine.events.subscribe(lambda e: progress.append(e) if isinstance(e, SendProgress) else None)
    await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "go"}, as_key="main")
    await engine.drain()
    steps = [r for r in openai_server.requests if "reply step" in system_text(r)]
    assert len(steps) == skip_turn
    speakers = [e.speaker for e in progress if e.phase == "ping_pong"]
    assert speakers == ["agent:main:main", GROUP, "agent:main:main"][:skip_turn]
    assert len(engine.outbox.list()) == 1


async def test_announce_skip_posts_nothing(engine_for, openai_server):
    engine = engine_for()
    add_session(engine, GROUP)
    openai_server.on(lambda req: Reply(text="  ANNOUNCE_SKIP \n") if "announce step" in system_text(req) else None)
    openai_server.default = Reply(text="reply")
    await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "go"})
    await engine.drain()
    assert engine.outbox.list() == []


async def test_http_500_is_an_error_carrying_the_providers_message(engine_for, openai_server):
    engine = engine_for()
    add_session(engine, GROUP)
    openai_server.script(Reply(status=500, error_message="model overloaded"))
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hi"})
    assert result["status"] == "error" and result["error"] == "HTTP 500: model overloaded"
    assert result["sessionKey"] == GROUP
    last = engine.store.transcripts.history(GROUP).messages[-1]
    assert last["stopReason"] == "error" and last["errorMessage"] == "HTTP 500: model overloaded"
    await engine.drain()
    assert engine.store.sessions.get(GROUP).entry["status"] == "failed"


async def test_timeout_then_the_late_reply_lands_in_the_transcript(engine_for, openai_server):
    engine = engine_for()
    add_session(engine, GROUP)
    openai_server.script(Reply(text="late answer", delay=1.5))
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hi", "timeoutSeconds": 1})
    assert result["status"] == "timeout"
    await engine.drain()
    assert engine.runs.get(result["runId"]).status == "ok"
    history = await call_tool(engine, "sessions_history", {"sessionKey": GROUP})
    assert history["messages"][-1]["content"][-1]["text"] == "late answer"


async def test_a_stale_reply_is_never_returned(engine_for, openai_server):
    engine = engine_for()
    add_session(engine, GROUP, [{"role": "assistant", "content": [{"type": "text", "text": "old news"}]}])
    openai_server.script(Reply(text=""))
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "anything new?"})
    assert result["status"] == "ok" and "reply" not in result
    await engine.drain()


async def test_models_call_the_session_tools_and_the_turn_continues(engine_for, openai_server):
    engine = engine_for()
    add_session(engine, "main")
    add_session(engine, GROUP, [{"role": "assistant", "content": "deploy done"}])
    openai_server.script(
        Reply(tool_calls=[("sessions_history", {"sessionKey": GROUP, "limit": 1})]),
        Reply(text="They said the deploy is done."),
    )
    run_id = engine.runs.start(RunRequest(session_key="agent:main:main", message="what did #dev say?"))
    assert (await engine.runs.wait(run_id, 5000)).status == "ok"
    tools = {t["function"]["name"]: t for t in openai_server.requests[0]["tools"]}
    assert set(tools) == {
        "sessions_list",
        "sessions_history",
        "sessions_search",
        "sessions_send",
        "sessions_spawn",
        "agents_list",
        "subagents",
    }
    assert tools["sessions_history"]["function"]["parameters"]["properties"]["limit"]["type"] == "number"
    follow_up = openai_server.requests[1]["messages"]
    assert (
        follow_up[-2]["role"] == "assistant"
        and follow_up[-2]["tool_calls"][0]["function"]["name"] == "sessions_history"
    )
    assert (
        follow_up[-1]["role"] == "tool"
        and json.loads(follow_up[-1]["content"])["messages"][0]["content"] == "deploy done"
    )
    roles = [m["role"] for m in engine.store.transcripts.history("agent:main:main").messages]
    assert roles == ["user", "assistant", "toolResult", "assistant"]


async def test_a_sandboxed_agents_tool_calls_see_only_what_it_spawned(engine_for, openai_server):
    engine = engine_for(
        {"agents": {"defaults": {"model": "local/test-model"}, "list": [{"id": "helper", "sandbox": {"mode": "all"}}]}}
    )
    add_session(engine, "agent:helper:main")
    add_session(engine, "agent:helper:discord:group:x")
    openai_server.script(Reply(tool_calls=[("sessions_list", {})]), Reply(text="ok"))
    run_id = engine.runs.start(RunRequest(session_key="agent:helper:main", message="list"))
    await engine.runs.wait(run_id, 5000)
    result = json.loads(openai_server.requests[1]["messages"][-1]["content"])
    assert result["count"] == 0


async def test_api_key_from_the_environment(live_engine, openai_server, monkeypatch):
    monkeypatch.setenv("LOCAL_API_KEY", "env-key")
    engine = live_engine(
        {
            "models": {"providers": {"local": {"baseUrl": openai_server.url}}},
            "agents": {"defaults": {"model": "local/m"}},
        }
    )
    add_session(engine, GROUP)
    openai_server.script(Reply(text="hi"))
    await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "x", "timeoutSeconds": 0})
    await engine.drain()
    assert openai_server.headers[0]["authorization"] == "Bearer env-key"
