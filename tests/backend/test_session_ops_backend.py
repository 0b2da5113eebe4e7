"""The operator's operations through the seam (`Backend` `Operating`, Capability.SESSION_OPS): the
local backend does them on its engine (bad input `ToolInputError`, a refusal `OperationRefused`);
delete stops the session's running turn first; the other backends say they lack them."""

from __future__ import annotations

import asyncio

import pytest

from conftest import FAST_DEMO, add_session
from scenes import merge
from sessions_tui.backend.contract.types import BackendUnavailable, NewSession, OperationRefused
from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.backend.remote.backend import RemoteBackend
from sessions_tui.backend.values.vocabulary import ToolInputError
from sessions_tui.engine.events import RunStarted
from sessions_tui.engine.runs.runs import RunRequest
from sessions_tui.tools.host import EngineToolHost

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


async def test_a_remote_backend_says_it_lacks_them():
    remote = RemoteBackend("http://127.0.0.1:9", None)
    try:
        with pytest.raises(BackendUnavailable, match="are not served yet"):
            await remote.reset_session(KEY)
    finally:
        remote.close()
