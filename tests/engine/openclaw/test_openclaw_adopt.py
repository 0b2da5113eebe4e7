"""`import_openclaw(..., adopt=True)`: an OpenClaw store's sessions become the engine's, on both layouts.

Everything comes over as a plain import brings it (keys, sessionIds, entries, every line); the
sessions are then run as the engine's own: sends (wait, ping-pong, announce), spawns (the child
announcing back) and the operator's operations behave exactly as in a session the engine made.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import call_tool
from openclaw_fake import FakeGateway, copy_fixture
from sessions_tui.engine import session_operations as ops
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.events import SendProgress
from sessions_tui.engine.openclaw.follow import Follower
from sessions_tui.engine.openclaw.importer import AdoptRefused, import_openclaw
from sessions_tui.engine.openclaw.mirror import ImportReport

GROUP = "agent:main:discord:group:123"
MAIN = "agent:main:main"
NEW = "agent:main:discord:group:new"
A2A = {"tools": {"agentToAgent": {"enabled": True}}}
LAYOUTS = ["sqlite-state", "legacy-state"]


@pytest.fixture(params=LAYOUTS)
def layout(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def root(tmp_path: Path, layout: str) -> Path:
    """The recorded store's copy; for SQLite, its rows in a store this SQLite can write to (as the
    gateway does: `FakeGateway`)."""
    if layout == "legacy-state":
        return copy_fixture(tmp_path / "openclaw", layout)
    FakeGateway(tmp_path / "openclaw").close()
    return tmp_path / "openclaw"


def adopt(engine: Engine, root: Path) -> ImportReport:
    return import_openclaw(engine.store, engine.canonical, root, adopt=True)


def sessions_of(engine: Engine) -> dict[str, tuple[str, dict[str, Any], list[str]]]:
    """Every session: its sessionId, entry and transcript lines as stored."""
    with engine.store.read() as conn:
        keys = [r[0] for r in conn.execute("SELECT key FROM sessions ORDER BY key")]
    out = {}
    for key in keys:
        session = engine.store.sessions.get(key)
        assert session is not None
        out[key] = (session.session_id, dict(session.entry), ops.transcript_of(engine, session.session_id))
    return out


# -- growing a store as OpenClaw would ------------------------------------------------------------


def _legacy_dir(root: Path) -> Path:
    return root / "agents" / "main" / "sessions"


def grow(root: Path, layout: str, key: str, text: str) -> None:
    """One user line more in `key`'s transcript, written as OpenClaw writes it."""
    if layout == "sqlite-state":
        gateway = FakeGateway(root)
        gateway.append(key, {"role": "user", "content": [{"type": "text", "text": text}]})
        gateway.close()
        return
    index = json.loads((_legacy_dir(root) / "sessions.json").read_text(encoding="utf-8"))
    path = _legacy_dir(root) / f"{index[key]['sessionId']}.jsonl"
    last = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])
    line = {
        "type": "message",
        "id": f"grown-{len(text)}-{abs(hash(text)) % 10_000}",
        "parentId": last.get("id"),
        "timestamp": "2026-11-22T10:00:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1795341600000},
    }
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def add_openclaw_session(root: Path, layout: str, key: str) -> None:
    """A new session with one line, in OpenClaw."""
    if layout == "sqlite-state":
        gateway = FakeGateway(root)
        gateway.create_session(key, {"chatType": "group"})
        gateway.append(key, {"role": "user", "content": [{"type": "text", "text": "first"}]})
        gateway.close()
        return
    sid = "12121212-1212-4121-8121-121212121212"
    index_path = _legacy_dir(root) / "sessions.json"
    index = json.loads(index_path.read_text(encoding="utf-8"))
    index[key] = {"sessionId": sid, "updatedAt": 1795341600000, "chatType": "group"}
    index_path.write_text(json.dumps(index), encoding="utf-8")
    header = {"type": "session", "version": 3, "id": sid, "timestamp": "2026-11-22T10:00:00.000Z", "cwd": "/w"}
    line = {
        "type": "message",
        "id": "n1",
        "parentId": None,
        "timestamp": "2026-11-22T10:00:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "first"}], "timestamp": 1795341600000},
    }
    (_legacy_dir(root) / f"{sid}.jsonl").write_text(
        json.dumps(header) + "\n" + json.dumps(line) + "\n", encoding="utf-8"
    )


# -- taking a store over --------------------------------------------------------------------------


