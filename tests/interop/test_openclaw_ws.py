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
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_openclaw_gateway import DEADLINE_SECONDS, Gateway, started_gateway

from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.gateway.acting.sending import abort, send_message
from sessions_tui.backend.gateway.link.connection import GatewayClient, GatewayOptions
from sessions_tui.backend.gateway.link.frames import EventFrame, HelloOk
from sessions_tui.backend.gateway.live import GatewaySocketBackend
from sessions_tui.backend.values.vocabulary import EngineEvent, MessageAppended, SessionChanged

pytestmark = pytest.mark.openclaw

MAIN = "agent:main:main"
GROUP = "agent:main:discord:group:123"


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


async def test_a_reply_by_hand_lands_in_the_transcript_and_an_abort_answers(gateway: Gateway, tmp_path: Path) -> None:
    """`send_message` into the group session with the gateway's default config (no tools.allow)."""
    client = GatewayClient(
        GatewayOptions(url=f"ws://127.0.0.1:{gateway.port}", token=gateway.token, identity_dir=tmp_path / "id")
    )
    await asyncio.wait_for(client.start(), DEADLINE_SECONDS)
    try:
        text = f"reply by hand {secrets.token_hex(4)}"
        result = await send_message(client, GROUP, text, timeout_seconds=int(DEADLINE_SECONDS))
        # The gateway has no model provider: the run ends in its error, which the wait reports.
        assert result["status"] == "error" and result["sessionKey"] == GROUP, result
        assert "authentication source" in result["error"]
        history = await client.request("chat.history", {"sessionKey": GROUP, "limit": 20})
        ours = [m for m in history["messages"] if m.get("role") == "user" and m.get("content") == text]
        assert ours and ours[-1]["idempotencyKey"] == f"{result['runId']}:user"

        started = await send_message(client, GROUP, "to be stopped", timeout_seconds=0)
        assert started["status"] == "accepted"
        outcome = await abort(client, GROUP, clear_queued=True)
        assert outcome.session_key == GROUP
        # Without a model the run may have failed already: either answer is the gateway's own.
        assert (outcome.aborted, outcome.status) in ((True, "aborted"), (False, "no-active-run"))
        assert outcome.run_id == (started["runId"] if outcome.aborted else None)
    finally:
        await client.close()


async def test_openclaw_dir_send_goes_through_its_own_gateway(gateway: Gateway, tmp_path: Path) -> None:
    """`sessions-tui --openclaw <the gateway's state dir> send`: no gateway.remote, no tools.allow.

    The state's openclaw.json (written by openclaw-gateway.sh) names the port and `auth.mode: token`;
    the token is in OPENCLAW_GATEWAY_TOKEN, where the gateway itself reads it.
    """
    text = f"hi from --openclaw {secrets.token_hex(4)}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SESSIONS_TUI_", "OPENCLAW_"))}
    env |= {
        "SESSIONS_TUI_HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),  # this install's device identity, apart
        "OPENCLAW_GATEWAY_TOKEN": gateway.token,
    }
    command = [sys.executable, "-m", "sessions_tui", "--openclaw", str(gateway.state), "send", GROUP, text]
    done = await asyncio.to_thread(
        subprocess.run, [*command, "--timeout", "30"], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.stdout.startswith(f"→ {GROUP}"), (done.stdout, done.stderr)
    assert "lives in OpenClaw" not in done.stdout  # sent, not refused
    # The gateway has no model provider: the run ends in its error, said in one line.
    assert done.returncode == 1 and "error · ⚠️ Agent failed before reply" in done.stdout, done.stdout

    client = GatewayClient(
        GatewayOptions(url=f"ws://127.0.0.1:{gateway.port}", token=gateway.token, identity_dir=tmp_path / "id")
    )
    await asyncio.wait_for(client.start(), DEADLINE_SECONDS)
    try:
        history = await client.request("chat.history", {"sessionKey": GROUP, "limit": 20})
    finally:
        await client.close()
    assert any(m.get("role") == "user" and m.get("content") == text for m in history["messages"]), history


async def test_a_reply_from_our_cli_over_remote_lands_in_the_gateways_transcript(
    gateway: Gateway, tmp_path: Path
) -> None:
    """`sessions-tui --remote ws://… send` into a group session, the gateway's config as it comes
    (no `gateway.tools.allow`): the message is in the gateway's transcript."""
    text = f"hi from --remote {secrets.token_hex(4)}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SESSIONS_TUI_", "OPENCLAW_"))}
    env |= {"XDG_CONFIG_HOME": str(tmp_path / "config"), "SESSIONS_TUI_TOKEN": gateway.token}
    url = f"ws://127.0.0.1:{gateway.port}"
    command = [sys.executable, "-m", "sessions_tui", "--remote", url, "send", GROUP, text, "--timeout", "30"]
    done = await asyncio.to_thread(subprocess.run, command, capture_output=True, text=True, env=env, timeout=120)
    assert done.stdout.startswith(f"→ {GROUP}"), (done.stdout, done.stderr)
    # The gateway has no model provider: the run ends in its error, said in one line (exit 1).
    assert done.returncode == 1 and "error" in done.stdout, done.stdout

    client = GatewayClient(GatewayOptions(url=url, token=gateway.token, identity_dir=tmp_path / "id"))
    await asyncio.wait_for(client.start(), DEADLINE_SECONDS)
    try:
        history = await client.request("chat.history", {"sessionKey": GROUP, "limit": 20})
    finally:
        await client.close()
    assert any(m.get("role") == "user" and m.get("content") == text for m in history["messages"]), history
