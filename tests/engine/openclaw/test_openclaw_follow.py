"""Following a running OpenClaw: what its gateway writes shows up, and only that is read.

`FakeGateway` writes the real store's schema as the gateway does (see `openclaw_fake`); the
follower ticks by hand here, so each test says exactly which write it waits for.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_tool
from openclaw_fake import FakeGateway, replace_store
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.openclaw.follow import Follower, FollowTick

GROUP = "agent:main:discord:group:123"


@pytest.fixture
def live(tmp_path: Path, make_engine):
    gateway = FakeGateway(tmp_path / "openclaw")
    engine = make_engine()
    follower = Follower(engine.store, engine.canonical, tmp_path / "openclaw")
    first = follower.tick()
    assert first.first and first.failures == [] and first.report.sessions_imported == 10
    yield gateway, engine, follower
    follower.close()
    gateway.close()


def history_texts(engine: Engine, key: str) -> list[str]:
    messages = run_tool(engine, "sessions_history", {"sessionKey": key})["messages"]
    out = []
    for message in messages:
        content = message["content"]
        out.append(content if isinstance(content, str) else " ".join(b.get("text", "") for b in content))
    return out


def test_an_idle_openclaw_costs_a_check_and_writes_nothing(live):
    gateway, engine, follower = live
    version = engine.store.data_version()
    size = Path(engine.store.db_path).stat().st_size
    for _ in range(5):
        tick = follower.tick()
        assert tick.report.changed == {} and tick.failures == []
    assert engine.store.data_version() == version
    assert Path(engine.store.db_path).stat().st_size == size


def test_an_idle_tick_maps_no_keys(tmp_path, make_engine):
    """An idle tick's cost does not grow with the number of sessions (no key is looked at)."""
    gateway = FakeGateway(tmp_path / "openclaw")
    engine = make_engine()
    calls: list[str] = []

    def canonical(raw: str, agent: str) -> str:
        calls.append(raw)
        return engine.canonical(raw, agent)

    follower = Follower(engine.store, canonical, tmp_path / "openclaw")
    try:
        follower.tick()
        calls.clear()
        for _ in range(3):
            follower.tick()
        assert calls == []
        gateway.create_session("agent:main:hook:later")
        follower.tick()
        assert "agent:main:hook:later" in calls
    finally:
        follower.close()
        gateway.close()


def test_new_lines_new_sessions_and_entry_changes_come_in(live):
    gateway, engine, follower = live
    gateway.append(GROUP, {"role": "user", "content": [{"type": "text", "text": "carol: deploy done?"}]})
    gateway.append(
        GROUP,
        {"role": "assistant", "content": [{"type": "text", "text": "yes, at 10:39 " + "x" * 2000}]},
        compress=True,
    )
    gateway.create_session("agent:main:discord:group:777", {"displayName": "new room", "chatType": "group"})
    gateway.append("agent:main:discord:group:777", {"role": "user", "content": "first words"})
    tick = follower.tick()
    assert tick.report.changed == {GROUP: 2, "agent:main:discord:group:777": 1}
    assert history_texts(engine, GROUP)[-2:] == ["carol: deploy done?", "yes, at 10:39 " + "x" * 2000]
    assert history_texts(engine, "agent:main:discord:group:777") == ["first words"]

    gateway.patch("agent:main:cron:job1", label="nightly", status="running", totalTokens=4321, model="gpt-x")
    gateway.archive("agent:main:hook:plain")
    tick = follower.tick()
    assert set(tick.report.changed) == {"agent:main:cron:job1", "agent:main:hook:plain"}
    entry = engine.store.sessions.get("agent:main:cron:job1").entry
    assert (entry["label"], entry["status"], entry["totalTokens"], entry["model"]) == (
        "nightly",
        "running",
        4321,
        "gpt-x",
    )
    listed = {r["key"] for r in run_tool(engine, "sessions_list", {"limit": 50})["sessions"]}
    assert "hook:plain" not in listed and "cron:job1" in listed  # archived in OpenClaw, archived here


def test_a_session_created_before_its_first_line_gets_its_lines_later(live):
    gateway, engine, follower = live
    gateway.conn.execute(
        "INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at) VALUES (?, ?, ?, ?)",
        (
            "agent:main:discord:group:888",
            "88800000-0000-4000-8000-000000000888",
            json.dumps({"sessionId": "88800000-0000-4000-8000-000000000888", "updatedAt": 1}),
            1,
        ),
    )
    follower.tick()
    assert engine.store.transcripts.transcript_lines("agent:main:discord:group:888") == []
    gateway.conn.execute(
        "INSERT INTO session_windows (session_id, session_key, created_at, updated_at) "
        "VALUES ('88800000-0000-4000-8000-000000000888', 'agent:main:discord:group:888', 1, 1)"
    )
    gateway._insert("88800000-0000-4000-8000-000000000888", 0, {"type": "session", "id": "x"})
    gateway.append("agent:main:discord:group:888", {"role": "user", "content": "hello"})
    assert follower.tick().report.changed == {"agent:main:discord:group:888": 1}
    assert history_texts(engine, "agent:main:discord:group:888") == ["hello"]


def test_a_rewritten_transcript_is_read_again_whole(live):
    gateway, engine, follower = live
    gateway.rewrite("agent:main:main", keep=2, summary="Compacted: files listed.")
    tick = follower.tick()
    assert tick.report.changed == {"agent:main:main": 3}
    assert history_texts(engine, "main")[-1] == "Compacted: files listed."
    assert len(engine.store.transcripts.transcript_lines("agent:main:main")) == 3


