"""`subagents` (list | kill | steer): the requester's own tree, kill of a subtree (`killed`, announce
`Status: killed`, nothing left running or queued), steer into a running child's queue, the
refusals, and the shapes recorded from OpenClaw 2026.9.6 (tests/fixtures/openclaw-2026.9.6/subagents/)."""

import asyncio
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

from conftest import add_session, call_tool
from openai_server import Reply, system_text
from server_support import TOKEN, local_backend, served
from sessions_tui.tools.calling.base import ToolInputError
from sessions_tui.tools.calling.host import EngineToolHost
from sessions_tui.tools.calling.registry import TOOLS

REQ = "agent:main:discord:group:req"
OTHER = "agent:main:discord:group:other"
FIXTURES = Path(__file__).parents[2] / "fixtures" / "openclaw-2026.9.6" / "subagents"
SLOW = {"models": {"demo": {"latencyMs": 600_000, "chunkMs": 0}}}
TWO_LEVELS = {**SLOW, "agents": {"defaults": {"subagents": {"maxSpawnDepth": 2}}}}


async def tool(engine, params, as_key=REQ):
    return await call_tool(engine, "subagents", params, as_key=as_key)


async def spawn(engine, task, as_key=REQ, label=None):
    params = {"task": task, **({"label": label} if label else {})}
    result = await call_tool(engine, "sessions_spawn", params, as_key=as_key)
    assert result["status"] == "accepted", result
    return result


async def settle(engine, run_ids):
    """Let the session workers claim their runs (a few turns of the loop, no clock)."""
    for _ in range(200):
        if all(engine.runs.get(r).status == "running" for r in run_ids):
            return
        await asyncio.sleep(0)
    raise AssertionError("runs did not start")


def announce_texts(engine, key):
    return [m["content"][0]["text"] for m in engine.store.transcripts.history(key).messages if m.get("announce")]


async def two_level_tree(engine):
    add_session(engine, REQ)
    child = await spawn(engine, "orchestrate", label="boss")
    grand = await spawn(engine, "dig", as_key=child["childSessionKey"], label="digger")
    await settle(engine, [child["runId"], grand["runId"]])
    return child, grand


# -- list ---------------------------------------------------------------------------------------


async def test_empty_list_has_the_recorded_shape(live_engine):
    engine = live_engine()
    add_session(engine, REQ)
    recorded = json.loads((FIXTURES / "list.json").read_text())
    result = await tool(engine, {"action": "list"})
    # 2026.9.6 adds its task ledger (`tasks`, `taskTotal`), which this project does not have.
    expected = {k: v for k, v in recorded.items() if k not in ("tasks", "taskTotal")}
    expected.update(requesterSessionKey=REQ, callerSessionKey=REQ)
    assert result == expected
    assert await tool(engine, {}) == result  # list is the default action


async def test_list_is_a_tree_with_status_runtime_and_tokens(live_engine):
    engine = live_engine(TWO_LEVELS)
    child, grand = await two_level_tree(engine)
    result = await tool(engine, {"action": "list"})
    assert result["total"] == 2 and result["recent"] == []
    [first, second] = result["active"]
    assert (first["sessionKey"], first["depth"], first["label"]) == (child["childSessionKey"], 1, "boss")
    assert (second["sessionKey"], second["depth"], second["label"]) == (grand["childSessionKey"], 2, "digger")
    assert first["childSessions"] == [grand["childSessionKey"]] and first["pendingDescendants"] == 1
    assert first["status"] == "active (waiting on 1 child)" and second["status"] == "running"
    assert second["requesterSessionKey"] == child["childSessionKey"]
    for view in (first, second):
        assert {"runtime", "runtimeMs", "totalTokens", "model", "startedAt", "runId", "index", "line"} <= set(view)
    assert result["text"].splitlines()[:3] == ["active subagents:", first["line"], second["line"]]
    assert second["line"].startswith("  2. digger")
    await tool(engine, {"action": "kill", "target": "all"})


async def test_a_requester_sees_only_its_own_tree(live_engine):
    engine = live_engine(SLOW)
    add_session(engine, REQ)
    add_session(engine, OTHER)
    mine = await spawn(engine, "mine")
    await spawn(engine, "theirs", as_key=OTHER)
    listed = await tool(engine, {"action": "list"})
    assert [v["sessionKey"] for v in listed["active"]] == [mine["childSessionKey"]]
    theirs = (await tool(engine, {"action": "list"}, as_key=OTHER))["active"][0]["sessionKey"]
    refused = await tool(engine, {"action": "kill", "target": theirs})
    assert refused == {
        "status": "error",
        "action": "kill",
        "target": theirs,
        "error": f"Unknown subagent session: {theirs}",
    }
    assert engine.runs.active_run(theirs) or engine.runs.queued(theirs)  # untouched
    await tool(engine, {"action": "kill", "target": "all"})
    await tool(engine, {"action": "kill", "target": "all"}, as_key=OTHER)


