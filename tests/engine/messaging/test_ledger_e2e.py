"""The send ledger end to end: real sends through the engine (the OpenAI-compatible test server or
the demo model), each send's life as the ledger records it."""

from __future__ import annotations

import pytest

from conftest import add_session, call_tool
from openai_server import Reply, system_text

GROUP = "agent:main:discord:group:dev"
REQ = "agent:main:discord:group:req"


def states(engine, run_id):
    entry = engine.ledger.entry(run_id)
    assert entry is not None
    return [(s.state, s.detail) for s in entry.states]


async def test_a_wait_that_times_out_then_gets_its_late_reply(engine_for, openai_server):
    engine = engine_for()
    add_session(engine, GROUP)
    openai_server.script(Reply(text="late answer", delay=1.5))
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hi", "timeoutSeconds": 1})
    assert result["status"] == "timeout"
    await engine.drain()
    assert states(engine, result["runId"]) == [
        ("accepted", None),
        ("started", None),
        ("timeout", {"waitedMs": 1000}),
        ("late_reply", {"text": "late answer"}),
    ]
    entry = engine.ledger.entry(result["runId"])
    assert (entry.requester, entry.target, entry.message, entry.via, entry.chain) == (
        None,
        GROUP,
        "hi",
        "owner",
        [GROUP],
    )


async def test_fire_and_forget_with_ping_pong_turns_and_the_announce(engine_for, openai_server):
    engine = engine_for({"session": {"agentToAgent": {"maxPingPongTurns": 2}}})
    requester = add_session(engine, REQ)
    add_session(engine, GROUP)
    openai_server.script(Reply(text="initial"), Reply(text="pong-1"), Reply(text="pong-2"), Reply(text="announce now"))
    result = await call_tool(
        engine, "sessions_send", {"sessionKey": GROUP, "message": "go", "timeoutSeconds": 0}, as_key=requester
    )
    assert result["status"] == "accepted"
    await engine.drain()
    [delivery] = engine.outbox.list()
    assert states(engine, result["runId"]) == [
        ("accepted", None),
        ("started", None),
        ("replied", {"text": "initial"}),
        ("pingpong", {"turn": 1, "speaker": REQ, "text": "pong-1"}),
        ("pingpong", {"turn": 2, "speaker": GROUP, "text": "pong-2"}),
        ("announce", {"text": "announce now", "delivery": "recorded", "outboxId": delivery.id}),
    ]
    assert engine.ledger.entry(result["runId"]).chain == [REQ, GROUP]
    assert engine.store.ledger.send_flows() == []  # the flow is over: no process is named as running it
    assert [e.run_id for e in engine.ledger.entries(session=REQ, state="pingpong")] == [result["runId"]]


async def test_reply_skip_is_recorded_as_the_turn_that_stopped_the_ping_pong(engine_for, openai_server):
    engine = engine_for()
    requester = add_session(engine, REQ)
    add_session(engine, GROUP)
    openai_server.on(lambda req: Reply(text="REPLY_SKIP") if "Turn 2 of" in system_text(req) else None)
    openai_server.on(lambda req: Reply(text="ANNOUNCE_SKIP") if "announce step" in system_text(req) else None)
    openai_server.default = Reply(text="more")
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "go"}, as_key=requester)
    await engine.drain()
    assert states(engine, result["runId"])[2:] == [
        ("replied", {"text": "more"}),
        ("pingpong", {"turn": 1, "speaker": REQ, "text": "more"}),
        ("pingpong", {"turn": 2, "speaker": GROUP, "text": "REPLY_SKIP"}),
        ("announce_skipped", {"text": "ANNOUNCE_SKIP"}),
    ]