def test_lines_replaced_without_a_new_generation_are_noticed(live):
    gateway, engine, follower = live
    sid = gateway.session_id("agent:main:cron:job1")
    gateway.conn.execute("DELETE FROM transcript_events WHERE session_id = ? AND seq > 0", (sid,))
    gateway.append("agent:main:cron:job1", {"role": "user", "content": "only line now"})
    follower.tick()
    assert history_texts(engine, "cron:job1") == ["only line now"]


def test_a_deleted_session_is_archived_here_and_keeps_its_transcript(live):
    gateway, engine, follower = live
    lines = engine.store.transcripts.transcript_lines("agent:main:slack:channel:huge")
    gateway.delete("agent:main:slack:channel:huge")
    tick = follower.tick()
    assert any("no longer in OpenClaw" in p for p in tick.report.problems)
    assert engine.store.sessions.get("agent:main:slack:channel:huge").archived_at is not None
    assert engine.store.transcripts.transcript_lines("agent:main:slack:channel:huge") == lines


def test_a_reset_is_reported_once_and_the_old_transcript_kept(live):
    gateway, engine, follower = live
    before = engine.store.transcripts.transcript_lines("agent:main:telegram:direct:999")
    gateway.reset("agent:main:telegram:direct:999")
    assert any("reset in OpenClaw" in p for p in follower.tick().report.problems)
    gateway.append(GROUP, {"role": "user", "content": "unrelated"})
    assert follower.tick().report.problems == []  # said once
    assert engine.store.transcripts.transcript_lines("agent:main:telegram:direct:999") == before


def test_the_gateway_restarting_changes_nothing(live):
    gateway, engine, follower = live
    gateway.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    gateway.close()
    restarted = FakeGateway(gateway.root)
    version = engine.store.data_version()
    assert follower.tick().report.changed == {}
    assert engine.store.data_version() == version
    restarted.append(GROUP, {"role": "user", "content": "after the restart"})
    assert follower.tick().report.changed == {GROUP: 1}
    restarted.close()


def test_a_replaced_store_is_opened_again_and_checked(live):
    gateway, engine, follower = live
    gateway.append("agent:main:main", {"role": "user", "content": "only in the old store"})
    follower.tick()
    gateway.close()
    fresh = replace_store(gateway.root)  # a restore from before that line
    try:
        fresh.append(GROUP, {"role": "user", "content": "in the new store"})
        tick = follower.tick()
        assert tick.failures == []
        assert history_texts(engine, GROUP)[-1] == "in the new store"
        assert "only in the old store" not in history_texts(engine, "main")
    finally:
        fresh.close()


def test_a_missing_directory_is_a_failure_until_it_comes_back(live, tmp_path):
    gateway, engine, follower = live
    gateway.close()
    moved = tmp_path / "elsewhere"
    os.rename(gateway.root, moved)
    follower._next_layout_scan = 0.0  # the next tick looks at the layout again
    tick = follower.tick()
    assert tick.failures and "no such directory" in tick.failures[0]
    os.rename(moved, gateway.root)
    follower._next_layout_scan = 0.0
    assert follower.tick().failures == []


def test_a_legacy_openclaw_is_followed_too(tmp_path, make_engine):
    from openclaw_fake import copy_fixture

    root = copy_fixture(tmp_path / "legacy", "legacy-state")
    engine = make_engine()
    times = iter(range(0, 1000, 10))
    follower = Follower(engine.store, engine.canonical, root, monotonic=lambda: float(next(times)))
    assert follower.tick().report.sessions_imported == 10
    transcript = root / "agents" / "main" / "sessions" / "33333333-3333-4333-8333-333333333333.jsonl"
    with transcript.open("a", encoding="utf-8") as handle:
        handle.write(
            json.dumps(
                {
                    "type": "message",
                    "id": "33330003",
                    "parentId": "33330002",
                    "timestamp": "2026-11-23T10:00:00.000Z",
                    "message": {"role": "user", "content": "legacy line"},
                }
            )
            + "\n"
        )
    assert follower.tick().report.changed == {"agent:main:cron:job1": 1}
    assert follower.tick().report.changed == {}


def test_follow_command_prints_changes_and_stops_cleanly_on_sigterm(tmp_path):
    gateway = FakeGateway(tmp_path / "openclaw")
    env = {**os.environ, "SESSIONS_TUI_HOME": str(tmp_path / "home"), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sessions_tui",
            "import-openclaw",
            str(tmp_path / "openclaw"),
            "--follow",
            "--state",
            str(tmp_path / "state"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        seen = [proc.stdout.readline().strip() for _ in range(3)]
        assert seen[0].startswith("following OpenClaw at")
        assert seen[2] == "imported 10 sessions, updated 0, unchanged 0; 64 transcript lines; 0 problems"
        gateway.append(GROUP, {"role": "user", "content": "while following"})
        line = proc.stdout.readline().strip()
        assert line.endswith(f"{GROUP}  +1 line")  # issue 28 item 9: one line, not `1 lines`
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
        gateway.close()
    assert proc.returncode == 0, err
    assert out.strip().endswith("stopped")
    engine = Engine(tmp_path / "state")
    try:
        assert (
            json.loads(engine.store.transcripts.transcript_lines(GROUP)[-1])["message"]["content"] == "while following"
        )
    finally:
        engine.close()


def test_tick_results_say_first_and_changed(live):
    gateway, _, follower = live
    gateway.append(GROUP, {"role": "user", "content": "x"})
    tick = follower.tick()
    assert isinstance(tick, FollowTick) and not tick.first and tick.changed