# -- kill ---------------------------------------------------------------------------------------


async def test_kill_ends_a_whole_subtree_at_once(live_engine):
    engine = live_engine(TWO_LEVELS)
    child, grand = await two_level_tree(engine)
    child_key, grand_key = child["childSessionKey"], grand["childSessionKey"]
    # something queued behind the running turns, too
    steered = await tool(engine, {"action": "steer", "target": "boss", "message": "hurry"})
    assert steered["status"] == "accepted"
    result = await tool(engine, {"action": "kill", "target": "boss"})
    assert result == {
        "status": "ok",
        "action": "kill",
        "target": "boss",
        "runId": child["runId"],
        "sessionKey": child_key,
        "label": "boss",
        "cascadeKilled": 1,
        "cascadeLabels": ["digger"],
        "text": "killed boss (+1 descendants).",
    }
    for key in (child_key, grand_key):
        assert engine.runs.queued(key) == [] and engine.runs.active_run(key) is None
    for run_id in (child["runId"], grand["runId"], steered["queuedRunId"]):
        assert engine.runs.get(run_id).status == "killed"
    assert engine.store.sessions.get(child_key).entry["status"] == "killed"
    assert engine.store.sessions.get(grand_key).entry["status"] == "killed"
    [to_req] = announce_texts(engine, REQ)
    [to_child] = announce_texts(engine, child_key)
    assert to_req.startswith("Status: killed\n") and to_child.startswith("Status: killed\n")
    assert engine.subagents.get(child["runId"]).outcome == "killed"
    listed = await tool(engine, {"action": "list"})
    assert listed["active"] == [] and [v["status"] for v in listed["recent"]] == ["killed", "killed"]
    again = await tool(engine, {"action": "kill", "target": "boss"})
    assert again["status"] == "done" and again["text"] == "boss is already finished."


async def test_kill_all_and_targets_by_index_last_and_run_id(live_engine):
    engine = live_engine(SLOW)
    add_session(engine, REQ)
    a = await spawn(engine, "alpha task", label="alpha")
    b = await spawn(engine, "beta task", label="beta")
    c = await spawn(engine, "gamma task", label="gamma")
    assert (await tool(engine, {"action": "kill", "target": "last"}))["sessionKey"] == c["childSessionKey"]
    # A prefix past the first "-": eight hex digits can all be decimal digits (1 in 43), an index then.
    assert (await tool(engine, {"action": "kill", "target": b["runId"][:13]}))["label"] == "beta"
    result = await tool(engine, {"action": "kill", "target": "all"})
    assert result == {
        "status": "ok",
        "action": "kill",
        "target": "all",
        "killed": 1,
        "labels": ["alpha"],
        "text": "killed 1 subagent.",
    }
    assert engine.runs.get(a["runId"]).status == "killed"
    assert (await tool(engine, {"action": "kill", "target": "all"}))["text"] == "no running subagents."


async def test_kill_and_steer_refusals(live_engine):
    engine = live_engine()
    add_session(engine, REQ)
    with pytest.raises(ToolInputError, match="^target required$"):
        await tool(engine, {"action": "kill"})
    with pytest.raises(ToolInputError, match="^target required$"):
        await tool(engine, {"action": "steer", "message": "x"})
    unknown = await tool(engine, {"action": "kill", "target": "nope"})
    assert unknown == {"status": "error", "action": "kill", "target": "nope", "error": "Unknown subagent id: nope"}
    assert (await tool(engine, {"action": "kill", "target": "3"}))["error"] == "Invalid subagent index: 3"
    assert (await tool(engine, {"action": "steer", "target": "last", "message": "x"}))["error"] == "Unknown subagent."
    recorded = json.loads((FIXTURES / "bogus_action.json").read_text())
    assert await tool(engine, {"action": "bogus"}) == recorded
    with pytest.raises(ToolInputError, match="^recentMinutes must be a positive integer$"):
        await tool(engine, {"action": "list", "recentMinutes": 0})


async def test_a_leaf_controls_nothing(live_engine):
    engine = live_engine(SLOW)
    add_session(engine, REQ)
    child = await spawn(engine, "leaf work")
    leaf = child["childSessionKey"]
    assert "subagents" not in EngineToolHost(engine).allowed(leaf)
    result = await tool(engine, {"action": "kill", "target": "all"}, as_key=leaf)
    assert result == {"status": "forbidden", "action": "kill", "error": "Leaf subagents cannot control other sessions."}
    await tool(engine, {"action": "kill", "target": "all"})


async def test_an_orchestrator_may_use_the_tool(live_engine):
    engine = live_engine(TWO_LEVELS)
    add_session(engine, REQ)
    child = await spawn(engine, "orchestrate")
    assert "subagents" in EngineToolHost(engine).allowed(child["childSessionKey"])
    assert "subagents" in EngineToolHost(engine).allowed(REQ)
    await tool(engine, {"action": "kill", "target": "all"})