def test_adopting_keeps_every_key_session_id_entry_and_line_as_an_import_does(make_engine, root):
    mirrored = make_engine()
    import_openclaw(mirrored.store, mirrored.canonical, root)
    engine = make_engine()
    report = adopt(engine, root)
    assert report.problems == []
    assert sessions_of(engine) == sessions_of(mirrored)
    assert report.adopted_sessions == report.sessions_imported == len(sessions_of(engine)) >= 10
    assert report.lines_imported > 0


def test_after_adopting_every_session_is_the_engines(make_engine, root):
    engine = make_engine()
    adopt(engine, root)
    keys = list(sessions_of(engine))
    assert keys and all(engine.owner_of(key) is None for key in keys)
    mirrored = make_engine()
    import_openclaw(mirrored.store, mirrored.canonical, root)
    assert all(mirrored.owner_of(key) == root for key in keys)  # a plain import: OpenClaw's


def test_a_plain_import_adopted_later_switches_to_the_engines_taking_nothing_twice(make_engine, root):
    engine = make_engine()
    import_openclaw(engine.store, engine.canonical, root)
    before = sessions_of(engine)
    assert engine.owner_of(GROUP) == root
    report = adopt(engine, root)
    assert (report.adopted_sessions, report.lines_imported, report.sessions_imported) == (len(before), 0, 0)
    assert sessions_of(engine) == before
    assert engine.owner_of(GROUP) is None


def test_adopting_again_takes_only_what_is_new(make_engine, root, layout):
    engine = make_engine()
    adopt(engine, root)
    grow(root, layout, GROUP, "one more from OpenClaw")
    add_openclaw_session(root, layout, NEW)
    before = sessions_of(engine)
    again = adopt(engine, root)
    assert (again.adopted_sessions, again.sessions_imported, again.sessions_updated) == (2, 1, 1)
    assert again.lines_imported == 2 and again.kept == {}
    after = sessions_of(engine)
    assert after[GROUP][2][: len(before[GROUP][2])] == before[GROUP][2]
    assert len(after[GROUP][2]) == len(before[GROUP][2]) + 1 and "one more from OpenClaw" in after[GROUP][2][-1]
    assert engine.owner_of(NEW) is None and len(after[NEW][2]) == 1
    assert {k: v for k, v in after.items() if k not in (GROUP, NEW)} == {k: v for k, v in before.items() if k != GROUP}
    third = adopt(engine, root)
    assert (third.adopted_sessions, third.lines_imported, third.sessions_unchanged) == (0, 0, len(after))


def test_what_the_engine_wrote_since_is_never_overwritten(make_engine, root, layout):
    """Both grew: the engine's session is kept as it is, and the report names it."""
    engine = make_engine()
    adopt(engine, root)
    engine.store.transcripts.append(GROUP, {"role": "user", "content": "written here"})
    ops.rename_session(engine, "agent:main:cron:job1", "renamed here")
    grow(root, layout, GROUP, "written in OpenClaw")
    grow(root, layout, "agent:main:cron:job1", "also in OpenClaw")
    grow(root, layout, MAIN, "only OpenClaw wrote here")
    before = sessions_of(engine)
    report = adopt(engine, root)
    assert report.kept == {GROUP: 1, "agent:main:cron:job1": 1}
    after = sessions_of(engine)
    assert after[GROUP] == before[GROUP] and after["agent:main:cron:job1"] == before["agent:main:cron:job1"]
    assert "only OpenClaw wrote here" in after[MAIN][2][-1]  # untouched here: taken
    assert report.adopted_sessions == 1
    assert adopt(engine, root).kept == report.kept  # said again until the two are reconciled


def test_a_session_deleted_here_after_adopting_is_not_brought_back(make_engine, root, layout):
    engine = make_engine()
    adopt(engine, root)
    ops.delete_session(engine, GROUP)
    grow(root, layout, GROUP, "written in OpenClaw")
    report = adopt(engine, root)
    assert engine.store.sessions.get(GROUP) is None and report.kept == {GROUP: 1}


def test_a_followed_store_is_refused_and_nothing_changes(make_engine, root):
    engine = make_engine()
    follower = Follower(engine.store, engine.canonical, root)
    follower.tick()
    follower.close()
    before = sessions_of(engine)
    with pytest.raises(AdoptRefused, match="is followed by this state directory"):
        adopt(engine, root)
    assert sessions_of(engine) == before and engine.owner_of(GROUP) == root
    other = make_engine()  # another state directory, which does not follow it, may adopt it
    assert adopt(other, root).adopted_sessions == len(before)