async def test_a_models_own_send_is_entered_as_the_agents_with_its_chain(engine_for, openai_server):
    engine = engine_for()
    main = add_session(engine, "main")
    add_session(engine, GROUP)
    openai_server.script(
        Reply(tool_calls=[("sessions_send", {"sessionKey": GROUP, "message": "from the model", "timeoutSeconds": 0})]),
        Reply(text="sent it"),
    )
    openai_server.default = Reply(text="ANNOUNCE_SKIP")
    await call_tool(engine, "sessions_send", {"sessionKey": "main", "message": "ask the group", "timeoutSeconds": 0})
    await engine.drain()
    inner = engine.ledger.entries(session=GROUP)[0]
    assert (inner.requester, inner.message, inner.via, inner.chain) == (main, "from the model", "agent", [main, GROUP])


async def test_a_send_the_policy_denies_gets_a_forbidden_entry(live_engine):
    engine = live_engine()
    add_session(engine, GROUP, sendPolicy="deny")
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "let me in"})
    assert result["status"] == "forbidden"
    [entry] = engine.ledger.entries(state="forbidden")
    assert entry.run_id == result["runId"] and entry.message == "let me in"
    assert states(engine, entry.run_id) == [
        (
            "forbidden",
            {"error": "send blocked by session policy: session override (deny)", "rule": "session override (deny)"},
        )
    ]


async def test_a_send_visibility_refuses_gets_a_forbidden_entry_with_the_text(live_engine):
    engine = live_engine({"tools": {"sessions": {"visibility": "self"}}})
    requester = add_session(engine, REQ)
    add_session(engine, GROUP)
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "x"}, as_key=requester)
    assert result["status"] == "forbidden"
    assert states(engine, result["runId"]) == [("forbidden", {"error": result["error"]})]
    assert "tools.sessions.visibility=self" in result["error"]


@pytest.mark.parametrize("status", [200, 400])
async def test_the_announce_delivery_outcome_is_the_sends_last_state(live_engine, httpserver, status):
    httpserver.expect_request("/hook", method="POST").respond_with_data("bad" if status == 400 else "{}", status=status)
    engine = live_engine({"channels": {"discord": {"webhookUrl": httpserver.url_for("/hook")}}})
    add_session(engine, GROUP)
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "status"})
    await engine.drain()
    [delivery] = engine.outbox.list()
    entry = engine.ledger.entry(result["runId"])
    announce, outcome = entry.states[-2], entry.states[-1]
    assert announce.state == "announce" and announce.detail["outboxId"] == delivery.id
    assert announce.detail["delivery"] == "pending"
    if status == 200:
        assert (outcome.state, outcome.detail) == ("delivered", {"outboxId": delivery.id})
    else:
        assert (outcome.state, outcome.detail) == (
            "delivery_failed",
            {"outboxId": delivery.id, "error": "HTTP 400: bad"},
        )
    assert [s.state for s in entry.states[:3]] == ["accepted", "started", "replied"]


async def test_a_run_that_fails_is_the_sends_error(engine_for, openai_server):
    engine = engine_for()
    add_session(engine, GROUP)
    openai_server.script(Reply(status=500, error_message="model overloaded"))
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hi"})
    await engine.drain()
    assert states(engine, result["runId"]) == [
        ("accepted", None),
        ("started", None),
        ("error", {"error": "HTTP 500: model overloaded"}),
    ]


async def test_a_send_to_no_session_is_entered_as_an_error(live_engine):
    engine = live_engine()
    result = await call_tool(engine, "sessions_send", {"sessionKey": "agent:main:discord:group:nobody", "message": "x"})
    assert states(engine, result["runId"]) == [("error", {"error": result["error"]})]


async def test_a_flow_that_fails_is_the_sends_error_and_over(engine_for, openai_server, monkeypatch):
    import sessions_tui.engine.messaging.a2a as a2a

    def broken(*_: object) -> None:
        raise RuntimeError("no route")

    monkeypatch.setattr(a2a, "resolve_announce_target", broken)
    engine = engine_for()
    requester = add_session(engine, REQ)
    add_session(engine, GROUP)
    openai_server.default = Reply(text="fine")
    result = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "go"}, as_key=requester)
    await engine.drain()
    assert states(engine, result["runId"])[2:] == [
        ("replied", {"text": "fine"}),
        ("error", {"error": "the agent-to-agent flow failed"}),
    ]
    assert engine.store.ledger.send_flows() == []
