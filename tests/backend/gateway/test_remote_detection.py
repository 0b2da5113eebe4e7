"""`--remote URL` finds out what answers there (cli/remote.py `connect`): a gateway's WebSocket at
`ws://` and at `http://` (the replayed gateway, tests/gateway_replay.py), a `sessions-tui serve` at
`http://` as before; a pairing request said once on stderr while the command waits; several
gateways in one backend, each over its own socket."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gateway_replay import ReplayGateway, replaying, with_http
from server_support import TOKEN, local_backend, served
from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.gateway.live import GatewaySocketBackend
from sessions_tui.backend.remote.backend import RemoteBackend
from sessions_tui.backend.remote.io_thread import IoThread
from sessions_tui.backend.several import SeveralBackends
from sessions_tui.backend.values.views import BrowseQuery
from sessions_tui.backend.values.vocabulary import EngineEvent, SessionChanged
from sessions_tui.cli.errors import UsageError
from sessions_tui.cli.remote import connect, connect_all


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The device identity a command makes goes to the test's config directory, not the user's."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@contextmanager
def in_thread(gateway: ReplayGateway) -> Iterator[tuple[ReplayGateway, IoThread]]:
    """The stand-in on a loop of its own, for a command that blocks while it connects."""
    io = IoThread("replayed gateway")
    serving = replaying(gateway)
    io.call(serving.__aenter__(), 10)
    try:
        yield gateway, io
    finally:
        io.call(serving.__aexit__(None, None, None), 10)
        io.stop()


@pytest.mark.parametrize("scheme", ["ws", "http"])
def test_a_gateway_is_spoken_to_over_its_websocket(scheme: str) -> None:
    with in_thread(ReplayGateway()) as (gateway, io):
        port = gateway.port
        if scheme == "http":  # asked first for a sessions-tui operator API, which is not there
            front = with_http(gateway)
            port = io.call(front.__aenter__(), 10)
        backend = connect(f"{scheme}://127.0.0.1:{port}", "shared")
        try:
            assert isinstance(backend, GatewaySocketBackend)
            assert gateway.connects[0]["auth"] == {"token": "shared"}
            assert asyncio.run(backend.owner_key("main")) == "agent:main:main"
        finally:
            backend.close()
            if scheme == "http":
                io.call(front.__aexit__(None, None, None), 10)


def test_a_sessions_tui_server_is_still_a_remote_backend(tmp_path: Path) -> None:
    with served(local_backend(tmp_path / "s")) as url:
        backend = connect(url, TOKEN)
        try:
            assert isinstance(backend, RemoteBackend)
        finally:
            backend.close()


def test_a_pairing_request_is_said_once_on_stderr_and_waited_through(capsys: pytest.CaptureFixture[str]) -> None:
    with in_thread(ReplayGateway(outcomes=["pairing", "pairing", "hello"])) as (gateway, _):
        backend = connect(f"ws://127.0.0.1:{gateway.port}", "shared")
        backend.close()
    err = capsys.readouterr().err.splitlines()
    assert len(gateway.connects) == 3
    assert len(err) == 1 and "openclaw devices approve " in err[0] and "waiting" in err[0]


def test_several_gateways_each_over_its_own_socket() -> None:
    with in_thread(ReplayGateway()) as (one, _), in_thread(ReplayGateway()) as (two, two_io):
        several = SeveralBackends([connect(f"ws://127.0.0.1:{g.port}", "shared") for g in (one, two)])
        got: list[EngineEvent] = []

        async def scene() -> None:
            loop = asyncio.get_running_loop()
            arrived = asyncio.Event()

            def on_event(event: EngineEvent) -> None:
                got.append(event)
                if isinstance(event, SessionChanged):
                    loop.call_soon_threadsafe(arrived.set)

            several.subscribe(on_event)
            page = await several.browse(Requester(), BrowseQuery(), offset=0, limit=100)
            assert page.total == 20
            assert {r["_key"].split("/")[0] for r in page.rows} == {f"127.0.0.1:{one.port}", f"127.0.0.1:{two.port}"}
            row = dict(two.rows[0], label="moved")
            frame = {
                "type": "event",
                "event": "sessions.changed",
                "payload": {"sessionKey": row["key"], "session": row},
            }
            await asyncio.wrap_future(two_io.submit(two.push(frame)))
            await asyncio.wait_for(arrived.wait(), 10)

        try:
            asyncio.run(scene())
        finally:
            several.close()
        changed = [e for e in got if isinstance(e, SessionChanged)]
        assert changed[0].session_key == f"127.0.0.1:{two.port}/{two.rows[0]['key']}"


@dataclass
class Meeting(ReplayGateway):
    """A stand-in that answers `sessions.subscribe` only once every gateway of the meeting has
    been asked it: connected one after the other, the first would wait for ever."""

    meeting: threading.Barrier | None = None

    def answer(self, method: str, params: Any) -> tuple[bool, Any]:
        if method == "sessions.subscribe" and self.meeting is not None:
            self.meeting.wait()
        return super().answer(method, params)


def test_several_gateways_are_connected_at_once_and_one_that_fails_closes_the_rest() -> None:
    meeting = threading.Barrier(2, timeout=10)
    with in_thread(Meeting(meeting=meeting)) as (one, _), in_thread(Meeting(meeting=meeting)) as (two, _):
        urls = [f"ws://127.0.0.1:{g.port}" for g in (one, two)]
        backends = connect_all(urls, ["shared", "shared"], password=None, http_only=False)
        try:
            assert [b.location for b in backends] == urls
        finally:
            for backend in backends:
                backend.close()

        with socket.socket() as spare:  # a port nothing listens on
            spare.bind(("127.0.0.1", 0))
            dead = f"ws://127.0.0.1:{spare.getsockname()[1]}"
        one.meeting = two.meeting = None
        with pytest.raises(UsageError, match=dead.removeprefix("ws://")):
            connect_all([urls[0], dead], ["shared", "shared"], password=None, http_only=False)
        assert len(one.sockets) == 2  # the first connected and was closed again
