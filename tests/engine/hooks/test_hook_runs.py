"""The runs inbound hooks start (engine/hooks/hook_runs.py) and the wakes (wakes.py), on the engine."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import add_session
from sessions_tui.engine.events import EngineEvent, HookReceived
from sessions_tui.engine.hooks.hook_runs import HookConflict
from sessions_tui.engine.hooks.values import HookRun, HookWake

OPEN = {"hooks": {"allowRequestSessionKey": True, "allowedSessionKeyPrefixes": ["hook:", "ops:"]}}


def _seen(engine) -> list[EngineEvent]:
    seen: list[EngineEvent] = []
    engine.events.subscribe(seen.append)
    return seen


async def _run(engine, hook: HookRun):
    admission = engine.hooks.admit(hook, engine.runs)
    admitted = engine.hooks.start(admission, engine.runs)
    return admitted, await engine.hooks.completion(admitted.run_id)


async def test_a_hook_runs_in_a_fresh_hook_session_that_says_where_it_came_from(live_engine):
    engine = live_engine()
    seen = _seen(engine)
    admitted, completion = await _run(engine, HookRun(message="the nightly import completed", name="Nightly"))
    key = admitted.session_key
    assert key.startswith("agent:main:hook:")
    assert completion.status == "ok" and completion.reply_disposition == "visible"
    entry = engine.store.sessions.get(key).entry
    assert entry["displayName"] == "Nightly"
    assert entry["hook"]["name"] == "Nightly" and entry["hook"]["path"] == "/hooks/agent"
    assert entry["hook"]["runId"] == admitted.run_id
    [received] = [e for e in seen if isinstance(e, HookReceived)]
    assert (received.session_key, received.name, received.run_id, received.kind) == (
        key,
        "Nightly",
        admitted.run_id,
        "agent",
    )
    first = engine.store.transcripts.history(key).messages[0]
    assert first["role"] == "user" and first["provenance"]["kind"] == "hook"
    assert "<<<EXTERNAL_UNTRUSTED_CONTENT id=" in first["content"]
    assert "Task: Nightly\n---\nthe nightly import completed\n" in first["content"]
    assert engine.runs.get(admitted.run_id).lane == "hook"


async def test_isolated_on_a_used_key_starts_a_fresh_session_and_keeps_the_old_one(live_engine):
    engine = live_engine(OPEN)
    key = add_session(engine, "hook:ci", [{"role": "user", "content": "earlier", "timestamp": 1}])
    old = engine.store.sessions.get(key).session_id
    admitted, _ = await _run(engine, HookRun(message="again", session_key="hook:ci"))
    session = engine.store.sessions.get(admitted.session_key)
    assert admitted.session_key == key and session.session_id != old
    assert session.entry["previousSessionId"] == old
    assert any("earlier" in line for line in engine.store.sessions.lines_of(old))


async def test_persistent_reuses_the_session_and_its_context(live_engine):
    engine = live_engine(OPEN)
    first, _ = await _run(engine, HookRun(message="one", session_key="ops:thread", session_mode="persistent"))
    sid = engine.store.sessions.get(first.session_key).session_id
    second, done = await _run(engine, HookRun(message="two", session_key="ops:thread", session_mode="persistent"))
    assert second.session_key == first.session_key == "agent:main:ops:thread"
    assert engine.store.sessions.get(second.session_key).session_id == sid
    users = [m for m in engine.store.transcripts.history(second.session_key).messages if m.get("role") == "user"]
    assert len(users) == 2 and done.reply_disposition == "visible"


async def test_a_session_an_openclaw_owns_takes_no_hook(live_engine, monkeypatch):
    engine = live_engine(OPEN)
    monkeypatch.setattr(engine, "owner_of", lambda key: Path("/somewhere/.openclaw"))
    with pytest.raises(HookConflict, match="target session changed"):
        engine.hooks.admit(HookRun(message="x", session_key="hook:x"), engine.runs)
    assert engine.store.sessions.get("agent:main:hook:x") is None


async def test_the_run_takes_the_hooks_model_thinking_and_time_limit(live_engine):
    engine = live_engine()
    hook = HookRun(message="x", model="demo/demo", thinking="low", timeout_seconds=7)
    admission = engine.hooks.admit(hook, engine.runs)
    request = admission.request
    assert (request.model, request.thinking, request.timeout_seconds) == ("demo/demo", "low", 7)
    engine.hooks.start(admission, engine.runs)
    await engine.hooks.completion(admission.record.run_id)


async def test_a_reply_asked_for_on_a_channel_goes_out_through_the_outbox(live_engine):
    engine = live_engine({"channels": {"ops": {}}})
    admitted, completion = await _run(engine, HookRun(message="status?", name="Pager", channel="ops", to="#alerts"))
    assert completion.delivery_attempted is True
    [delivery] = engine.outbox.list(session_key=admitted.session_key)
    assert (delivery.kind, delivery.channel, delivery.to, delivery.state) == ("hook", "ops", "#alerts", "recorded")


def test_a_silent_or_empty_reply_is_not_delivered(live_engine):
    engine = live_engine({"channels": {"ops": {}}})
    admission = engine.hooks.admit(HookRun(message="x", channel="ops", to="#a"), engine.runs)
    silent = engine.hooks._settle(admission, "ok", " NO_REPLY ")
    assert silent.wire() == {
        "status": "ok",
        "replyDisposition": "silent",
        "delivered": False,
        "deliverySuppressionReason": "silent",
    }
    empty = engine.hooks._settle(admission, "ok", None)
    assert (empty.reply_disposition, empty.delivery_suppression_reason) == ("empty", "empty")
    failed = engine.hooks._settle(admission, "error", "partial")
    assert failed.wire() == {"status": "error", "replyDisposition": "visible"}
    assert engine.outbox.list() == []


async def test_a_wake_queues_coalesces_and_runs_on_now(live_engine):
    engine = live_engine()
    seen = _seen(engine)
    assert engine.wakes.wake(HookWake(text="later", mode="next-heartbeat")) == ("queued", None)
    assert engine.wakes.wake(HookWake(text="later", mode="next-heartbeat")) == ("coalesced", None)
    outcome, request = engine.wakes.wake(HookWake(text="deploy done"))
    assert outcome == "queued"
    assert request.session_key == "agent:main:main"
    assert request.message == "System: later\nSystem: deploy done"
    assert [e.kind for e in seen if isinstance(e, HookReceived)] == ["wake", "wake", "wake"]
    run_id = engine.runs.start(request)
    assert (await engine.runs.wait(run_id, 10_000)).status == "ok"