# -- steer --------------------------------------------------------------------------------------


async def test_steer_queues_the_message_behind_the_current_turn(live_engine):
    engine = live_engine(SLOW)
    add_session(engine, REQ)
    child = await spawn(engine, "long job", label="worker")
    await settle(engine, [child["runId"]])
    result = await tool(engine, {"action": "steer", "target": "worker", "message": "focus on tests"})
    queued = result.pop("queuedRunId")
    assert result == {
        "status": "accepted",
        "action": "steer",
        "target": "worker",
        "runId": child["runId"],
        "sessionKey": child["childSessionKey"],
        "label": "worker",
        "mode": "queue",
        "text": "steered worker.",
    }
    assert engine.runs.queued(child["childSessionKey"]) == [queued]
    assert engine.runs.active_run(child["childSessionKey"]) == child["runId"]
    with pytest.raises(ToolInputError, match="^message required$"):
        await tool(engine, {"action": "steer", "target": "worker"})
    too_long = await tool(engine, {"action": "steer", "target": "worker", "message": "x" * 4001})
    assert too_long["status"] == "error" and too_long["error"].startswith("Message too long")
    await tool(engine, {"action": "kill", "target": "all"})
    finished = await tool(engine, {"action": "steer", "target": "worker", "message": "more"})
    assert finished["status"] == "done" and finished["text"] == "worker is already finished."


async def test_a_steered_message_is_the_childs_next_turn(live_engine, openai_server):
    engine = live_engine(
        {
            "models": {"providers": {"local": {"baseUrl": openai_server.url}}},
            "agents": {"defaults": {"model": "local/m"}},
        }
    )
    add_session(engine, REQ)
    openai_server.on(lambda r: Reply(text="done") if "Sub-agent announce step" in system_text(r) else None)
    steer_made = threading.Event()  # the child's first turn answers only once the steer is in
    openai_server.script(Reply(text="first turn", hold=steer_made), Reply(text="steered turn"))
    child = await spawn(engine, "work", label="w")
    steered = await tool(engine, {"action": "steer", "target": "w", "message": "also check docs"})
    steer_made.set()
    assert steered["status"] == "accepted"
    await engine.drain()
    users = [
        m["content"][0]["text"] if isinstance(m["content"], list) else m["content"]
        for m in engine.store.transcripts.history(child["childSessionKey"]).messages
        if m.get("role") == "user"
    ]
    # the task, then the steer, then (the child's run having ended) the announce step
    assert users[1:] == ["also check docs", "Sub-agent announce step."]
    assert engine.runs.get(steered["queuedRunId"]).status == "ok"


async def test_kill_against_the_scripted_model(live_engine, openai_server):
    engine = live_engine(
        {
            "models": {"providers": {"local": {"baseUrl": openai_server.url}}},
            "agents": {"defaults": {"model": "local/m", "subagents": {"maxSpawnDepth": 2}}},
        }
    )
    add_session(engine, REQ)
    openai_server.default = Reply(text="still thinking", delay=5)
    child = await spawn(engine, "slow work", label="slow")
    await settle(engine, [child["runId"]])
    result = await tool(engine, {"action": "kill", "target": "slow"})
    assert result["status"] == "ok" and result["cascadeKilled"] == 0
    assert engine.runs.get(child["runId"]).status == "killed"
    assert engine.runs.active_run(child["childSessionKey"]) is None
    assert engine.runs.queued(child["childSessionKey"]) == []
    [text] = announce_texts(engine, REQ)
    assert text.startswith("Status: killed\n")


# -- surfaces -----------------------------------------------------------------------------------


def test_the_schema_offers_the_three_actions():
    props = TOOLS["subagents"].parameters["properties"]
    assert props["action"]["enum"] == ["list", "kill", "steer"]
    assert {"target", "message", "recentMinutes"} <= set(props)


def test_tool_subagents_on_the_command_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("SESSIONS_TUI_HOME", "SESSIONS_TUI_CONFIG")}
    argv = [sys.executable, "-m", "sessions_tui", "--state", str(tmp_path / "s"), "tool"]
    proc = subprocess.run(
        [*argv, "subagents", '{"action": "list"}'], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["action"] == "list"
    helped = subprocess.run([*argv, "--help"], capture_output=True, text=True, env=env, timeout=60)
    assert "subagents" in helped.stdout


def test_over_serve_the_body_action_is_merged(tmp_path):
    with served(local_backend(tmp_path / "s")) as url:
        answer = httpx.post(
            f"{url}/tools/invoke",
            json={"tool": "subagents", "action": "kill", "args": {"target": "nope"}},
            headers={"Authorization": f"Bearer {TOKEN}"},
            timeout=30,
        )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["ok"] is True
    assert body["result"]["details"] == {
        "status": "error",
        "action": "kill",
        "target": "nope",
        "error": "Unknown subagent id: nope",
    }