def test_a_follow_never_mirrors_into_an_adopted_session(make_engine, root, layout):
    engine = make_engine()
    adopt(engine, root)
    grow(root, layout, GROUP, "written in OpenClaw")
    before = sessions_of(engine)
    follower = Follower(engine.store, engine.canonical, root)
    follower.tick()
    follower.close()
    assert sessions_of(engine)[GROUP] == before[GROUP] and engine.owner_of(GROUP) is None


# -- run as the engine's own ----------------------------------------------------------------------


def twin(make_engine: Any, adopted: Engine, *keys: str) -> Engine:
    """A fresh engine with sessions the engine made under the same keys and entries (no lines)."""
    engine = make_engine(A2A)
    from sessions_tui.tools.calling.host import EngineToolHost

    EngineToolHost(engine)
    for key in keys:
        session = adopted.store.sessions.get(key)
        assert session is not None
        engine.store.sessions.create(key, {k: v for k, v in session.entry.items() if k != "sessionId"})
    return engine


async def send_trace(engine: Engine, target: str, as_key: str) -> dict[str, Any]:
    """A waited `sessions_send` with its ping-pong and announce, as far as they can be compared."""
    progress: list[SendProgress] = []
    engine.events.subscribe(lambda e: progress.append(e) if isinstance(e, SendProgress) else None)
    result = await call_tool(
        engine, "sessions_send", {"sessionKey": target, "message": "status of the deploy?"}, as_key=as_key
    )
    await engine.drain()
    return {
        "status": result["status"],
        "reply": result.get("reply"),
        "phases": [(p.phase, p.speaker) for p in progress],
        "announces": [(d.channel, d.to, d.message) for d in engine.outbox.list()],
    }


async def test_a_send_waits_ping_pongs_and_announces_as_in_a_session_the_engine_made(live_engine, make_engine, root):
    engine = live_engine(A2A)
    await asyncio.to_thread(adopt, engine, root)
    before = len(engine.store.transcripts.transcript_lines(GROUP))
    trace = await send_trace(engine, GROUP, MAIN)
    assert trace["status"] == "ok" and trace["reply"]
    assert any(phase == "ping_pong" for phase, _ in trace["phases"])
    assert trace["announces"] and trace["announces"][0][0] == "discord"
    assert len(engine.store.transcripts.transcript_lines(GROUP)) > before  # written after the adopted lines
    made = twin(make_engine, engine, GROUP, MAIN)
    assert await send_trace(made, GROUP, MAIN) == trace


async def test_a_spawn_from_an_adopted_session_announces_back(live_engine, make_engine, root):
    engine = live_engine(A2A)
    await asyncio.to_thread(adopt, engine, root)

    async def spawned(engine: Engine) -> list[tuple[str | None, str]]:
        result = await call_tool(engine, "sessions_spawn", {"task": "count the words in: a b c"}, as_key=GROUP)
        assert result["status"] == "accepted", result
        assert result["childSessionKey"].startswith("agent:main:subagent:")
        await engine.drain()
        return [(a.status, a.text.split("\n")[0]) for a in engine.subagents.announcements(GROUP)]

    announced = await spawned(engine)
    assert announced == [("ok", "Status: completed successfully")]
    assert await spawned(twin(make_engine, engine, GROUP, MAIN)) == announced


def test_the_operators_rename_and_reset_work_in_an_adopted_session(make_engine, root):
    engine = make_engine()
    adopt(engine, root)
    old = engine.store.sessions.get(GROUP)
    assert old is not None
    lines = ops.transcript_of(engine, old.session_id)
    renamed = ops.rename_session(engine, GROUP, "ops room")
    assert renamed.op == "rename" and engine.store.sessions.get(GROUP).entry["label"] == "ops room"
    reset = ops.reset_session(engine, GROUP)
    assert reset.previous_session_id == old.session_id and reset.session_id != old.session_id
    assert ops.transcript_of(engine, old.session_id) == lines  # the adopted transcript stays reachable
    [boundary] = engine.store.transcripts.transcript_lines(GROUP)  # the new transcript: its Reset line only
    assert json.loads(boundary)["type"] == "reset" and json.loads(boundary)["previousSessionId"] == old.session_id
