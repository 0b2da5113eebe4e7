"""A state database found damaged while a dashboard, a server or a follow runs (issue 25, item 9).

Each is started on a healthy store; then pages of the store are overwritten, as a disk fault
would, and another connection opening it finds the damage (as a `sessions-tui send` would, with
its check when it opens), or the running process meets it itself. From then on: the damage is
said once, naming the file and what to do; every write is refused, nothing written; reads go on.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx

from cli_support import digest
from damage_support import overwrite, pages_of
from openclaw_fake import FakeGateway
from scenes import DEV, StagedApp
from server_support import TOKEN, local_backend, served
from sessions_tui.backend.values.vocabulary import RunEnded
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.openclaw.follow import Follower, FollowTick, run_follow
from sessions_tui.engine.store.connection import StoreDamaged
from sessions_tui.engine.store.schema import DB_NAME
from sessions_tui.engine.store.store import Store
from sessions_tui.ui.widgets.header import StatusHeader
from ui_support import SIZE, demo_app, send_from_composer, settle, until

AUTH = {"Authorization": f"Bearer {TOKEN}"}
GROUP = "agent:main:discord:group:123"


def damage(state: Path) -> str:
    """Overwrite the pages of the store's search indexes (which listing and history never read),
    and let another connection find it (the check when a store opens); returns the file's digest
    right after."""
    db = state / DB_NAME
    with sqlite3.connect(db) as conn:  # what a running process wrote is in the file, not only in the WAL
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = pages_of(db, ("transcript_text", "sessions_search"))
    assert pages
    overwrite(db, pages)
    finder = Store(state)
    try:
        assert finder.damage is not None
    finally:
        finder.close()
    return digest(db)


def unwritten(state: Path, before: str) -> bool:
    wal = state / f"{DB_NAME}-wal"
    return digest(state / DB_NAME) == before and (not wal.exists() or wal.stat().st_size == 0)


# -- the dashboard --------------------------------------------------------------------------------


def damage_toasts(app) -> list[str]:
    return [n.message for n in app._notifications if n.title.startswith("The state database is damaged")]


async def test_the_dashboard_says_once_that_the_store_is_damaged_and_refuses_every_write(tmp_path):
    state = tmp_path / "state"
    app = demo_app(state, watch_store=False)  # the send meets it first: no poll to notice it before
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = damage(state)
        await send_from_composer(pilot, DEV, "hello")
        outcome = str(app.main_screen.query_one("#outcome").render())
        assert outcome.startswith("error") and "not written" in outcome
        [toast] = damage_toasts(app)
        db = state / DB_NAME
        assert toast.startswith(f"{db}: the state database is damaged (") and f"sqlite3 {db} .recover" in toast
        assert [n.severity for n in app._notifications if n.message == toast] == ["error"]
        header = app.main_screen.query_one(StatusHeader)
        assert header.damaged and "store damaged · read-only" in str(header.render())
        # a second write: refused, with the line again, but the damage is not announced again
        await send_from_composer(pilot, DEV, "again")
        await until(pilot, lambda: any(n.title == "Not written" for n in app._notifications), "the refusal")
        assert len(damage_toasts(app)) == 1
        assert not [n for n in app._notifications if n.title == "Something went wrong"]
        assert unwritten(state, before)


async def test_the_dashboard_notices_damage_another_process_found_without_writing(tmp_path):
    state = tmp_path / "state"
    app = demo_app(state)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        before = damage(state)
        header = app.main_screen.query_one(StatusHeader)
        await until(pilot, lambda: bool(header.damaged), "the header to say the store is damaged")
        await settle(pilot)
        assert len(damage_toasts(app)) == 1
        assert unwritten(state, before)


async def test_the_dashboard_search_says_it_cannot_read_a_damaged_index_refusing_nothing(tmp_path):
    """On a store whose search index is damaged, opened so: the Search view says, in its note,
    that search cannot read it (a read: no "Not written", no error toast); the rest reads on."""
    state = tmp_path / "state"
    staged = demo_app(state)
    config, clock = staged.engine.config, staged.engine.clock
    staged.engine.close()
    before = damage(state)
    app = StagedApp(Engine(state, config, clock=clock), watch_store=False, steady=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f")  # f: find (g is the top row since issue 28)
        await until(pilot, lambda: type(app.screen).__name__ == "SearchScreen", "the Search view")
        screen = app.screen
        for char in "deploy":
            await pilot.press(char)
        await pilot.press("enter")
        await until(pilot, lambda: "search cannot read" in screen.note, "the search to say it cannot read")
        assert screen.note.startswith(f"{state / DB_NAME}: search cannot read the state database")
        await settle(pilot)
        assert not [n for n in app._notifications if n.title in ("Not written", "Something went wrong")]
    app.engine.close()
    assert unwritten(state, before)


# -- the server -----------------------------------------------------------------------------------


def test_the_server_answers_a_write_503_store_damaged_logs_it_once_and_goes_on_reading(tmp_path, caplog):
    state = tmp_path / "state"
    backend = local_backend(state, {"gateway": {"tools": {"allow": ["sessions_send"]}}}, seed=True)
    backend.engine.store.sessions.create("agent:main:mine", {})  # a session of sessions-tui's own (not OpenClaw's)
    send = {"tool": "sessions_send", "args": {"sessionKey": "main", "message": "hi", "timeoutSeconds": 0}}
    with (
        caplog.at_level(logging.ERROR),
        served(backend, allow=("sessions_send",)) as url,
        httpx.Client(base_url=url, timeout=30) as client,
    ):
        before = damage(state)
        for _ in range(2):
            answer = client.post("/tools/invoke", json=send, headers=AUTH)
            assert answer.status_code == 503
            error = answer.json()["error"]
            assert answer.json()["ok"] is False and error["type"] == "store_damaged"
            assert error["message"].startswith(f"{state / DB_NAME}: the state database is damaged (")
            assert ".recover" in error["message"]
        command = client.post(
            "/sessions-tui/v1/owner_command", json={"key": "agent:main:mine", "text": "/send off"}, headers=AUTH
        )
        assert command.status_code == 503 and command.json()["error"]["type"] == "store_damaged"
        listed = client.post("/tools/invoke", json={"tool": "sessions_list", "args": {}}, headers=AUTH)
        assert listed.status_code == 200 and listed.json()["result"]["details"]["sessions"]
        assert unwritten(state, before)
    logged = [r.getMessage() for r in caplog.records if "the state database is damaged" in r.getMessage()]
    assert len(logged) == 1 and logged[0].endswith("; nothing more is written to it, reads go on")
    assert "Traceback" not in caplog.text


def test_a_hook_on_a_damaged_store_is_answered_503_store_damaged_and_writes_nothing(tmp_path):
    from sessions_tui.cli.commands.serve import hook_settings

    state = tmp_path / "state"
    backend = local_backend(state, {"hooks": {"enabled": True, "token": "hook-t"}})
    backend.engine.store.sessions.create("agent:main:mine", {})
    with served(backend, hooks=hook_settings(backend)) as url, httpx.Client(base_url=url, timeout=30) as client:
        before = damage(state)
        answer = client.post("/hooks/agent", json={"message": "x"}, headers={"Authorization": "Bearer hook-t"})
        assert answer.status_code == 503 and answer.json()["error"]["type"] == "store_damaged"
        assert unwritten(state, before)


# -- the OpenClaw follow --------------------------------------------------------------------------


def test_the_follow_loop_reports_damage_once_and_stops(tmp_path, make_engine):
    gateway = FakeGateway(tmp_path / "openclaw")
    engine = make_engine()
    ticks: list[FollowTick] = []
    before: list[str] = []

    def on_tick(tick: FollowTick) -> None:
        ticks.append(tick)
        if len(ticks) == 1:  # imported; then the store is found damaged, and the gateway writes on
            before.append(damage(engine.state_dir))
            gateway.append(GROUP, {"role": "user", "content": "after the damage"})

    async def follow() -> None:
        await asyncio.wait_for(
            run_follow(Follower(engine.store, engine.canonical, tmp_path / "openclaw"), asyncio.Event(), on_tick), 30
        )

    try:
        asyncio.run(follow())  # returns by itself: nothing set `stop`
    finally:
        gateway.close()
    assert [t.stopped is not None for t in ticks] == [False, True]
    assert ticks[1].stopped.startswith(f"{engine.store.db_path}: the state database is damaged (")
    assert ticks[1].stopped.endswith("; following stopped")
    assert unwritten(engine.state_dir, before[0])


def test_the_follow_command_says_the_damage_in_one_line_and_exits_2(tmp_path):
    gateway = FakeGateway(tmp_path / "openclaw")
    state = tmp_path / "state"
    env = {**os.environ, "SESSIONS_TUI_HOME": str(tmp_path / "home"), "PYTHONUNBUFFERED": "1"}
    argv = [sys.executable, "-m", "sessions_tui", "import-openclaw", str(tmp_path / "openclaw"), "--follow"]
    proc = subprocess.Popen(
        [*argv, "--state", str(state)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        assert proc.stdout is not None
        seen = [proc.stdout.readline().strip() for _ in range(3)]
        assert seen[2].startswith("imported 10 sessions")
        before = damage(state)
        gateway.append(GROUP, {"role": "user", "content": "after the damage"})
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        gateway.close()
    assert proc.returncode == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"sessions-tui: {state / DB_NAME}: the state database is damaged (")
    assert err.endswith("; following stopped\n") and "stopped" not in out
    assert unwritten(state, before)


# -- the engine's own background work -------------------------------------------------------------


def test_a_run_that_cannot_start_on_a_damaged_store_ends_saying_why(make_engine):
    engine: Engine = make_engine({"models": {"demo": {"latencyMs": 0, "chunkMs": 0}}})
    key = engine.canonical("main")
    engine.store.sessions.create(key, {})
    engine.store.transcripts.append(key, {"role": "user", "content": "hi"})
    ended: list[RunEnded] = []
    engine.events.subscribe(lambda e: ended.append(e) if isinstance(e, RunEnded) else None)

    async def go() -> None:
        from sessions_tui.engine.runs.runs import RunRequest

        run_id = engine.runs.start(RunRequest(session_key=key, message="hello"))
        damage(engine.state_dir)  # queued, not yet started: its start meets the damage
        await engine.runs.drain()
        assert [e.run_id for e in ended] == [run_id]

    asyncio.run(go())
    assert ended[0].status == "error" and "the state database is damaged" in (ended[0].error or "")
    try:
        engine.store.transcripts.append(key, {"role": "user", "content": "more"})
    except StoreDamaged:
        pass
    else:
        raise AssertionError("a write to a store another connection found damaged went through")
