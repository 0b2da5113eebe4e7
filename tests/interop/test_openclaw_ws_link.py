"""Our WebSocket client's link to the REAL OpenClaw gateway (2026.9.6): a remote pairing approved by
the gateway's owner, and a gateway restart survived.

`make test-openclaw` runs it (marker `openclaw`). A remote device: the gateway is started with
`gateway.trustedProxies: ["127.0.0.1"]`, so our client's `X-Forwarded-For` makes it a client from
another address, which loopback's silent approval does not cover: it is asked to pair, shows the
request id and the command, and connects by itself once `openclaw devices approve <id>` ran. A
restart: the gateway is stopped and started again on the same state and port; the client reconnects
with back-off, its `on_connected` hook re-subscribes, and a send made afterwards arrives live.
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_openclaw_gateway import DEADLINE_SECONDS, START_TIMEOUT, Gateway, started_gateway

from sessions_tui.backend.gateway.link.connection import GatewayClient, GatewayOptions, LinkState
from sessions_tui.backend.gateway.link.frames import EventFrame, HelloOk

pytestmark = pytest.mark.openclaw

MAIN = "agent:main:main"
TRUSTING = {"gateway": {"mode": "local", "trustedProxies": ["127.0.0.1"]}}


class States:
    """The client's link states as they come, awaitable."""

    def __init__(self) -> None:
        self.seen: list[tuple[LinkState, str | None]] = []
        self._changed = asyncio.Event()

    def __call__(self, state: LinkState, line: str | None) -> None:
        self.seen.append((state, line))
        self._changed.set()

    async def reach(self, state: LinkState, *, after: int = 0, deadline: float = DEADLINE_SECONDS) -> str | None:
        """The line of the first `state` seen at or past index `after`, waiting for it."""
        async with asyncio.timeout(deadline):
            while True:
                for seen, line in self.seen[after:]:
                    if seen is state:
                        return line
                self._changed.clear()
                await self._changed.wait()


@pytest.fixture(scope="module")
def trusting_gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    with started_gateway(tmp_path_factory, TRUSTING) as started:
        yield started


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    with started_gateway(tmp_path_factory, None) as started:
        yield started


async def test_a_remote_device_waits_for_its_owner_and_connects_once_approved(
    trusting_gateway: Gateway, tmp_path: Path
) -> None:
    states = States()
    client = GatewayClient(
        GatewayOptions(
            url=f"ws://127.0.0.1:{trusting_gateway.port}",
            token=trusting_gateway.token,
            identity_dir=tmp_path / "id",
            headers={"X-Forwarded-For": "203.0.113.7"},
        ),
        on_state=states,
    )
    started = asyncio.ensure_future(client.start())
    try:
        line = await states.reach(LinkState.PAIRING)
        assert line is not None and "openclaw devices approve" in line, line
        match = re.search(r"openclaw devices approve (\S+)`", line)
        assert match is not None and match.group(1) != "--latest", line  # the gateway named its request
        assert not started.done()  # waiting, not refused

        approved = await asyncio.to_thread(trusting_gateway.cli, "devices", "approve", match.group(1))
        assert approved

        hello = await asyncio.wait_for(started, DEADLINE_SECONDS)
        assert isinstance(hello, HelloOk)
        assert set(hello.auth.scopes) >= {"operator.read", "operator.write"}
        roster = await client.request("sessions.list", {"limit": 5})
        assert roster["sessions"], roster
    finally:
        started.cancel()
        await client.close()


async def test_a_gateway_restart_is_survived_and_events_resume(gateway: Gateway, tmp_path: Path) -> None:
    states = States()
    client = GatewayClient(
        GatewayOptions(url=f"ws://127.0.0.1:{gateway.port}", token=gateway.token, identity_dir=tmp_path / "id"),
        on_state=states,
    )
    subscribed: list[object] = []

    async def resubscribe(link: GatewayClient) -> None:
        subscribed.append(await link.request("sessions.subscribe", {"limit": 5}))

    client.on_connected(resubscribe)
    changed: asyncio.Queue[EventFrame] = asyncio.Queue()
    client.subscribe("sessions.changed", changed.put_nowait)
    await asyncio.wait_for(client.start(), DEADLINE_SECONDS)
    try:
        assert len(subscribed) == 1
        before = len(states.seen)
        await asyncio.to_thread(gateway.stop)
        await states.reach(LinkState.RECONNECTING, after=before)
        await asyncio.to_thread(gateway.start_again)
        await states.reach(LinkState.CONNECTED, after=before, deadline=START_TIMEOUT)
        assert len(subscribed) == 2  # subscribed again on the new connection

        while not changed.empty():
            changed.get_nowait()
        await asyncio.to_thread(gateway.send, MAIN, f"after the restart {secrets.token_hex(4)}")
        async with asyncio.timeout(DEADLINE_SECONDS):
            while True:
                payload = (await changed.get()).payload
                if isinstance(payload, dict) and payload.get("sessionKey") == MAIN and payload.get("reason") == "send":
                    break
    finally:
        await client.close()
