"""Stopping a session's running turn as its operator (`Backend.abort_run`, engine/subagents/run_controls.py
`abort_session`): a turn this process runs is killed here; one another process runs is killed there,
through a `run_controls` row it serves; `clear_queued` drops the turns waiting behind it, in every
process holding one; each stop is in the audit log. Not running is no error; a key of no session is.

Two engines on one state directory stand for two processes (as in test_run_controls.py); one test
stops a turn a real `sessions-tui send` runs in another process."""

import asyncio
import os
import sys

import pytest

from conftest import FAST_DEMO, add_session
from scenes import merge
from server_support import local_backend
from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.backend.values.vocabulary import ToolInputError
from sessions_tui.engine.runs.runs import RunRequest
from sessions_tui.engine.subagents import run_controls
from sessions_tui.tools.calling.host import EngineToolHost

KEY = "agent:main:discord:group:ops"
SLOW = merge(FAST_DEMO, {"models": {"demo": {"latencyMs": 600_000, "chunkMs": 0}}})
NOT_THIS_PROCESS = 2**22 + 4321  # above Linux's pid_max: never a live process


def slow_engine(make_engine, state=None):
    engine = make_engine(SLOW, state=state)
    EngineToolHost(engine)
    return engine


async def running(engine, message="work slowly"):
    """A turn started in KEY, once it runs."""
    run_id = engine.runs.start(RunRequest(session_key=KEY, message=message))
    for _ in range(500):
        if engine.runs.get(run_id).status == "running":
            return run_id
        await asyncio.sleep(0)
    raise AssertionError("the turn did not start")


def statuses(engine):
    with engine.store.read() as conn:
        return dict(conn.execute("SELECT run_id, status FROM runs WHERE session_key = ?", (KEY,)).fetchall())


def stops(engine):
    return [entry for entry in engine.store.audit.audit_rows(10) if entry.kind == "run_aborted"]


async def test_a_turn_running_here_is_stopped(make_engine):
    engine = slow_engine(make_engine)
    add_session(engine, KEY)
    run_id = await running(engine)
    done = await LocalBackend(engine).abort_run("discord:group:ops")  # any spelling of the key
    assert (done.session_key, done.aborted, done.run_id, done.status, done.cleared_queued) == (
        KEY,
        True,
        run_id,
        "aborted",
        0,
    )
    assert engine.runs.get(run_id).status == "killed"
    [entry] = stops(engine)
    assert (entry.session_key, entry.reason, entry.via) == (KEY, "aborted", "operator")
    assert entry.data == {"runId": run_id, "clearedQueued": [], "pid": os.getpid()}
    await engine.aclose()


async def test_the_queue_stays_unless_it_is_cleared(make_engine):
    engine = slow_engine(make_engine)
    add_session(engine, KEY)
    first = await running(engine)
    second = engine.runs.start(RunRequest(session_key=KEY, message="next"))
    third = engine.runs.start(RunRequest(session_key=KEY, message="after"))
    backend = LocalBackend(engine)
    done = await backend.abort_run(KEY)
    assert done.aborted and done.run_id == first and done.cleared_queued == 0
    for _ in range(500):  # the next one takes the turn
        if engine.runs.get(second).status == "running":
            break
        await asyncio.sleep(0)
    done = await backend.abort_run(KEY, clear_queued=True)
    assert done.aborted and done.run_id == second and done.cleared_queued == 1
    assert statuses(engine) == {first: "killed", second: "killed", third: "killed"}
    assert stops(engine)[0].data["clearedQueued"] == [third]
    await engine.aclose()


async def test_no_turn_running_is_no_active_run(make_engine):
    engine = slow_engine(make_engine)
    add_session(engine, KEY)
    done = await LocalBackend(engine).abort_run(KEY, clear_queued=True)
    assert (done.aborted, done.run_id, done.status, done.cleared_queued) == (False, None, "no-active-run", 0)
    assert stops(engine) == []


async def test_a_key_of_no_session_is_an_input_error(make_engine):
    engine = slow_engine(make_engine)
    with pytest.raises(ToolInputError, match="No session found: agent:main:nowhere"):
        await LocalBackend(engine).abort_run("agent:main:nowhere")


def pair(make_engine, tmp_path):
    """(owner, requester): two engines on one state directory, the requester another "process"."""
    owner = slow_engine(make_engine, tmp_path / "s")
    requester = slow_engine(make_engine, tmp_path / "s")
    requester.run_controls.pid = NOT_THIS_PROCESS
    owner.run_controls.start()
    return owner, requester


async def test_a_turn_another_process_runs_is_stopped_there(make_engine, tmp_path):
    owner, requester = pair(make_engine, tmp_path)
    add_session(owner, KEY)
    run_id = await running(owner)
    waiting = owner.runs.start(RunRequest(session_key=KEY, message="next"))
    done = await LocalBackend(requester).abort_run(KEY, clear_queued=True)
    assert (done.aborted, done.run_id, done.status, done.cleared_queued) == (True, run_id, "aborted", 1)
    assert statuses(owner) == {run_id: "killed", waiting: "killed"}
    [control] = [owner.store.run_controls.get_run_control(1)]
    assert control.action == "abort" and control.owner_pid == os.getpid()
    assert control.result == {"stopped": True, "cleared": [waiting]}
    assert stops(owner)[0].data["pid"] == os.getpid()
    await owner.aclose()


