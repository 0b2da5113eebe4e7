"""sessions_spawn end to end against the scripted OpenAI-compatible server: OpenClaw's spawn and announce
cases, docs/decisions.md D4."""

import pytest

from conftest import add_session, call_tool
from openai_server import Reply, system_text

REQ = "agent:main:discord:group:req"


@pytest.fixture
def engine_for(live_engine, openai_server):
    def make(extra_tools=None):
        config = {
            "models": {"providers": {"local": {"baseUrl": openai_server.url}}},
            "agents": {"defaults": {"model": "local/m"}},
        }
        if extra_tools:
            config["tools"] = extra_tools
        engine = live_engine(config)
        add_session(engine, REQ)
        return engine

    return make


def is_announce_step(request):
    return "Sub-agent announce step" in system_text(request)


def announce_text(engine):
    [message] = [m for m in engine.store.transcripts.history(REQ).messages if m.get("announce")]
    return message["content"][0]["text"], message["announce"]


async def test_a_child_that_succeeds(engine_for, openai_server):
    engine = engine_for()
    openai_server.on(lambda r: Reply(text="Result: 42 files\nNotes: two were empty") if is_announce_step(r) else None)
    openai_server.script(Reply(text="I counted 42 files.", usage=(1200, 34), cost=0.0042))
    result = await call_tool(engine, "sessions_spawn", {"task": "count files", "label": "files"}, as_key=REQ)
    await engine.drain()
    text, announce = announce_text(engine)
    assert text.startswith("Status: completed successfully\nResult: 42 files\nNotes: two were empty\n\nStats: runtime ")
    assert " • est $" in text and f"sessionKey {result['childSessionKey']}" in text
    assert announce["status"] == "ok"
    child_request = openai_server.requests[0]
    system = system_text(child_request)
    assert system.startswith("# Subagent Context") and f"- Your session: {result['childSessionKey']}." in system
    assert f"- Requester session: {REQ}." in system and "- Label: files" in system
    assert child_request["messages"][-1]["content"].endswith("[Subagent Task]: count files")
    assert "tools" not in child_request  # sub-agents get no session tools by default (docs/decisions.md D7)


async def test_a_child_that_fails_with_http_500(engine_for, openai_server):
    engine = engine_for()
    openai_server.default = Reply(status=500, error_message="boom")
    await call_tool(engine, "sessions_spawn", {"task": "do thing"}, as_key=REQ)
    await engine.drain()
    text, announce = announce_text(engine)
    lines = text.split("\n")
    assert lines[0] == "Status: failed: HTTP 500: boom"
    assert lines[1] == "Result: (no output)"
    assert lines[2].startswith("Notes: The announce step did not answer (HTTP 500: boom)")
    assert announce["status"] == "error"


async def test_a_child_that_times_out(engine_for, openai_server):
    engine = engine_for()
    openai_server.on(lambda r: Reply(text="Result: partial\nNotes: ran out of time") if is_announce_step(r) else None)
    openai_server.script(Reply(text="too late", delay=2.5))
    result = await call_tool(engine, "sessions_spawn", {"task": "slow", "runTimeoutSeconds": 1}, as_key=REQ)
    await engine.drain()
    text, announce = announce_text(engine)
    assert text.startswith("Status: timed out\nResult: partial\nNotes: ran out of time")
    assert announce["status"] == "timeout"
    assert engine.store.sessions.get(result["childSessionKey"]).entry["status"] == "timeout"


async def test_a_child_that_answers_announce_skip(engine_for, openai_server):
    engine = engine_for()
    openai_server.on(lambda r: Reply(text=" ANNOUNCE_SKIP\n") if is_announce_step(r) else None)
    openai_server.script(Reply(text="done"))
    await call_tool(engine, "sessions_spawn", {"task": "quiet work"}, as_key=REQ)
    await engine.drain()
    assert [m for m in engine.store.transcripts.history(REQ).messages if m.get("announce")] == []
    assert engine.outbox.list() == []


async def test_a_reply_without_headings_becomes_the_result(engine_for, openai_server):
    engine = engine_for()
    openai_server.on(lambda r: Reply(text="Everything is fine.") if is_announce_step(r) else None)
    openai_server.script(Reply(text="checked"))
    await call_tool(engine, "sessions_spawn", {"task": "check"}, as_key=REQ)
    await engine.drain()
    text, _ = announce_text(engine)
    assert text.startswith("Status: completed successfully\nResult: Everything is fine.\nNotes: \n\nStats: ")


async def test_tools_subagents_tools_can_give_children_session_tools(engine_for, openai_server):
    engine = engine_for({"subagents": {"tools": {"alsoAllow": ["sessions_list"]}}})
    openai_server.default = Reply(text="ok")
    await call_tool(engine, "sessions_spawn", {"task": "look around"}, as_key=REQ)
    await engine.drain()
    names = [t["function"]["name"] for t in openai_server.requests[0]["tools"]]
    assert names == ["sessions_list"]
