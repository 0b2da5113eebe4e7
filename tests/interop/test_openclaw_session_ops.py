"""The operator's operations on a session against the REAL OpenClaw gateway (2026.9.6), over its socket.

`make test-openclaw` runs it (marker `openclaw`). The gateway starts once for the module, seeded as
the interop suite seeds it, with a model of its own: a provider `local` at the tests' scripted
OpenAI-compatible server (a turn saying `a slow one` is answered after SLOW_SECONDS), so a first
message runs and a transcript can be compacted. Each operation goes through the socket backend
(`GatewaySocketBackend`) and through the command line (`sessions-tui --remote ws://… session …`):
create (with and without a first message), reset, rename (a label in use refused), model and
thinking, archive, abort of a running turn, delete (an agent's main session refused), compact.
Resetting and compacting need `operator.admin`: asked for with `admin=True` /
`SESSIONS_TUI_GATEWAY_ADMIN=1`, refused without. Waiting is for the gateway's own events.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_openclaw_gateway import DEADLINE_SECONDS, Gateway, started_gateway

from openai_server import Reply, ScriptedOpenAIServer
from sessions_tui.backend.contract.types import NewSession, OperationRefused, Requester
from sessions_tui.backend.gateway.acting.sending import wait_for_reply
from sessions_tui.backend.gateway.live import GatewaySocketBackend
from sessions_tui.backend.values.vocabulary import EngineEvent
from sessions_tui.tools.calling.base import ToolInputError

pytestmark = pytest.mark.openclaw

MAIN = "agent:main:main"
SLOW_SECONDS = 6.0


def _model_config(model_url: str) -> dict[str, Any]:
    model = {
        "id": "demo",
        "name": "Demo",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 32000,
        "maxTokens": 1024,
    }
    provider = {"baseUrl": model_url, "apiKey": "local-key", "api": "openai-completions", "models": [model]}
    return {
        "gateway": {"mode": "local"},
        "agents": {"defaults": {"model": {"primary": "local/demo"}}},
        "models": {"mode": "merge", "providers": {"local": provider}},
    }


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedOpenAIServer]:
    server = ScriptedOpenAIServer(default=Reply(text="pong from the scripted model"))

    def slow(request: dict[str, Any]) -> Reply | None:
        # The gateway sends the turn's text with its own context blocks: anywhere in what users said.
        said = json.dumps([m.get("content") for m in request.get("messages") or [] if m.get("role") == "user"])
        if "a slow one" not in said:
            return None
        SLOW_ASKED.set()  # the turn is running: the model has it
        return Reply(text="a slow answer", delay=SLOW_SECONDS)

    server.on(slow)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory, model: ScriptedOpenAIServer) -> Iterator[Gateway]:
    with started_gateway(tmp_path_factory, _model_config(model.url)) as started:
        yield started


SLOW_ASKED = threading.Event()
"""Set when the scripted model is asked a slow turn: a run to stop is under way."""


def _key(kind: str) -> str:
    return f"agent:main:discord:group:{kind}-{secrets.token_hex(3)}"


class Live:
    """A connected socket backend and its events, awaited on the test's loop."""

    def __init__(self, backend: GatewaySocketBackend) -> None:
        self.backend = backend
        self.loop = asyncio.get_running_loop()
        self.events: asyncio.Queue[EngineEvent] = asyncio.Queue()
        backend.subscribe(lambda event: self.loop.call_soon_threadsafe(self.events.put_nowait, event))

    async def row(self, key: str) -> dict[str, Any] | None:
        return (await self.backend.browse_rows(Requester(), [key])).get(key)

    async def until(self, what: str, test: Callable[[], Any]) -> None:
        """Until `test()` (awaited when it is a coroutine) holds, checked after each event."""
        async with asyncio.timeout(DEADLINE_SECONDS):
            while True:
                got = test()
                if asyncio.iscoroutine(got):
                    got = await got
                if got:
                    return
                await self.events.get()
        raise AssertionError(what)  # pragma: no cover - the timeout raises first


@pytest.fixture
async def live(gateway: Gateway, tmp_path: Path) -> AsyncIterator[Live]:
    backend = GatewaySocketBackend(f"ws://127.0.0.1:{gateway.port}", gateway.token, identity_dir=tmp_path / "id")
    await asyncio.wait_for(backend.connect(), DEADLINE_SECONDS)
    yield Live(backend)
    await backend.aclose()