async def test_a_process_that_does_not_answer_leaves_it_still_running(make_engine, tmp_path, monkeypatch):
    owner, requester = pair(make_engine, tmp_path)
    await owner.run_controls.aclose()  # alive, but serving nothing
    monkeypatch.setattr(run_controls, "CONTROL_WAIT_SECONDS", 0.2)
    add_session(owner, KEY)
    run_id = await running(owner)
    done = await LocalBackend(requester).abort_run(KEY)
    assert (done.aborted, done.run_id, done.status) == (False, run_id, "still-running")
    assert owner.runs.get(run_id).status == "running"
    assert stops(owner)[0].reason == "still-running"
    await owner.runs.kill(run_id)
    await owner.aclose()


async def test_a_turn_waiting_for_another_process_is_dropped_with_the_queue(make_engine, monkeypatch):
    """This process's turn waits behind one another live process runs (that one answers nothing
    here): clearing the queue ends the waiting one at once, and the other is still running."""
    monkeypatch.setattr(run_controls, "CONTROL_WAIT_SECONDS", 0.2)
    engine = slow_engine(make_engine)
    add_session(engine, KEY)
    other = os.getppid()  # alive, and serving no run controls
    with engine.store.write() as conn:
        conn.execute(
            "INSERT INTO runs (run_id, session_key, status, pid, created_at) VALUES ('r-other', ?, 'running', ?, 0)",
            (KEY, other),
        )
    waiting = engine.runs.start(RunRequest(session_key=KEY, message="mine, after yours"))
    await asyncio.sleep(0.01)  # its worker polls for the turn
    assert engine.runs.active_run(KEY) == waiting and engine.runs.get(waiting).status == "queued"
    done = await LocalBackend(engine).abort_run(KEY, clear_queued=True)
    assert (done.status, done.run_id, done.cleared_queued) == ("still-running", "r-other", 1)
    assert engine.runs.get(waiting).status == "killed" and engine.runs.active_run(KEY) is None
    await engine.aclose()


async def test_a_send_in_another_shell_is_stopped(tmp_path):
    """`sessions-tui send` in another shell runs a slow turn; the operator stops it from here, and
    that command ends."""
    state = tmp_path / "s"
    backend = local_backend(state, SLOW)
    await backend.start()
    try:
        add_session(backend.engine, KEY)
        env = {k: v for k, v in os.environ.items() if k not in ("SESSIONS_TUI_HOME", "SESSIONS_TUI_CONFIG")}
        proc = await asyncio.create_subprocess_exec(
            *[sys.executable, "-m", "sessions_tui", "--state", str(state), "send", KEY, "take your time"],
            *["--timeout", "0"],
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        for _ in range(600):
            live = backend.engine.store.runs.live_runs(KEY)
            if live and live[0].status == "running":
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the other shell's turn did not start")
        assert live[0].pid == proc.pid
        done = await backend.abort_run(KEY)
        assert done.aborted and done.run_id == live[0].run_id, done
        out, err = await asyncio.wait_for(proc.communicate(), 30)
        assert backend.engine.store.runs.get_run(live[0].run_id).status == "killed"
        assert proc.returncode is not None, (out, err)
    finally:
        await backend.aclose()


async def test_a_stop_is_seen_in_the_transcript_and_the_send_ledger(make_engine):
    """The stopped send's ledger entry says `aborted` (by whom); the transcript gets a line saying
    the run stopped and what was dropped from the queue, shown as OpenClaw shows a custom message."""
    engine = slow_engine(make_engine)
    add_session(engine, KEY)
    send = await LocalBackend(engine).call_tool(
        "sessions_send", {"sessionKey": KEY, "message": "work slowly", "timeoutSeconds": 0}, Requester()
    )
    run_id = send["runId"]
    for _ in range(500):
        if engine.runs.get(run_id).status == "running":
            break
        await asyncio.sleep(0)
    waiting = engine.runs.start(RunRequest(session_key=KEY, message="next"))
    done = await LocalBackend(engine).abort_run(KEY, clear_queued=True)
    assert (done.status, done.run_id, done.cleared_queued) == ("aborted", run_id, 1)
    states = [(s.state, s.detail) for s in engine.ledger.entry(run_id).states]
    assert ("aborted", {"by": "the operator", "status": "aborted"}) in states
    history = await LocalBackend(engine).call_tool("sessions_history", {"sessionKey": KEY}, Requester())
    shown = history["messages"][-1]
    assert (shown["role"], shown["customType"], shown["content"]) == (
        "custom",
        "sessions-tui.stop",
        f"Stopped by the operator (run {run_id}; 1 queued message dropped)",
    )
    assert shown["__openclaw"]["runId"] == run_id and waiting != run_id
    await engine.aclose()
