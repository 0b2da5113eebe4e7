"""Cron jobs through the seam (`Backend` `Scheduling`, Capability.CRON): a local backend hosting the
scheduler runs a job every 2 s in its cron: session (real time, synchronised on the run events); a
served one answers a remote backend the same (bad input `ToolInputError`, a refusal
`OperationRefused`, texts redacted); the gateway backends say they lack cron jobs."""

from __future__ import annotations

import asyncio
import threading

import pytest

from conftest import FAST_DEMO
from scenes import merge
from server_support import TOKEN, local_backend, served
from sessions_tui.backend.contract.types import BackendUnavailable, Capability, OperationRefused, Requester
from sessions_tui.backend.gateway.http import OpenClawGatewayBackend
from sessions_tui.backend.remote.backend import RemoteBackend
from sessions_tui.backend.values.vocabulary import RunEnded, ToolInputError

TURN = {"kind": "agentTurn", "message": "tick"}
EVERY_2S = {"id": "tick", "name": "Tick", "schedule": {"kind": "every", "everyMs": 2000}, "payload": TURN}


async def test_a_job_every_2s_runs_in_its_cron_session_under_a_local_backend(tmp_path):
    backend = local_backend(tmp_path / "s", merge(FAST_DEMO, {"cron": {"jobs": [EVERY_2S]}}))
    ended: list[RunEnded] = []
    two = asyncio.Event()

    def seen(event: object) -> None:
        if isinstance(event, RunEnded) and event.session_key == "agent:main:cron:tick":
            ended.append(event)
            if len(ended) == 2:
                two.set()

    backend.subscribe(seen)
    try:
        await backend.start()
        await backend.serve_cron_jobs()
        await asyncio.wait_for(two.wait(), 20)
        await backend.engine.scheduler.drain()  # each run's record written after its run's end
        runs = await backend.cron_runs("tick", 10)
        done = [run for run in runs if run.status is not None]
        assert len(done) >= 2 and {run.status for run in done} == {"ok"}
        assert {run.trigger for run in done} == {"due"} and {run.session_key for run in done} == {
            "agent:main:cron:tick"
        }
        starts = sorted(run.started_at_ms for run in done)
        assert starts[1] - starts[0] >= 1900  # every 2 s, not sooner
        for run in done:  # each started within 1 s of its due time
            assert run.scheduled_at_ms is not None and 0 <= run.started_at_ms - run.scheduled_at_ms < 1000
        job = await backend.cron_job_of("agent:main:cron:tick")
        assert job is not None and job.id == "tick" and job.state.last_run_status == "ok"
        listed = await backend.call_tool("sessions_list", {}, Requester())
        assert "cron:tick" in [row["key"] for row in listed["sessions"]]
    finally:
        await backend.aclose()


async def test_a_servers_jobs_over_the_operator_api(tmp_path):
    declared = {**EVERY_2S, "id": "declared", "schedule": {"kind": "every", "everyMs": 3_600_000}}
    backend = local_backend(tmp_path / "s", merge(FAST_DEMO, {"cron": {"jobs": [declared]}}))
    with served(backend) as url:
        remote = RemoteBackend(url, TOKEN)
        remote.connect_blocking()
        try:
            assert Capability.CRON in remote.capabilities
            added = await remote.add_cron_job(
                {"id": "r", "name": "Remote", "schedule": {"kind": "every", "everyMs": 600_000}, "payload": TURN}
            )
            assert added.source == "cli" and added.state.next_run_at_ms
            assert [job.id for job in await remote.cron_jobs()] == ["r", "declared"]
            assert (await remote.edit_cron_job("r", {"name": "Renamed"})).name == "Renamed"
            assert (await remote.enable_cron_job("r", False)).enabled is False
            run = await remote.run_cron_job("r")
            assert (run.status, run.trigger, run.session_key) == ("ok", "manual", "agent:main:cron:r")
            assert [r.id for r in await remote.cron_runs("r", 5)] == [run.id]
            assert (await remote.cron_job_of("cron:r")).id == "r"
            assert await remote.cron_job_of("main") is None
            with pytest.raises(ToolInputError, match="No cron job found: nope"):
                await remote.cron_job("nope")
            with pytest.raises(ToolInputError, match="cron expression"):
                await remote.add_cron_job({"name": "x", "schedule": {"kind": "cron", "expr": "x"}, "payload": TURN})
            with pytest.raises(OperationRefused, match="declared in the config file"):
                await remote.remove_cron_job("declared")
            assert (await remote.remove_cron_job("r")).id == "r"
            await remote.serve_cron_jobs()  # nothing: the server runs its own
        finally:
            remote.close()


async def test_a_gateway_says_it_lacks_cron_jobs():
    gateway = OpenClawGatewayBackend("http://127.0.0.1:9", None)
    try:
        assert Capability.CRON not in gateway.capabilities
        with pytest.raises(BackendUnavailable, match="managed with 'openclaw cron', not from here yet"):
            await gateway.cron_jobs()
        assert await gateway.cron_job_of("cron:x") is None
        await gateway.serve_cron_jobs()
    finally:
        gateway.close()


async def test_serve_runs_a_job_every_2s_seen_live_by_a_remote_face(tmp_path):
    """`serve`'s lifespan hosts the scheduler: its runs reach a remote face as events, and the job,
    its runs and its cron: session are the server's to read."""
    backend = local_backend(tmp_path / "s", merge(FAST_DEMO, {"cron": {"jobs": [EVERY_2S]}}))
    with served(backend) as url:
        remote = RemoteBackend(url, TOKEN)
        remote.connect_blocking()
        ended = threading.Event()
        seen: list[str] = []

        def on_event(event: object) -> None:
            if isinstance(event, RunEnded) and event.session_key.endswith("cron:tick"):
                seen.append(event.run_id)
                if len(seen) == 2:
                    ended.set()

        remote.subscribe(on_event)
        try:
            assert await asyncio.to_thread(ended.wait, 20)
            listed = await remote.call_tool("sessions_list", {}, Requester())
            assert "cron:tick" in [row["key"] for row in listed["sessions"]]
            runs = await remote.cron_runs("tick", 10)
            assert {run.run_id for run in runs} >= set(seen[:1])  # the first one's record is written
        finally:
            remote.close()
