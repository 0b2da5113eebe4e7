"""The operator's operations through the seam (`Backend` `Operating`, Capability.SESSION_OPS): the
local backend does them on its engine (bad input `ToolInputError`, a refusal `OperationRefused`);
delete stops the session's running turn first; the other backends say they lack them."""

from __future__ import annotations

import asyncio

import pytest

from conftest import FAST_DEMO, add_session
from scenes import merge
from server_support import TOKEN, local_backend, served
from sessions_tui.backend.contract.types import NewSession, OperationRefused
from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.backend.remote.backend import RemoteBackend
from sessions_tui.backend.values.vocabulary import ToolInputError
from sessions_tui.engine.events import RunStarted
from sessions_tui.engine.runs.runs import RunRequest
from sessions_tui.tools.calling.host import EngineToolHost

KEY = "agent:main:discord:group:ops"


async def test_create_with_a_first_message_then_every_operation(make_engine):
    engine = make_engine(FAST_DEMO)
    EngineToolHost(engine)
    backend = LocalBackend(engine)
    made = await backend.create_session(NewSession(key="discord:group:ops", label="ops", message="hello"))
    assert (made.op, made.session_key, made.label) == ("create", KEY, "ops")
    assert made.send is not None and made.send["status"] == "accepted"
    await engine.drain()
    assert engine.store.sessions.get(KEY).msg_count >= 2
    with pytest.raises(OperationRefused, match=f"^Session already exists: {KEY}$"):
        await backend.create_session(NewSession(key=KEY))
    with pytest.raises(ToolInputError, match="not a session key"):
        await backend.create_session(NewSession(key="a b"))
    reset = await backend.reset_session(KEY)
    assert reset.previous_session_id == made.session_id
    assert (await backend.rename_session(KEY, "Ops")).label == "Ops"
    assert (await backend.set_session_model(KEY, "openai/gpt-5", "low")).thinking == "low"
    assert (await backend.archive_session(KEY, True)).archived
    assert not (await backend.archive_session(KEY, False)).archived
    assert (await backend.delete_session(KEY)).op == "delete"
    with pytest.raises(ToolInputError, match=f"^No session found: {KEY}$"):
        await backend.reset_session(KEY)


async def test_delete_stops_the_running_turn_first_and_refuses_main_untouched(make_engine):
    engine = make_engine(merge(FAST_DEMO, {"models": {"demo": {"latencyMs": 600_000}}}))
    EngineToolHost(engine)
    backend = LocalBackend(engine)
    add_session(engine, KEY)
    add_session(engine, "main")
    started = asyncio.Event()
    engine.events.subscribe(lambda event: started.set() if isinstance(event, RunStarted) else None)
    run_id = engine.runs.start(RunRequest(session_key=KEY, message="work slowly"))
    await asyncio.wait_for(started.wait(), 20)
    assert engine.runs.get(run_id).status == "running"
    with pytest.raises(OperationRefused, match=r"^Cannot delete the main session \(agent:main:main\)\.$"):
        await backend.delete_session("main")
    await backend.delete_session(KEY)
    assert engine.runs.get(run_id).status != "running" and engine.store.sessions.get(KEY) is None


async def test_every_operation_over_serve_as_the_local_backend_does_it(tmp_path):
    """The operator API carries them (`create_session` … `delete_session`): the outcome with its
    key, bad input the caller's `ToolInputError`, what the state forbids `OperationRefused`."""
    backend = local_backend(tmp_path / "s", FAST_DEMO)
    add_session(backend.engine, "main")
    with served(backend) as url:
        remote = RemoteBackend(url, TOKEN)
        remote.connect_blocking()
        try:
            made = await remote.create_session(NewSession(key=KEY, label="ops", model="demo/demo"))
            assert (made.op, made.session_key, made.label) == ("create", KEY, "ops")
            assert backend.engine.store.sessions.get(KEY) is not None
            with pytest.raises(OperationRefused, match=f"^Session already exists: {KEY}$"):
                await remote.create_session(NewSession(key=KEY))
            reset = await remote.reset_session(KEY)
            assert reset.previous_session_id == made.session_id and reset.session_id != made.session_id
            assert (await remote.rename_session(KEY, "ops-2")).label == "ops-2"
            assert (await remote.set_session_model(KEY, None, "low")).thinking == "low"
            assert (await remote.archive_session(KEY, True)).archived
            assert not (await remote.archive_session(KEY, False)).archived
            with pytest.raises(OperationRefused, match=r"^Cannot delete the main session"):
                await remote.delete_session("main")
            assert (await remote.delete_session(KEY)).op == "delete"
            assert backend.engine.store.sessions.get(KEY) is None
            with pytest.raises(ToolInputError, match=f"^No session found: {KEY}$"):
                await remote.reset_session(KEY)
        finally:
            await remote.aclose()
