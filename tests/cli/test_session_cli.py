"""`sessions-tui session abort KEY`: one line (or `--json`), exit 0 when stopped or nothing ran, 1
when the backend cannot stop runs, 2 for a key of no session; a turn the dashboard (here: this
test's backend) runs is stopped from another shell."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import sys

from cli_support import cli, one_error_line
from conftest import FAST_DEMO, add_session
from scenes import merge
from server_support import local_backend
from sessions_tui.backend.contract.types import BackendUnavailable, Capability
from sessions_tui.cli.commands.session import ACTIONS
from sessions_tui.engine.runs.runs import RunRequest

KEY = "agent:main:discord:group:ops"
SLOW = merge(FAST_DEMO, {"models": {"demo": {"latencyMs": 60_000, "chunkMs": 0}}})


def _state(tmp_path):
    state = tmp_path / "s"
    backend = local_backend(state, SLOW)  # its config.json5
    add_session(backend.engine, KEY)
    backend.close()
    return state


def test_nothing_running_is_said_and_exit_0(tmp_path):
    state = _state(tmp_path)
    done = cli("session", "abort", "discord:group:ops", state=state)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"no run in progress in {KEY}\n", "")
    done = cli("session", "abort", KEY, "--clear-queued", "--json", state=state)
    assert done.returncode == 0 and json.loads(done.stdout) == {
        "session_key": KEY,
        "aborted": False,
        "run_id": None,
        "status": "no-active-run",
        "cleared_queued": 0,
    }


def test_a_key_of_no_session_is_exit_2_with_its_line(tmp_path):
    state = _state(tmp_path)
    done = cli("session", "abort", "agent:main:nope", state=state)
    assert done.returncode == 2 and one_error_line(done.stderr) == "No session found: agent:main:nope"
    done = cli("session", "abort", "not a key!", state=state)
    assert done.returncode == 2 and one_error_line(done.stderr) == "KEY: not a session key or sessionId: 'not a key!'"
    done = cli("session", state=state)
    assert done.returncode == 2 and "the following arguments are required: ACTION" in done.stderr


class _NoAbort:
    """A backend that cannot stop runs (an OpenClaw gateway's HTTP tool API)."""

    capabilities = frozenset(Capability) - {Capability.ABORT}

    def not_offered(self, capability: Capability) -> str:
        return "http://gw: an OpenClaw gateway stops a run over its WebSocket only"


class _Gone(_NoAbort):
    capabilities = frozenset(Capability)

    async def abort_run(self, key: str, *, clear_queued: bool = False, requester=None):
        raise BackendUnavailable("http://a: abort_run failed (502): bad gateway")


async def test_a_backend_that_cannot_stop_runs_is_exit_1_with_its_line(capsys):
    opts = argparse.Namespace(key=KEY, clear_queued=False, json=False)
    out = io.StringIO()
    assert await ACTIONS["abort"](_NoAbort(), opts, out) == 1
    assert out.getvalue() == ""
    assert (
        one_error_line(capsys.readouterr().err) == "http://gw: an OpenClaw gateway stops a run over its WebSocket only"
    )
    assert await ACTIONS["abort"](_Gone(), opts, out) == 1
    assert one_error_line(capsys.readouterr().err) == "http://a: abort_run failed (502): bad gateway"


async def test_a_turn_the_dashboard_runs_is_stopped_from_another_shell(tmp_path):
    state = _state(tmp_path)
    backend = local_backend(state, SLOW)  # as the dashboard opens it: it serves the run controls
    await backend.start()
    try:
        run_id = backend.engine.runs.start(RunRequest(session_key=KEY, message="work slowly"))
        queued = backend.engine.runs.start(RunRequest(session_key=KEY, message="then this"))
        env = {k: v for k, v in os.environ.items() if k not in ("SESSIONS_TUI_HOME", "SESSIONS_TUI_CONFIG")}
        proc = await asyncio.create_subprocess_exec(
            *[sys.executable, "-m", "sessions_tui", "--state", str(state), "session", "abort", KEY],
            *["--clear-queued"],
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        assert (proc.returncode, out.decode(), err.decode()) == (
            0,
            f"aborted run {run_id} in {KEY}; dropped 1 queued\n",
            "",
        )
        assert backend.engine.runs.get(run_id).status == "killed"
        assert backend.engine.runs.get(queued).status == "killed"
        [entry] = backend.engine.store.audit.audit_rows(5)
        assert (entry.kind, entry.reason, entry.data["runId"]) == ("run_aborted", "aborted", run_id)
        assert entry.data["pid"] == proc.pid
    finally:
        await backend.aclose()
