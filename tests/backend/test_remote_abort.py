"""Stopping a run on a `sessions-tui serve` (the operator API's `abort_run`, backend/remote/wire.py):
the server stops the turn it runs, says so with the key redacted, and a key of no session is the
caller's input error, as the local backend raises it; several servers route by the key's label."""

from __future__ import annotations

import asyncio

import pytest

from conftest import FAST_DEMO, add_session
from scenes import merge
from server_support import TOKEN, local_backend, served
from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.remote.backend import RemoteBackend
from sessions_tui.backend.several import SeveralBackends
from sessions_tui.backend.values.vocabulary import ToolInputError

GROUP = "agent:main:discord:group:dev"
SLOW = merge(FAST_DEMO, {"models": {"demo": {"latencyMs": 600_000, "chunkMs": 0}}})
SLOW_SENDS = {**SLOW, "gateway": {"tools": {"allow": ["sessions_send"]}}}


def _connected(url: str) -> RemoteBackend:
    remote = RemoteBackend(url, TOKEN)
    remote.connect_blocking()
    return remote


async def _running_turn(remote: RemoteBackend, backend, key: str) -> str:
    """A slow turn the server runs in `key`, once it runs (started over /tools/invoke)."""
    sent = await remote.call_tool(
        "sessions_send", {"sessionKey": key, "message": "slow", "timeoutSeconds": 0}, Requester()
    )
    assert sent["status"] == "accepted", sent
    for _ in range(400):
        live = backend.engine.store.runs.live_runs(key)
        if live and live[0].status == "running":
            return str(sent["runId"])
        await asyncio.sleep(0.025)
    raise AssertionError("the server's turn did not start")


async def test_a_servers_turn_is_stopped_over_the_operator_api(tmp_path):
    backend = local_backend(tmp_path / "s", SLOW_SENDS)
    add_session(backend.engine, GROUP)
    with served(backend, allow=("sessions_send",)) as url:
        remote = _connected(url)
        try:
            idle = await remote.abort_run("discord:group:dev")
            assert (idle.session_key, idle.aborted, idle.status) == (GROUP, False, "no-active-run")
            run_id = await _running_turn(remote, backend, GROUP)
            done = await remote.abort_run(GROUP, clear_queued=True)
            assert (done.session_key, done.aborted, done.run_id, done.status) == (GROUP, True, run_id, "aborted")
            assert backend.engine.store.runs.get_run(run_id).status == "killed"
            with pytest.raises(ToolInputError, match="^No session found: agent:main:nope$"):
                await remote.abort_run("agent:main:nope")
        finally:
            await remote.aclose()


async def test_several_servers_stop_the_turn_on_the_keys_server(tmp_path):
    one = local_backend(tmp_path / "one", SLOW_SENDS)
    two = local_backend(tmp_path / "two", SLOW_SENDS)
    for backend in (one, two):
        add_session(backend.engine, GROUP)
    with served(one, allow=("sessions_send",)) as url_one, served(two, allow=("sessions_send",)) as url_two:
        remotes = [_connected(url_one), _connected(url_two)]
        both = SeveralBackends(remotes)
        label_two = url_two.removeprefix("http://")
        try:
            run_id = await _running_turn(remotes[1], two, GROUP)
            done = await both.abort_run(f"{label_two}/{GROUP}")
            assert (done.session_key, done.aborted, done.run_id) == (f"{label_two}/{GROUP}", True, run_id)
            assert one.engine.store.runs.live_runs(GROUP) == []
        finally:
            await asyncio.gather(*(r.aclose() for r in remotes))
