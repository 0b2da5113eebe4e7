"""`sessions-tui session …` on an OpenClaw gateway's socket (the recorded stand-in, tests/gateway_replay.py)
and `session compact` where the backend does not compact: one line each (or `--json`), exit 2 for
bad input, 1 for a refusal or a backend without it."""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from cli_support import cli, one_error_line
from gateway_replay import ReplayGateway, replaying, session_op
from sessions_tui.backend.gateway.live import GatewaySocketBackend
from sessions_tui.cli.commands.session import ACTIONS
from sessions_tui.cli.errors import UsageError

OPS = "agent:main:discord:group:ops"
HI = "agent:main:discord:group:hi"
answer = session_op
OPS_ROW = answer("describe", "sessions.describe")
NONE = answer("describe", "sessions.describe", 1)
HI_ROW = answer("reset", "sessions.describe")


@pytest.fixture
async def gateway() -> AsyncIterator[ReplayGateway]:
    async with replaying(ReplayGateway()) as stand_in:
        yield stand_in


@pytest.fixture
async def backend(gateway: ReplayGateway, tmp_path: Path) -> AsyncIterator[GatewaySocketBackend]:
    found = GatewaySocketBackend(gateway.url, "shared", identity_dir=tmp_path / "id")
    await found.connect()
    yield found
    await found.aclose()


def _opts(op: str, key: str, **more: Any) -> argparse.Namespace:
    base = {"session_command": op, "key": key, "json": False, "as_key": None, "sandboxed": False}
    return argparse.Namespace(**{**base, **more})


async def _run(backend: GatewaySocketBackend, opts: argparse.Namespace) -> tuple[int, str]:
    out = io.StringIO()
    code = await ACTIONS[opts.session_command](backend, opts, out)
    return code, out.getvalue()


async def test_new_rename_compact_and_delete_on_the_gateway(backend, gateway):
    gateway.queue("sessions.describe", *NONE)
    gateway.queue("sessions.create", *answer("create", "sessions.create"))
    opts = _opts("new", OPS, agent=None, label="ops", model=None, thinking=None, message=None)
    code, out = await _run(backend, opts)
    session_id = answer("create", "sessions.create")[1]["sessionId"]
    assert (code, out) == (0, f"created {OPS} (sessionId {session_id}, label 'ops')\n")

    gateway.queue("sessions.describe", *OPS_ROW)
    gateway.queue("sessions.patch", *answer("rename", "sessions.patch"))
    assert await _run(backend, _opts("rename", OPS, label="ops renamed")) == (
        0,
        f"renamed {OPS}: label 'ops renamed'\n",
    )

    gateway.queue("sessions.describe", *HI_ROW)
    gateway.queue("sessions.reset", *answer("reset", "sessions.reset"))
    code, out = await _run(backend, _opts("reset", HI))
    assert (code, out) == (0, f"reset {HI}: sessionId {HI_ROW[1]['session']['sessionId']} (the same: reset in place)\n")

    gateway.queue("sessions.describe", *HI_ROW)
    gateway.queue("sessions.compact", *answer("compact", "sessions.compact"))
    assert await _run(backend, _opts("compact", HI)) == (0, f"compacted {HI}\n")
    gateway.queue("sessions.describe", *OPS_ROW)
    gateway.queue("sessions.compact", *answer("compact", "sessions.compact", 1))
    code, out = await _run(backend, _opts("compact", OPS, json=True))
    said = json.loads(out)
    assert (code, said["op"], said["session_key"], said["compacted"]) == (0, "compact", OPS, False)
    assert said["reason"] == "Nothing to compact (session too small)"

    gateway.queue("sessions.describe", *OPS_ROW)
    gateway.queue("sessions.patch", *answer("delete", "sessions.patch"))
    gateway.queue("sessions.delete", *answer("delete", "sessions.delete"))
    assert await _run(backend, _opts("delete", OPS, yes=True)) == (0, f"deleted {OPS}\n")


async def test_on_the_gateway_a_refusal_is_exit_1_and_bad_input_exit_2(backend, gateway, capsys):
    gateway.queue("sessions.describe", *OPS_ROW)
    gateway.queue("sessions.patch", *answer("rename_in_use", "sessions.patch"))
    assert await _run(backend, _opts("rename", OPS, label="hi")) == (1, "")
    said = one_error_line(capsys.readouterr().err)
    assert said == f"gateway {gateway.url} refused sessions.patch: label already in use: hi (INVALID_REQUEST)"

    gateway.queue("sessions.describe", *HI_ROW)
    gateway.queue("sessions.reset", *answer("reset_scope", "sessions.reset"))
    assert await _run(backend, _opts("reset", HI)) == (1, "")
    assert "SESSIONS_TUI_GATEWAY_ADMIN=1" in capsys.readouterr().err

    gateway.queue("sessions.describe", *NONE)
    with pytest.raises(UsageError, match="No session found: agent:main:discord:group:none"):
        await _run(backend, _opts("compact", "agent:main:discord:group:none"))


def test_compact_where_the_engine_is_here_is_exit_1_with_its_line(tmp_path):
    state = tmp_path / "s"
    assert cli("session", "new", OPS, state=state).returncode == 0
    done = cli("session", "compact", OPS, state=state)
    assert (done.returncode, done.stdout) == (1, "")
    line = "compacting a session is not on this backend: the embedded engine does not compact"
    assert one_error_line(done.stderr) == f"{state}: {line}"
