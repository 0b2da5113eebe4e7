"""Sessions that came from OpenClaw belong to it (docs/decisions.md D17): read everything, run nothing."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import call_tool, run_tool
from openclaw_fake import copy_fixture
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.messaging.commands import run_owner_command
from sessions_tui.engine.openclaw.importer import import_openclaw
from sessions_tui.engine.runs.runs import RunRequest
from sessions_tui.engine.sessions.refusals import OwnedByOpenClaw

GROUP = "agent:main:discord:group:123"
A2A = {"tools": {"agentToAgent": {"enabled": True}}}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path / "openclaw", "sqlite-state")


def imported(engine: Engine, root: Path) -> Engine:
    import_openclaw(engine.store, engine.canonical, root)
    return engine


def runs_in(engine: Engine, key: str) -> int:
    with engine.store.read() as conn:
        return int(conn.execute("SELECT COUNT(*) FROM runs WHERE session_key = ?", (key,)).fetchone()[0])


def test_a_send_into_an_openclaw_session_is_refused_saying_where_it_lives(make_engine, root):
    engine = imported(make_engine(A2A), root)
    lines = engine.store.transcripts.transcript_lines(GROUP)
    result = run_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hi", "timeoutSeconds": 0})
    assert result["status"] == "forbidden"
    assert result["error"] == (
        f"{GROUP} lives in OpenClaw ({root}): sessions-tui only mirrors it and never runs it; "
        "send to it through that OpenClaw"
    )
    assert runs_in(engine, GROUP) == 0
    assert engine.store.transcripts.transcript_lines(GROUP) == lines
    with engine.store.read() as conn:
        reason = conn.execute("SELECT reason FROM audit WHERE session_key = ?", (GROUP,)).fetchone()[0]
    assert reason == f"the session lives in OpenClaw ({root})"


def test_the_engine_never_starts_a_run_in_one(make_engine, root):
    engine = imported(make_engine(), root)

    async def start() -> None:
        engine.runs.start(RunRequest(session_key=GROUP, message="hi"))

    with pytest.raises(OwnedByOpenClaw):
        asyncio.run(start())
    assert runs_in(engine, GROUP) == 0


def test_the_owner_command_does_not_change_its_send_policy(make_engine, root):
    engine = imported(make_engine(), root)
    reply = run_owner_command(engine, GROUP, "/send off")
    assert reply == f"⚙️ This session lives in OpenClaw ({root}): set its send policy there."
    assert "sendPolicy" not in engine.store.sessions.get(GROUP).entry


async def test_a_send_from_an_openclaw_session_runs_no_ping_pong_in_it(live_engine, root):
    engine = imported(live_engine(A2A), root)
    engine.store.sessions.create("agent:main:discord:group:ours", {"chatType": "group"})
    before = engine.store.transcripts.transcript_lines("agent:main:main")
    result = await call_tool(
        engine,
        "sessions_send",
        {"sessionKey": "agent:main:discord:group:ours", "message": "ping", "timeoutSeconds": 5},
        as_key="main",
    )
    await engine.drain()
    assert result["status"] == "ok"  # our own session answered
    assert runs_in(engine, "agent:main:main") == 0  # but nothing ran in OpenClaw's main
    assert engine.store.transcripts.transcript_lines("agent:main:main") == before


def test_every_read_works_on_them(make_engine, root):
    engine = imported(make_engine(), root)
    listed = run_tool(engine, "sessions_list", {"kinds": ["group"], "messageLimit": 1})
    assert GROUP in {r["key"] for r in listed["sessions"]}
    assert run_tool(engine, "sessions_history", {"sessionKey": GROUP})["messages"]


def test_send_command_refuses_with_exit_1(root, tmp_path):
    state = tmp_path / "state"
    engine = imported(Engine(state), root)
    engine.close()
    env = {**os.environ, "SESSIONS_TUI_HOME": str(tmp_path / "home")}
    proc = subprocess.run(
        [sys.executable, "-m", "sessions_tui", "send", GROUP, "hello", "--state", str(state)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "forbidden" in proc.stdout and "lives in OpenClaw" in proc.stdout


def test_a_spawn_from_an_openclaw_session_is_refused_up_front(make_engine, root):
    """Issue 28 item 6: the child would run here and its announce into OpenClaw's session be
    refused, leaving it among OpenClaw's sessions for good: refused before anything is made."""
    engine = imported(make_engine(), root)
    main = engine.main_session_key()
    assert engine.owner_of(main) == root
    before = {s.key for s in engine.store.browse.list_sessions(limit=500)[0]}
    result = run_tool(engine, "sessions_spawn", {"task": "count the words in: a b"}, as_key=GROUP)
    assert result == {
        "status": "forbidden",
        "error": f"sessions_spawn: {GROUP} is OpenClaw's session (mirrored read-only from {root}): "
        "spawn from it in OpenClaw, or act as a session of this engine",
    }
    assert run_tool(engine, "sessions_spawn", {"task": "x"})["status"] == "forbidden"  # main is OpenClaw's too
    assert {s.key for s in engine.store.browse.list_sessions(limit=500)[0]} == before
    assert engine.subagents.children(GROUP) == []


def test_explain_names_the_openclaw_rule_for_a_spawn(make_engine, root):
    from sessions_tui.tools.calling.base import ToolCall
    from sessions_tui.tools.requester.explain import explain_access

    engine = imported(make_engine(), root)
    verdict = explain_access(ToolCall(engine=engine, agent_session_key=GROUP), GROUP).verdict("spawn")
    assert (verdict.allowed, verdict.rule) == (False, "openclaw")
    assert verdict.error is not None and "spawn from it in OpenClaw" in verdict.error


def test_our_own_session_still_spawns_beside_followed_ones(make_engine, root):
    engine = imported(make_engine(), root)
    engine.store.sessions.create("agent:main:discord:group:ours", {"chatType": "group"})
    result = run_tool(engine, "sessions_spawn", {"task": "x"}, as_key="agent:main:discord:group:ours")
    assert result["status"] == "accepted"