@pytest.fixture
async def admin(gateway: Gateway, tmp_path: Path) -> AsyncIterator[Live]:
    backend = GatewaySocketBackend(
        f"ws://127.0.0.1:{gateway.port}", gateway.token, identity_dir=tmp_path / "admin", admin=True
    )
    await asyncio.wait_for(backend.connect(), DEADLINE_SECONDS)
    yield Live(backend)
    await backend.aclose()


async def _wait_run(live: Live, key: str, run_id: str) -> dict[str, Any]:
    return await live.backend.on_socket(lambda client: wait_for_reply(client, key, run_id, timeout_seconds=30))


async def test_create_rename_model_archive_and_delete_through_the_backend_live(live: Live) -> None:
    backend = live.backend
    ops, other = _key("ops"), _key("other")
    label = f"ops {secrets.token_hex(3)}"
    done = await backend.create_session(NewSession(key=ops, label=label))
    assert (done.op, done.session_key, done.label, done.send) == ("create", ops, label, None) and done.session_id
    await live.until("the created row", lambda: live.row(ops))  # from the gateway's sessions.changed
    with pytest.raises(OperationRefused, match=f"Session already exists: {ops}"):
        await backend.create_session(NewSession(key=ops))
    with pytest.raises(OperationRefused, match=f"label already in use: {label}"):
        await backend.create_session(NewSession(key=_key("same-label"), label=label))

    first = await backend.create_session(NewSession(key=other, label=f"other {label}", message="hello there"))
    assert first.send is not None and first.send["status"] == "accepted" and first.send["runId"]
    assert (await _wait_run(live, other, first.send["runId"]))["reply"] == "pong from the scripted model"

    renamed = await backend.rename_session(ops, f"{label} renamed")
    assert renamed.label == f"{label} renamed"

    async def shows_renamed() -> bool:
        row = await live.row(ops)
        return row is not None and row.get("label") == f"{label} renamed"

    await live.until("the renamed row", shows_renamed)
    with pytest.raises(OperationRefused, match="label already in use"):
        await backend.rename_session(ops, f"other {label}")

    modelled = await backend.set_session_model(ops, "local/demo", "off")
    assert (modelled.model, modelled.thinking) == ("local/demo", None)
    assert (await backend.set_session_model(ops, "default", None)).model is None
    with pytest.raises(ToolInputError, match='thinkingLevel "ultra" is not supported'):
        await backend.set_session_model(ops, None, "ultra")

    assert (await backend.archive_session(ops, True)).archived is True
    assert (await backend.archive_session(ops, False)).archived is False

    with pytest.raises(OperationRefused, match=r"Cannot delete the main session \(agent:main:main\)"):
        await backend.delete_session("main")
    deleted = await backend.delete_session(ops)
    assert (deleted.op, deleted.session_key, deleted.session_id) == ("delete", ops, done.session_id)
    await live.until("the deleted row gone", lambda: _gone(live, ops))
    with pytest.raises(ToolInputError, match=f"No session found: {ops}"):
        await backend.rename_session(ops, "x")


async def _gone(live: Live, key: str) -> bool:
    return await live.row(key) is None


async def test_reset_and_compact_need_operator_admin_and_are_done_with_it(live: Live, admin: Live) -> None:
    key = _key("reset")
    created = await admin.backend.create_session(NewSession(key=key, message="hello"))
    assert created.send is not None
    await _wait_run(admin, key, created.send["runId"])

    with pytest.raises(OperationRefused, match="SESSIONS_TUI_GATEWAY_ADMIN=1"):
        await live.backend.reset_session(key)
    with pytest.raises(OperationRefused, match="lacks operator.admin"):
        await live.backend.compact_session(key)

    compacted = await admin.backend.compact_session(key)
    assert (compacted.op, compacted.session_key, compacted.compacted) == ("compact", key, True), compacted
    reset = await admin.backend.reset_session(key)
    # 2026.9.6 resets in place: the same sessionId, its lines started over.
    assert (reset.op, reset.session_id, reset.previous_session_id) == ("reset", created.session_id, None)
    history = await admin.backend.call_tool("sessions_history", {"sessionKey": key}, Requester())
    assert not [m for m in history["messages"] if m.get("role") in ("user", "assistant")], history
    small = await admin.backend.compact_session(key)
    assert (small.compacted, small.reason) == (False, "Nothing to compact (session too small)")


