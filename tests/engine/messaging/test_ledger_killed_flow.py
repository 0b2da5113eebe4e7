"""A send whose process is SIGKILLed during the agent-to-agent flow after its reply (in a ping-pong
turn's run, between two steps with no run at all, in the announce step's run, or while the flow
waits on the send's own run): the next process ends the send as interrupted in the send ledger,
once, so `sessions-tui sends` never shows it at `replied` or `pingpong` for good.

Real processes: tests/flow_worker.py sends from one session to another and prints the send's run
id at the point the test kills it; `sessions-tui sends` is the next process."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_ledger_killed import cli_env, sends

from sessions_tui.engine.run_end import INTERRUPTED
from sessions_tui.engine.store.store import Store

REQ = "agent:main:discord:group:req"
TARGET = "agent:main:discord:group:dev"
WORKER = Path(__file__).with_name("flow_worker.py")
ENDED = ("error", {"error": INTERRUPTED})


def setup_state(tmp_path: Path) -> tuple[Path, Path]:
    state, config = tmp_path / "state", tmp_path / "config.json5"
    config.write_text("{}", encoding="utf-8")
    store = Store(state)
    store.sessions.create(REQ, {})
    store.sessions.create(TARGET, {})
    store.close()
    return state, config


def kill_at(tmp_path: Path, state: Path, config: Path, point: str) -> str:
    worker = subprocess.Popen(
        [sys.executable, str(WORKER), str(state), str(config), REQ, TARGET, point],
        env=cli_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        run_id = worker.stdout.readline().strip()
        assert run_id, "the sender stopped before its send got that far"
        worker.send_signal(signal.SIGKILL)
    finally:
        worker.wait()
        worker.stdout.close()
    return run_id


def runs_of(state: Path) -> list[tuple[str, str, str | None]]:
    store = Store(state)
    try:
        with store.read() as conn:
            rows = conn.execute("SELECT run_id, status, error FROM runs ORDER BY created_at, rowid").fetchall()
    finally:
        store.close()
    return [(r["run_id"], r["status"], r["error"]) for r in rows]


@pytest.mark.parametrize(
    ("point", "states", "steps"),
    [
        # The flow waits on the send's own run (fire and forget): its run's end is the send's, once.
        ("waiting", ["accepted", "started"], 0),
        # Ping-pong turn 2's run under way: turn 1 is recorded, then the end.
        ("turn", ["accepted", "started", "replied", "pingpong"], 2),
        # Replied, the first turn's run not begun: no run of the dead process is left to end.
        ("between", ["accepted", "started", "replied"], 0),
        # The announce step's run under way after the ping-pong stopped (turn 3's REPLY_SKIP).
        ("announce", ["accepted", "started", "replied", "pingpong", "pingpong", "pingpong"], 4),
    ],
)
def test_a_send_killed_in_its_agent_to_agent_flow_ends_as_interrupted_in_the_ledger(tmp_path, point, states, steps):
    state, config = setup_state(tmp_path)
    run_id = kill_at(tmp_path, state, config, point)

    [entry] = json.loads(sends(state, config, tmp_path, "--json"))
    assert entry["runId"] == run_id
    assert [s["state"] for s in entry["states"]] == [*states, "error"]
    assert (entry["states"][-1]["state"], entry["states"][-1].get("detail")) == ENDED
    assert f"error            {INTERRUPTED}" in sends(state, config, tmp_path)
    # The runs: the send's own, then one per step begun; the one in flight ended as interrupted.
    runs = runs_of(state)
    assert runs[0][0] == run_id and len(runs) == 1 + steps
    in_flight = [] if point == "between" else [runs[-1][0]]
    assert [r for r, status, error in runs if (status, error) == ("error", INTERRUPTED)] == in_flight
    assert all(status == "ok" for r, status, _ in runs if r not in in_flight)
    # Ended once: another process reading the ledger adds nothing.
    assert json.loads(sends(state, config, tmp_path, "--json"))[0]["states"] == entry["states"]


def test_a_flow_its_process_closed_on_ends_as_interrupted_in_the_next(tmp_path):
    """A process that closes while a flow goes on (the dashboard quit, say) leaves it to the next."""
    state, config = setup_state(tmp_path)
    worker = subprocess.run(
        [sys.executable, str(WORKER), str(state), str(config), REQ, TARGET, "closed"],
        env=cli_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert worker.returncode == 0, worker.stderr
    run_id = worker.stdout.strip()
    [entry] = json.loads(sends(state, config, tmp_path, "--json"))
    assert entry["runId"] == run_id
    assert [s["state"] for s in entry["states"]] == ["accepted", "started", "replied", "pingpong", "error"]
    assert (entry["states"][-1]["state"], entry["states"][-1].get("detail")) == ENDED
    assert json.loads(sends(state, config, tmp_path, "--json"))[0]["states"] == entry["states"]
