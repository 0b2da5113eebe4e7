"""Our WebSocket client against the REAL OpenClaw gateway (2026.9.6) on loopback.

`make test-openclaw` runs it (marker `openclaw`); `make test` leaves it out. The gateway is
installed and started by `scripts/openclaw-gateway.sh` on a fresh state seeded from
tests/fixtures/openclaw-2026.9.6/legacy-state. Our client connects with the token and a device
identity of its own (approved silently: loopback), subscribes to the session list, and sees the
gateway's `sessions.changed` for a `sessions.send` made by another client, OpenClaw's own CLI.
Waiting is for the event itself, with a deadline.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessions_tui.backend.gateway.connection import GatewayClient, GatewayOptions
from sessions_tui.backend.gateway.frames import EventFrame, HelloOk

pytestmark = pytest.mark.openclaw

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "openclaw-gateway.sh"
LEGACY = ROOT / "tests" / "fixtures" / "openclaw-2026.9.6" / "legacy-state"
MAIN = "agent:main:main"
DEADLINE_SECONDS = 30.0
INSTALL_TIMEOUT = 1800  # first use downloads ~650 MB
START_TIMEOUT = 240  # start-up takes 15–30 s here


def _script(*args: str, timeout: float) -> str:
    done = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"openclaw-gateway.sh {args[0]} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int, str]]:
    """(state directory, port, token) of a real gateway; stopped at teardown, whatever happened."""
    _script("install", timeout=INSTALL_TIMEOUT)
    state = tmp_path_factory.mktemp("openclaw-ws") / "state"
    port, token = _free_port(), f"interop-{secrets.token_hex(8)}"
    try:
        _script(
            "start",
            "--state",
            str(state),
            "--port",
            str(port),
            "--token",
            token,
            "--seed-from",
            str(LEGACY),
            "--timeout",
            str(START_TIMEOUT - 30),
            timeout=START_TIMEOUT,
        )
        yield state, port, token
    finally:
        _script("stop", "--state", str(state), timeout=120)


async def test_a_send_by_another_client_arrives_as_sessions_changed(
    gateway: tuple[Path, int, str], tmp_path: Path
) -> None:
    state, port, token = gateway
    client = GatewayClient(GatewayOptions(url=f"ws://127.0.0.1:{port}", token=token, identity_dir=tmp_path / "id"))
    changed: asyncio.Queue[EventFrame] = asyncio.Queue()
    client.subscribe("sessions.changed", changed.put_nowait)
    hello = await asyncio.wait_for(client.start(), DEADLINE_SECONDS)
    try:
        assert isinstance(hello, HelloOk)
        assert set(hello.auth.scopes) >= {"operator.read", "operator.write"}  # the device was approved
        assert hello.auth.deviceToken  # … and given a token of its own
        roster = await client.request("sessions.subscribe", {"limit": 20})
        assert roster["subscribed"] is True and any(row["key"] == MAIN for row in roster["list"]["sessions"])

        message = f"interop ws {secrets.token_hex(4)}"
        params = json.dumps({"key": MAIN, "message": message})
        answer = json.loads(
            await asyncio.to_thread(_script, "call", "--state", str(state), "sessions.send", params, timeout=120)
        )
        assert answer.get("status") == "started", answer

        async with asyncio.timeout(DEADLINE_SECONDS):
            while True:
                frame = await changed.get()
                payload = frame.payload if isinstance(frame.payload, dict) else {}
                if payload.get("sessionKey") == MAIN and payload.get("reason") == "send":
                    break
        assert payload["session"]["key"] == MAIN
    finally:
        await client.close()
