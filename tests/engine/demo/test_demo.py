"""The demo state (`sessions-tui --demo`): every kind of session, and a second seeding changes nothing."""

from conftest import call_tool, run_tool
from sessions_tui.backend.local import opening as runtime
from sessions_tui.engine.demo.config import DEMO_CONFIG
from sessions_tui.engine.demo.state import CHILD_KEY, HELPER_KEY, seed_demo
from sessions_tui.engine.runs.runs import RunRequest


def test_demo_has_every_kind_and_what_the_screens_need(engine, tmp_path):
    config_path = tmp_path / "demo.json5"
    assert seed_demo(engine, config_path) is True
    assert config_path.exists() and "deny" in config_path.read_text()
    rows = run_tool(engine, "sessions_list", {})["sessions"]
    assert {row["kind"] for row in rows} == {"main", "group", "cron", "hook", "node", "other"}
    history = run_tool(engine, "sessions_history", {"sessionKey": "main", "includeTools": True})
    blocks = [b for m in history["messages"] if isinstance(m["content"], list) for b in m["content"]]
    assert {b["type"] for b in blocks} >= {"thinking", "toolCall", "text", "image"}
    assert any(m["role"] == "toolResult" for m in history["messages"])
    dev = run_tool(engine, "sessions_history", {"sessionKey": "agent:main:discord:group:dev"})
    assert dev["contentRedacted"] is True


def test_seeding_a_non_empty_state_changes_nothing(engine, tmp_path):
    seed_demo(engine, tmp_path / "c.json5")
    before = engine.store.sessions.count()
    (tmp_path / "c.json5").write_text("{}")
    assert seed_demo(engine, tmp_path / "c.json5") is False
    assert engine.store.sessions.count() == before and (tmp_path / "c.json5").read_text() == "{}"


def test_demo_is_deterministic_for_a_frozen_clock(make_engine, tmp_path):
    a, b = make_engine(), make_engine()
    seed_demo(a, None)
    seed_demo(b, None)
    assert run_tool(a, "sessions_list", {"messageLimit": 3}) == {
        **run_tool(b, "sessions_list", {"messageLimit": 3}),
        "sessions": [
            {**row, "transcriptPath": row["transcriptPath"].replace("state1", "state0")}
            for row in run_tool(b, "sessions_list", {"messageLimit": 3})["sessions"]
        ],
    }


def demo_engine(live_engine):
    """The demo seeded on an engine under the demo config, runs on the instant demo model."""
    import json5

    engine = live_engine(json5.loads(DEMO_CONFIG))
    assert seed_demo(engine, None) is True
    return engine


async def test_token_counts_add_up_and_a_run_only_adds_to_them(live_engine):
    engine = demo_engine(live_engine)
    entries = {
        row["key"]: engine.store.sessions.get(engine.canonical(row["key"])).entry
        for row in (await call_tool(engine, "sessions_list", {}))["sessions"]
    }
    counted = {key: e for key, e in entries.items() if "totalTokens" in e}
    assert len(counted) >= 5
    for key, entry in counted.items():
        assert entry["inputTokens"] + entry["outputTokens"] == entry["totalTokens"], key
    dev = "agent:main:discord:group:dev"
    assert engine.store.sessions.get(dev).entry["totalTokens"] == 5120
    await engine.runs.wait(engine.runs.start(RunRequest(session_key=dev, message="status?")), 5000)
    entry = engine.store.sessions.get(dev).entry
    assert entry["totalTokens"] > 5120
    assert entry["inputTokens"] + entry["outputTokens"] == entry["totalTokens"]


async def test_the_sandboxed_helper_may_spawn_sandboxed_sub_agents(live_engine):
    engine = demo_engine(live_engine)
    assert engine.store.sessions.get(HELPER_KEY) is not None and engine.is_sandboxed(HELPER_KEY)
    agents = await call_tool(engine, "agents_list", {}, as_key=HELPER_KEY, sandboxed=True)
    assert [a["id"] for a in agents["agents"]] == ["helper"]
    result = await call_tool(
        engine, "sessions_spawn", {"task": "count the words in: a b c"}, as_key=HELPER_KEY, sandboxed=True
    )
    assert result["status"] == "accepted", result
    assert result["childSessionKey"].startswith("agent:helper:subagent:")
    assert engine.is_sandboxed(result["childSessionKey"])
    await engine.drain()
    seen = await call_tool(engine, "sessions_list", {}, as_key=HELPER_KEY, sandboxed=True)
    assert [row["key"] for row in seen["sessions"]] == [result["childSessionKey"]]


async def test_the_finished_child_is_listed_for_main_and_nothing_is_left_to_announce(live_engine):
    engine = demo_engine(live_engine)
    children = engine.subagents.children("agent:main:main")
    assert [(c.child_key, c.label, c.status, c.total_tokens) for c in children] == [
        (CHILD_KEY, "count-words", "done", 310)
    ]
    child = engine.store.sessions.get(CHILD_KEY).entry
    assert children[0].ended_at - children[0].started_at == child["runtimeMs"] == 3000
    assert engine.runs.get(children[0].run_id).status == "ok"
    assert engine.subagents.get(children[0].run_id).archive_at is None  # the demo keeps its sub-agent row
    announced = engine.subagents.announcements("agent:main:main")
    assert [(a.child_key, a.status) for a in announced] == [(CHILD_KEY, "ok")]
    assert announced[0].text.startswith("Status: completed successfully\nResult: 1,204 words")
    assert "tokens 310 (in 262 / out 48)" in announced[0].text
    await runtime.start(engine)  # what a process opening the demo does: nothing to recover or announce
    await engine.drain()
    assert engine.subagents.recover() == [] and engine.runs.recover_interrupted() == []
    assert len(engine.subagents.announcements("agent:main:main")) == 1
