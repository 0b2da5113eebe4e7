"""The socket sender into OpenClaw-owned sessions: no gateway named, or a gateway that is down."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from sessions_tui.backend.gateway.acting.openclaw_sender import GatewaySocketSender

GROUP = "agent:main:discord:group:123"


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port  # nothing listens there once the socket is closed


async def test_an_openclaw_without_openclaw_json_has_no_gateway(tmp_path: Path) -> None:
    sender = GatewaySocketSender(identity_dir=tmp_path / "id")
    assert await sender.send(tmp_path, GROUP, "hi", timeout_seconds=5, display=GROUP) is None
    await sender.aclose()


async def test_a_gateway_that_is_down_is_one_error_line(tmp_path: Path) -> None:
    port = _closed_port()
    (tmp_path / "openclaw.json").write_text(json.dumps({"gateway": {"port": port, "auth": {"token": "t"}}}))
    sender = GatewaySocketSender(identity_dir=tmp_path / "id")
    try:
        result = await sender.send(tmp_path, GROUP, "hi", timeout_seconds=5, display="shown-key")
    finally:
        await sender.aclose()
    assert result is not None and result["status"] == "error" and result["sessionKey"] == "shown-key"
    line = result["error"]
    assert line.startswith(f"OpenClaw gateway ws://127.0.0.1:{port} ({tmp_path / 'openclaw.json'}) is down: ")
    assert "\n" not in line
