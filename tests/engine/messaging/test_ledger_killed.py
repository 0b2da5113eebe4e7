"""A send whose process is SIGKILLed while its run goes on: the next process ends the run as
interrupted, and the send ledger gets that end too, in the same transaction, so `sessions-tui
sends` never shows a dead process's send as still under way.

Real processes: tests/send_worker.py sends and prints the run id once the ledger holds the state
the test waits for; it is killed there, and `sessions-tui sends` is the next process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sessions_tui.engine.run_end import INTERRUPTED
from sessions_tui.engine.store.store import Store

KEY = "agent:main:discord:group:dev"
WORKER = Path(__file__).with_name("send_worker.py")


def setup_state(tmp_path: Path) -> tuple[Path, Path]:
    state, config = tmp_path / "state", tmp_path / "config.json5"
    # The model answers in a minute (its longest): the run is under way when the test kills its process.
    config.write_text(json.dumps({"models": {"demo": {"latencyMs": 60_000, "chunkMs": 0}}}), encoding="utf-8")
    store = Store(state)
    store.sessions.create(KEY, {})
    store.close()
    return state, config


def cli_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "xdg"))
    return env


def sends(state: Path, config: Path, home: Path, *extra: str) -> str:
    cmd = [sys.executable, "-m", "sessions_tui", "sends", "--state", str(state), "--config", str(config), *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=cli_env(home), timeout=120)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return proc.stdout


@pytest.mark.parametrize(
    ("timeout", "killed_at", "before"),
    [
        ("60", "started", [("accepted", None), ("started", None)]),  # the sender is waiting for the reply
        ("1", "timeout", [("accepted", None), ("started", None), ("timeout", {"waitedMs": 1000})]),
    ],
)
def test_a_send_whose_process_was_killed_ends_as_interrupted_in_the_ledger(tmp_path, timeout, killed_at, before):
    state, config = setup_state(tmp_path)
    worker = subprocess.Popen(
        [sys.executable, str(WORKER), str(state), str(config), KEY, timeout, killed_at],
        env=cli_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        run_id = worker.stdout.readline().strip()  # the ledger holds `killed_at`: the run goes on
        assert run_id, "the sender stopped before its send got that far"
        worker.send_signal(signal.SIGKILL)
    finally:
        worker.wait()
        worker.stdout.close()

    [entry] = json.loads(sends(state, config, tmp_path, "--json"))
    assert entry["runId"] == run_id
    assert [(s["state"], s.get("detail")) for s in entry["states"]] == [*before, ("error", {"error": INTERRUPTED})]
    assert f"error            {INTERRUPTED}" in sends(state, config, tmp_path)
    store = Store(state)
    try:
        run = store.runs.get_run(run_id)
        assert run is not None and (run.status, run.error) == ("error", INTERRUPTED)
        assert run.ended_at == entry["states"][-1]["at"]  # one end, written at once with the run's
    finally:
        store.close()
    # Ended once: another process reading the ledger adds nothing.
    assert json.loads(sends(state, config, tmp_path, "--json"))[0]["states"] == entry["states"]
