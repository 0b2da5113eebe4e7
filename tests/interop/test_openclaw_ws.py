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
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_openclaw_gateway import DEADLINE_SECONDS, Gateway, started_gateway

from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.gateway.connection import GatewayClient, GatewayOptions
from sessions_tui.backend.gateway.frames import EventFrame, HelloOk
from sessions_tui.backend.gateway.live import GatewaySocketBackend
from sessions_tui.backend.values.vocabulary import EngineEvent, MessageAppended, SessionChanged

pytestmark = pytest.mark.openclaw

MAIN = "agent:main:main"


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    """A real gateway on a state seeded from the fixture (the interop suite's own start-up)."""
    with started_gateway(tmp_path_factory, None) as started:
        yield started


async def test_a_send_by_another_client_arrives_as_sessions_changed(gateway: Gateway, tmp_path: Path) -> None:
    client = GatewayClient(
        GatewayOptions(url=f"ws://127.0.0.1:{gateway.port}", token=gateway.token, identity_dir=tmp_path / "id")
    )
    changed: asyncio.Queue[EventFrame] = asyncio.Queue()
    client.subscribe("sessions.changed", changed.put_nowait)
    hello = await asyncio.wait_for(client.start(), DEADLINE_SECONDS)
    try:
        assert isinstance(hello, HelloOk)
        assert set(hello.auth.scopes) >= {"operator.read", "operator.write"}  # the device was approved
        assert hello.auth.deviceToken  # … and given a token of its own
        roster = await client.request("sessions.subscribe", {"limit": 20})
        assert roster["subscribed"] is True and any(row["key"] == MAIN for row in roster["list"]["sessions"])

        await asyncio.to_thread(gateway.send, MAIN, f"interop ws {secrets.token_hex(4)}")  # checks it started

        async with asyncio.timeout(DEADLINE_SECONDS):
            while True:
                frame = await changed.get()
                payload = frame.payload if isinstance(frame.payload, dict) else {}
                if payload.get("sessionKey") == MAIN and payload.get("reason") == "send":
                    break
        assert payload["session"]["key"] == MAIN
    finally:
        await client.close()


async def test_the_socket_backend_shows_a_send_by_another_client_live(gateway: Gateway, tmp_path: Path) -> None:
    """The backend over the real gateway's socket: a `sessions.send` through OpenClaw's own CLI
    arrives as `SessionChanged` and `MessageAppended` for that session, with no polling."""
    backend = GatewaySocketBackend(f"ws://127.0.0.1:{gateway.port}", gateway.token, identity_dir=tmp_path / "id")
    loop = asyncio.get_running_loop()
    seen: asyncio.Queue[EngineEvent] = asyncio.Queue()
    backend.subscribe(lambda event: loop.call_soon_threadsafe(seen.put_nowait, event))
    await asyncio.wait_for(backend.connect(), DEADLINE_SECONDS)
    try:
        assert await backend.owner_key("main") == MAIN
        history = await backend.call_tool("sessions_history", {"sessionKey": MAIN}, Requester())
        assert history["messages"]  # and its transcript is followed from now on

        await asyncio.to_thread(gateway.send, MAIN, f"interop socket backend {secrets.token_hex(4)}")
        kinds: set[str] = set()
        async with asyncio.timeout(DEADLINE_SECONDS):
            while kinds != {"session_changed", "message_appended"}:
                event = await seen.get()
                if isinstance(event, (SessionChanged, MessageAppended)) and event.session_key == MAIN:
                    kinds.add(event.type)
    finally:
        await backend.aclose()
