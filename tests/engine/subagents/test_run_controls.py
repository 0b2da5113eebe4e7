"""Kill and steer across processes (engine/subagents/run_controls.py): a run another process executes is killed or
steered in that process, through a `run_controls` request it serves; a dead owner's runs are the
start-up's orphans; an owner that does not answer is a clear error.

Two engines on one state directory stand for two processes: the requester's `run_controls.pid`
is set to another number, so the owner's runs (recorded with this test's pid) are another live
process's to it. One test runs `sessions-tui tool subagents` as a real second process."""

import asyncio
import json
import os
import sys
from pathlib import Path

from conftest import FAST_DEMO, NOW_MS, add_session, call_tool
from scenes import merge
from server_support import local_backend
from sessions_tui.engine.run_end import INTERRUPTED
from sessions_tui.engine.store.tables.registry import SubagentRow
from sessions_tui.engine.subagents import run_controls
from sessions_tui.engine.subagents.run_controls import ControlFailed
from sessions_tui.tools.calling.host import EngineToolHost

REQ = "agent:main:discord:group:req"
SLOW = merge(FAST_DEMO, {"models": {"demo": {"latencyMs": 600_000, "chunkMs": 0}}})
TWO_LEVELS = merge(SLOW, {"agents": {"defaults": {"subagents": {"maxSpawnDepth": 2}}}})
NOT_THIS_PROCESS = 2**22 + 4321  # above Linux's pid_max: never a live process


def pair(make_engine, state: Path, config=SLOW):
    """(owner, requester): two engines on one state directory, the requester another "process"."""
    owner = make_engine(config, state=state)
    requester = make_engine(config, state=state)
    for engine in (owner, requester):
        EngineToolHost(engine)
    requester.run_controls.pid = NOT_THIS_PROCESS
    owner.run_controls.start()
    return owner, requester


async def spawn(engine, task, label, as_key=REQ):
    result = await call_tool(engine, "sessions_spawn", {"task": task, "label": label}, as_key=as_key)
    assert result["status"] == "accepted", result
    for _ in range(200):  # the session worker claims the run within a few turns of the loop
        if engine.runs.get(result["runId"]).status == "running":
            return result
        await asyncio.sleep(0)
    raise AssertionError("the child did not start")


def announces(engine, key):
    return [m["content"][0]["text"] for m in engine.store.transcripts.history(key).messages if m.get("announce")]


def live_runs(engine, key):
    with engine.store.read() as conn:
        rows = conn.execute("SELECT status FROM runs WHERE session_key = ?", (key,)).fetchall()
    return [r[0] for r in rows if r[0] in ("queued", "running")]


def dead_pid() -> int:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


async def test_a_kill_from_another_process_ends_the_run_where_it_runs(make_engine, tmp_path):
    owner, requester = pair(make_engine, tmp_path / "s")
    add_session(owner, REQ)
    child = await spawn(owner, "slow work", "slow")
    result = await call_tool(requester, "subagents", {"action": "kill", "target": "slow"}, as_key=REQ)
    assert result["status"] == "ok" and result["text"] == "killed slow.", result
    assert owner.runs.get(child["runId"]).status == "killed"
    assert owner.runs.active_run(child["childSessionKey"]) is None and live_runs(owner, child["childSessionKey"]) == []
    [text] = announces(owner, REQ)
    assert text.startswith("Status: killed\n")
    assert owner.store.run_controls.pending_run_controls() == []
    control = owner.store.run_controls.get_run_control(1)
    assert control.owner_pid == os.getpid() and control.done_at is not None and control.result == {"wasLive": True}
    await owner.aclose()


async def test_a_subtree_run_elsewhere_is_killed_deepest_first(make_engine, tmp_path):
    owner, requester = pair(make_engine, tmp_path / "s", TWO_LEVELS)
    add_session(owner, REQ)
    boss = await spawn(owner, "orchestrate", "boss")
    digger = await spawn(owner, "dig", "digger", as_key=boss["childSessionKey"])
    result = await call_tool(requester, "subagents", {"action": "kill", "target": "boss"}, as_key=REQ)
    assert result["status"] == "ok" and result["cascadeKilled"] == 1 and result["cascadeLabels"] == ["digger"]
    for spawned in (boss, digger):
        assert owner.runs.get(spawned["runId"]).status == "killed"
        assert live_runs(owner, spawned["childSessionKey"]) == []
    assert announces(owner, boss["childSessionKey"])[0].startswith("Status: killed\n")
    assert announces(owner, REQ)[0].startswith("Status: killed\n")
    await owner.aclose()


async def test_a_steer_from_another_process_is_queued_where_the_child_runs(make_engine, tmp_path):
    owner, requester = pair(make_engine, tmp_path / "s")
    add_session(owner, REQ)
    child = await spawn(owner, "long job", "worker")
    params = {"action": "steer", "target": "worker", "message": "focus on tests"}
    result = await call_tool(requester, "subagents", params, as_key=REQ)
    assert result["status"] == "accepted" and result["runId"] == child["runId"], result
    assert owner.runs.queued(child["childSessionKey"]) == [result["queuedRunId"]]
    assert requester.runs.queued(child["childSessionKey"]) == []
    assert owner.store.runs.get_run(result["queuedRunId"]).pid == os.getpid()
    await call_tool(owner, "subagents", {"action": "kill", "target": "all"}, as_key=REQ)
    await owner.aclose()


