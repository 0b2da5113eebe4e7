"""The client against a tiny WebSocket server on loopback that answers with the recorded frames
(tests/gateway_replay.py `FakeGateway`: the handshake checked as the gateway checks it; after a
hello, every call answered with the recorded roster and its recorded changes sent)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.server import serve

from gateway_replay import CHANGED, PAIRING, SUBSCRIBED, FakeGateway
from sessions_tui.backend.gateway.link.connection import GatewayClient, GatewayOptions, LinkState
from sessions_tui.backend.gateway.link.frames import EventFrame, HelloOk
from sessions_tui.backend.gateway.link.identity import DeviceTokens
from sessions_tui.backend.gateway.link.refusals import GatewayRefused, PairingRequired


@pytest.fixture
async def fake() -> AsyncIterator[FakeGateway]:
    gateway = FakeGateway()
    async with serve(gateway.handler, "127.0.0.1", 0) as server:
        gateway.port = next(iter(server.sockets)).getsockname()[1]
        yield gateway


def _client(fake: FakeGateway, tmp_path: Path, **kwargs: Any) -> GatewayClient:
    options = GatewayOptions(url=fake.url, identity_dir=tmp_path / "id", **kwargs)
    return GatewayClient(options)


async def test_connect_signs_the_challenge_and_keeps_the_device_token(fake: FakeGateway, tmp_path: Path) -> None:
    client = _client(fake, tmp_path, token="shared")
    hello = await client.connect()
    assert isinstance(hello, HelloOk) and hello.protocol == 4
    params = fake.connects[0]
    assert (params["minProtocol"], params["maxProtocol"], params["role"]) == (4, 4, "operator")
    assert params["scopes"] == ["operator.read", "operator.write"] and "tool-events" in params["caps"]
    assert params["auth"] == {"token": "shared"}
    stored = DeviceTokens(tmp_path / "id").get(client.url, device_id=client.identity.device_id, role="operator")
    assert stored is not None and stored.token == "dt-1"
    await client.close()

    # Next time, with no token given, the deviceToken alone authenticates (and is what is signed).
    again = _client(fake, tmp_path)
    assert isinstance(await again.connect(), HelloOk)
    assert fake.connects[1]["auth"] == {"deviceToken": "dt-1"}
    assert fake.connects[1]["device"]["id"] == params["device"]["id"]
    await again.close()


async def test_pairing_required_is_an_outcome_with_the_approve_command(fake: FakeGateway, tmp_path: Path) -> None:
    fake.outcomes = ["pairing"]
    outcome = await _client(fake, tmp_path, token="shared").connect()
    assert isinstance(outcome, PairingRequired)
    request_id = PAIRING["error"]["details"]["requestId"]
    assert outcome.request_id == request_id and outcome.reason == "not-paired"
    assert outcome.approve_command == f"openclaw devices approve {request_id}"
    assert f"`openclaw devices approve {request_id}`" in outcome.line and "\n" not in outcome.line


async def test_a_token_mismatch_is_one_line_saying_what_to_do(fake: FakeGateway, tmp_path: Path) -> None:
    fake.outcomes = ["mismatch"]
    with pytest.raises(GatewayRefused) as refused:
        await _client(fake, tmp_path, token="wrong").connect()
    assert refused.value.code == "AUTH_TOKEN_MISMATCH" and not refused.value.retryable
    line = refused.value.line
    assert "\n" not in line and "gateway token mismatch" in line and "(AUTH_TOKEN_MISMATCH)" in line
    assert "--token" in line
    assert len(fake.connects) == 1  # no deviceToken stored: nothing else to try


async def test_a_token_mismatch_retries_once_with_the_stored_device_token(fake: FakeGateway, tmp_path: Path) -> None:
    await (first := _client(fake, tmp_path, token="shared")).connect()
    await first.close()
    fake.outcomes = ["hello", "mismatch", "hello"]
    client = _client(fake, tmp_path, token="rotated")
    assert isinstance(await client.connect(), HelloOk)
    assert fake.connects[1]["auth"] == {"token": "rotated"}
    assert fake.connects[2]["auth"] == {"token": "rotated", "deviceToken": "dt-1"}
    await client.close()


async def test_requests_are_answered_by_id_and_events_reach_subscribers(fake: FakeGateway, tmp_path: Path) -> None:
    client = _client(fake, tmp_path, token="shared")
    seen: list[EventFrame] = []
    all_changed = asyncio.Event()

    def on_changed(frame: EventFrame) -> None:
        seen.append(frame)
        if len(seen) == len(CHANGED):
            all_changed.set()

    client.subscribe("sessions.changed", on_changed)
    await client.start()
    answer = await client.request("sessions.subscribe", {"limit": 3})
    assert answer == SUBSCRIBED["payload"]
    await asyncio.wait_for(all_changed.wait(), 5)
    assert [f.payload for f in seen] == [f["payload"] for f in CHANGED]
    await client.close()
    assert client.state == LinkState.CLOSED


async def test_a_dropped_socket_reconnects_and_resubscribes(fake: FakeGateway, tmp_path: Path) -> None:
    states: list[LinkState] = []
    hooks = 0
    resubscribed = asyncio.Event()

    async def resubscribe(client: GatewayClient) -> None:
        nonlocal hooks
        hooks += 1
        await client.request("sessions.subscribe", {})
        if hooks == 2:
            resubscribed.set()

    client = GatewayClient(
        GatewayOptions(url=fake.url, token="shared", identity_dir=tmp_path / "id"),
        on_state=lambda state, _line: states.append(state),
    )
    client.on_connected(resubscribe)
    await client.start()
    await fake.sockets[0].close()
    await asyncio.wait_for(resubscribed.wait(), 10)
    assert states[:2] == [LinkState.CONNECTING, LinkState.CONNECTED]
    assert LinkState.RECONNECTING in states and states[-1] == LinkState.CONNECTED
    await client.close()


async def test_start_waits_through_pairing_until_approved(fake: FakeGateway, tmp_path: Path) -> None:
    fake.outcomes = ["pairing", "hello"]
    lines: list[tuple[LinkState, str | None]] = []
    client = GatewayClient(
        GatewayOptions(url=fake.url, token="shared", identity_dir=tmp_path / "id"),
        on_state=lambda state, line: lines.append((state, line)),
    )
    hello = await asyncio.wait_for(client.start(), 10)
    assert isinstance(hello, HelloOk)
    pairing = [line for state, line in lines if state == LinkState.PAIRING]
    assert pairing and pairing[0] is not None and "openclaw devices approve" in pairing[0]
    assert lines[-1][0] == LinkState.CONNECTED
    await client.close()


async def test_start_raises_a_refusal_no_retry_mends(fake: FakeGateway, tmp_path: Path) -> None:
    fake.outcomes = ["mismatch"]
    client = _client(fake, tmp_path, token="wrong")
    with pytest.raises(GatewayRefused):
        await asyncio.wait_for(client.start(), 10)
    assert client.state == LinkState.REFUSED and client.last_line is not None
    await client.close()


async def test_a_silent_socket_is_closed_after_two_ticks_and_reconnected(fake: FakeGateway, tmp_path: Path) -> None:
    fake.tick_interval_ms = 20
    reconnected = asyncio.Event()
    client = GatewayClient(
        GatewayOptions(url=fake.url, token="shared", identity_dir=tmp_path / "id"),
        on_state=lambda state, _line: reconnected.set() if state == LinkState.RECONNECTING else None,
    )
    await client.start()
    await asyncio.wait_for(reconnected.wait(), 5)
    assert fake.sockets[0].close_code == 4000 and fake.sockets[0].close_reason == "tick timeout"
    await client.close()


async def test_a_gateway_that_fails_every_resubscribe_is_asked_again_with_back_off(
    fake: FakeGateway, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hello comes, the connect hook fails: the client waits before the next connect, longer
    each time, instead of asking again in a tight loop."""
    pauses: list[float] = []
    enough = asyncio.Event()

    async def pause(self: GatewayClient, seconds: float) -> bool:
        pauses.append(seconds)
        if len(pauses) == 3:
            enough.set()
            return True  # as if closed: the supervisor stops
        return False

    async def failing(client: GatewayClient) -> None:
        raise TimeoutError("the roster did not come")

    monkeypatch.setattr(GatewayClient, "_pause", pause)
    client = _client(fake, tmp_path, token="shared")
    client.on_connected(failing)
    started = asyncio.ensure_future(client.start())
    await asyncio.wait_for(enough.wait(), 10)
    assert all(p > 0 for p in pauses) and pauses[2] > pauses[0], pauses
    started.cancel()
    await client.close()