async def test_a_running_first_turn_is_aborted(live: Live) -> None:
    key = _key("abort")
    SLOW_ASKED.clear()
    created = await live.backend.create_session(NewSession(key=key, message="a slow one"))
    assert created.send is not None and created.send["status"] == "accepted"
    # Stopped once it runs: a stop that reached the gateway while the turn was still being admitted
    # stops nothing, and the turn runs on (it failed so under load).
    assert await asyncio.to_thread(SLOW_ASKED.wait, DEADLINE_SECONDS)
    stopped = await live.backend.abort_run(key, clear_queued=True)
    assert (stopped.aborted, stopped.status) == (True, "aborted"), stopped
    assert stopped.run_id in (None, created.send["runId"])
    waited = await _wait_run(live, key, created.send["runId"])
    assert waited["status"] == "error", waited


def _cli(gateway: Gateway, tmp_path: Path, *args: str, admin: bool = False) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SESSIONS_TUI_", "OPENCLAW_"))}
    env |= {"XDG_CONFIG_HOME": str(tmp_path / "config"), "SESSIONS_TUI_TOKEN": gateway.token}
    if admin:
        env["SESSIONS_TUI_GATEWAY_ADMIN"] = "1"
    url = f"ws://127.0.0.1:{gateway.port}"
    command = [sys.executable, "-m", "sessions_tui", "--remote", url, "session", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


async def test_each_operation_through_the_command_line(gateway: Gateway, tmp_path: Path) -> None:
    key, other = _key("cli"), _key("cli-other")
    label = f"cli {secrets.token_hex(3)}"

    def run(*args: str, admin: bool = False) -> subprocess.CompletedProcess[str]:
        return _cli(gateway, tmp_path, *args, admin=admin)

    def check(done: subprocess.CompletedProcess[str], code: int = 0) -> str:
        assert done.returncode == code, (done.stdout, done.stderr)
        return done.stdout if code == 0 else done.stderr

    created = json.loads(check(await asyncio.to_thread(run, "new", key, "--label", label, "--json")))
    assert (created["op"], created["session_key"], created["label"]) == ("create", key, label)
    said = check(await asyncio.to_thread(run, "new", other, "--label", f"x {label}", "--message", "hi"))
    assert said.startswith(f"created {other} (sessionId ") and said.endswith("; first message accepted\n")
    assert f"Session already exists: {key}" in check(await asyncio.to_thread(run, "new", key), 1)
    assert "reserved" in check(await asyncio.to_thread(run, "new", "global"), 1)

    assert check(await asyncio.to_thread(run, "rename", key, f"{label} 2")) == f"renamed {key}: label '{label} 2'\n"
    assert "label already in use" in check(await asyncio.to_thread(run, "rename", key, f"x {label}"), 1)
    said = check(await asyncio.to_thread(run, "model", key, "local/demo", "--thinking", "off"))
    assert said == f"{key}: model local/demo, thinking off\n"
    assert "is not supported" in check(await asyncio.to_thread(run, "model", key, "--thinking", "ultra"), 2)
    assert check(await asyncio.to_thread(run, "archive", key)) == f"archived {key}\n"
    assert check(await asyncio.to_thread(run, "unarchive", key)) == f"unarchived {key}\n"

    assert "SESSIONS_TUI_GATEWAY_ADMIN=1" in check(await asyncio.to_thread(run, "reset", key), 1)
    said = check(await asyncio.to_thread(run, "reset", key, admin=True))
    assert said == f"reset {key}: sessionId {created['session_id']} (the same: reset in place)\n"
    said = check(await asyncio.to_thread(run, "compact", key, admin=True))
    assert said == f"{key}: not compacted (Nothing to compact (session too small))\n"
    assert check(await asyncio.to_thread(run, "abort", key)) == f"no run in progress in {key}\n"

    assert "Cannot delete the main session" in check(await asyncio.to_thread(run, "delete", "main", "--yes"), 1)
    assert check(await asyncio.to_thread(run, "delete", key, "--yes")) == f"deleted {key}\n"
    assert f"No session found: {key}" in check(await asyncio.to_thread(run, "archive", key), 2)