async def test_an_owner_that_does_not_answer_is_an_error_and_the_run_goes_on(make_engine, tmp_path, monkeypatch):
    owner, requester = pair(make_engine, tmp_path / "s")
    await owner.run_controls.aclose()  # alive, but serving nothing
    monkeypatch.setattr(run_controls, "CONTROL_WAIT_SECONDS", 0.2)
    add_session(owner, REQ)
    child = await spawn(owner, "slow work", "slow")
    result = await call_tool(requester, "subagents", {"action": "kill", "target": "slow"}, as_key=REQ)
    assert result["status"] == "error"
    assert result["error"] == f"slow: the process running it (pid {os.getpid()}) did not answer within 0.2 s"
    assert owner.runs.get(child["runId"]).status == "running"
    assert (
        owner.store.run_controls.pending_run_controls() == []
    )  # the request is closed: a late owner does not act on it
    await owner.run_controls.serve_pending()
    assert owner.runs.get(child["runId"]).status == "running"
    await call_tool(owner, "subagents", {"action": "kill", "target": "all"}, as_key=REQ)
    await owner.aclose()


async def test_asking_a_process_that_has_stopped_fails_clearly(engine):
    pid = dead_pid()
    try:
        await engine.run_controls.request(pid, "some-run", "kill")
    except ControlFailed as exc:
        assert str(exc) == f"the process running it (pid {pid}) has stopped"
    else:
        raise AssertionError("no ControlFailed")
    control = engine.store.run_controls.get_run_control(1)
    assert control.done_at is not None and control.result == {
        "error": f"the process running it (pid {pid}) has stopped"
    }


async def test_a_run_left_by_a_dead_process_is_an_orphan_not_a_kill(live_engine):
    engine = live_engine()
    add_session(engine, REQ)
    child_key = add_session(engine, "agent:main:subagent:orphan", spawnedBy=REQ)
    engine.store.registry.insert_subagent_run(
        SubagentRow(run_id="r-orphan", child_key=child_key, requester_key=REQ, task="orphan", created_at=NOW_MS)
    )
    pid = dead_pid()
    with engine.store.write() as conn:
        conn.execute(
            "INSERT INTO runs (run_id, session_key, status, pid, created_at) VALUES ('r-orphan', ?, 'running', ?, 0)",
            (child_key, pid),
        )
    result = await call_tool(engine, "subagents", {"action": "kill", "target": "orphan"}, as_key=REQ)
    assert result["status"] == "done"
    assert (
        result["text"]
        == f"orphan is already finished (the process running it, pid {pid}, had stopped: it ended as interrupted)."
    )
    record = engine.runs.get("r-orphan")
    assert record.status == "error" and record.error == INTERRUPTED
    await engine.drain()
    [text] = announces(engine, REQ)
    assert text.startswith("Status: finished with unknown status\n")
    assert engine.store.run_controls.pending_run_controls() == []


def test_requests_left_for_a_stopped_process_are_closed_at_start(engine):
    pid = dead_pid()
    gone = engine.store.run_controls.add_run_control("r1", "kill", None, pid)
    mine = engine.store.run_controls.add_run_control("r2", "steer", "hi", engine.run_controls.pid)
    assert engine.run_controls.recover() == [gone]
    assert [row.id for row in engine.store.run_controls.pending_run_controls()] == [mine]
    assert engine.store.run_controls.get_run_control(gone).result == {
        "error": f"the process running it (pid {pid}) has stopped"
    }


def test_an_answer_counts_once(engine):
    control = engine.store.run_controls.add_run_control("r1", "kill", None, os.getpid())
    assert engine.store.run_controls.finish_run_control(control, {"wasLive": True})
    assert not engine.store.run_controls.finish_run_control(control, {"error": "late"})
    assert engine.store.run_controls.get_run_control(control).result == {"wasLive": True}


async def another_shell(state: Path, args: dict) -> dict:
    """`sessions-tui --state STATE tool subagents ARGS --as REQ`, run as a real second process."""
    env = {k: v for k, v in os.environ.items() if k not in ("SESSIONS_TUI_HOME", "SESSIONS_TUI_CONFIG")}
    proc = await asyncio.create_subprocess_exec(
        *[sys.executable, "-m", "sessions_tui", "--state", str(state), "tool", "subagents"],
        *[json.dumps(args), "--as", REQ],
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    return json.loads(out)


async def test_steer_and_kill_from_another_shell(tmp_path):
    """A local backend (as the dashboard and `serve` start one) runs a child; `tool subagents`
    from another shell steers it, then kills it and the steer queued behind its turn."""
    state = tmp_path / "s"
    backend = local_backend(state, SLOW)
    await backend.start()
    owner = backend.engine
    try:
        add_session(owner, REQ)
        child = await spawn(owner, "slow work", "slow")
        steered = await another_shell(state, {"action": "steer", "target": "slow", "message": "also this"})
        assert steered["status"] == "accepted", steered
        assert owner.runs.queued(child["childSessionKey"]) == [steered["queuedRunId"]]
        killed = await another_shell(state, {"action": "kill", "target": "slow"})
        assert killed["status"] == "ok" and killed["text"] == "killed slow.", killed
        assert owner.runs.get(child["runId"]).status == "killed"
        assert owner.runs.get(steered["queuedRunId"]).status == "killed"
        assert live_runs(owner, child["childSessionKey"]) == []
        [text] = announces(owner, REQ)
        assert text.startswith("Status: killed\n")
    finally:
        await backend.aclose()
