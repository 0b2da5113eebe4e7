"""The operator's operations on a session (engine/sessions/operations.py): the main session made by
the owner's first send, create, reset, rename, model/thinking, archive/unarchive, delete; each
audited and told as `SessionChanged`."""

from __future__ import annotations

import json
import os

import pytest

from conftest import add_session, call_tool, run_tool
from sessions_tui.engine import session_operations as ops
from sessions_tui.engine.events import EngineEvent, SessionChanged
from sessions_tui.engine.messaging.audit import audit_entries
from sessions_tui.engine.session_operations import SessionOpInvalid, SessionOpRefused

GROUP = "agent:main:discord:group:ops"


def _told(engine) -> list[EngineEvent]:
    seen: list[EngineEvent] = []
    engine.events.subscribe(seen.append)
    return seen


async def test_the_owners_first_send_into_main_creates_it(live_engine):
    engine = live_engine()
    assert engine.store.sessions.get("agent:main:main") is None
    result = await call_tool(engine, "sessions_send", {"sessionKey": "main", "message": "hello", "timeoutSeconds": 5})
    assert result["status"] == "ok"
    session = engine.store.sessions.get("agent:main:main")
    assert session is not None and session.msg_count >= 2
    await engine.drain()
    assert [e.kind for e in audit_entries(engine)].count("session_create") == 1


async def test_only_a_main_key_and_only_the_owner(live_engine):
    engine = live_engine()
    other = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hi", "timeoutSeconds": 0})
    assert other["status"] == "error" and other["error"] == f"No session found: {GROUP}"
    assert engine.store.sessions.get(GROUP) is None
    sandboxed = await call_tool(
        engine, "sessions_send", {"sessionKey": "agent:ops:main", "message": "hi"}, as_key=GROUP, sandboxed=True
    )
    assert sandboxed["status"] != "ok" and engine.store.sessions.get("agent:ops:main") is None


def test_create_with_label_model_thinking_audited_and_told(engine):
    seen = _told(engine)
    done = ops.create_session(engine, "discord:group:ops", label="ops", model="openai/gpt-5", thinking="High")
    assert (done.session_key, done.label, done.model, done.thinking) == (GROUP, "ops", "openai/gpt-5", "high")
    entry = engine.store.sessions.get(GROUP).entry
    assert (entry["modelOverride"], entry["model"], entry["thinkingLevel"]) == ("openai/gpt-5", "gpt-5", "high")
    assert entry["modelProvider"] == "openai"  # as OpenClaw's entry names a model: provider and name
    assert [e.session_key for e in seen if isinstance(e, SessionChanged)] == [GROUP]
    audit = audit_entries(engine)[0]
    assert (audit.kind, audit.session_key, audit.via) == ("session_create", GROUP, "operator")


def test_create_takes_every_kind_and_an_agent(engine):
    for raw, key in [
        ("cron:nightly", "agent:main:cron:nightly"),
        ("hook:gmail", "agent:main:hook:gmail"),
        ("node-laptop", "agent:main:node-laptop"),
        ("agent:ops:main", "agent:ops:main"),
    ]:
        assert ops.create_session(engine, raw).session_key == key
    assert ops.create_session(engine, "slack:channel:c1", agent_id="ops").session_key == "agent:ops:slack:channel:c1"
    assert ops.create_session(engine, "main", agent_id="ops2").session_key == "agent:ops2:main"


def test_create_refuses_what_exists_or_is_reserved_and_bad_input(engine):
    ops.create_session(engine, GROUP, label="ops")
    with pytest.raises(SessionOpRefused, match=f"^Session already exists: {GROUP}$"):
        ops.create_session(engine, GROUP)
    for reserved in ("global", "unknown", "GLOBAL"):
        with pytest.raises(SessionOpRefused, match="is reserved"):
            ops.create_session(engine, reserved)
    with pytest.raises(SessionOpRefused, match="^label already in use: ops$"):
        ops.create_session(engine, "discord:group:two", label="ops")
    with pytest.raises(SessionOpInvalid, match="not a session key"):
        ops.create_session(engine, "two words")
    with pytest.raises(SessionOpInvalid, match='Invalid thinking level "loud"'):
        ops.create_session(engine, "discord:group:two", thinking="loud")
    with pytest.raises(SessionOpInvalid, match="names agent ops, not main"):
        ops.create_session(engine, "agent:ops:x", agent_id="main")
    assert engine.store.sessions.get("agent:main:discord:group:two") is None


def test_reset_gives_a_new_session_id_and_keeps_the_old_transcript(engine):
    add_session(engine, GROUP, [{"role": "user", "content": "before"}], label="ops")
    old = engine.store.sessions.get(GROUP)
    done = ops.reset_session(engine, GROUP)
    assert done.previous_session_id == old.session_id and done.session_id != old.session_id
    now = engine.store.sessions.get(GROUP)
    assert (now.entry["label"], now.entry["previousSessionId"]) == ("ops", old.session_id)
    # The new transcript opens on OpenClaw's reset boundary, which history shows as a system line.
    shown = run_tool(engine, "sessions_history", {"sessionKey": GROUP})["messages"]
    assert [(m["role"], m["content"][0]["text"], m["__openclaw"]["kind"]) for m in shown] == [
        ("system", "Reset", "reset")
    ]
    assert json.loads(ops.transcript_of(engine, done.session_id)[-1])["previousSessionId"] == old.session_id
    kept = ops.transcript_of(engine, old.session_id)
    assert any('"before"' in line for line in kept) and os.path.exists(old.mirror_path)
    engine.store.transcripts.append(GROUP, {"role": "user", "content": "after"})
    assert [m["content"] for m in run_tool(engine, "sessions_history", {"sessionKey": GROUP})["messages"]][1:] == [
        "after"
    ]
    assert audit_entries(engine)[0].data["previousSessionId"] == old.session_id


def test_rename_unique_and_cleared(engine):
    add_session(engine, GROUP, label="ops")
    add_session(engine, "discord:group:b", label="b")
    assert ops.rename_session(engine, GROUP, "ops").label == "ops"  # its own label again
    with pytest.raises(SessionOpRefused, match="^label already in use: b$"):
        ops.rename_session(engine, GROUP, "b")
    with pytest.raises(SessionOpInvalid, match="^invalid label: empty$"):
        ops.rename_session(engine, GROUP, "  ")
    assert ops.rename_session(engine, GROUP, "  Ops room ").label == "Ops room"
    assert ops.rename_session(engine, GROUP, None).label is None
    with pytest.raises(SessionOpInvalid, match="^No session found: agent:main:nope$"):
        ops.rename_session(engine, "agent:main:nope", "x")


def test_model_and_thinking_set_and_cleared(engine):
    add_session(engine, GROUP)
    done = ops.set_session_model(engine, GROUP, "openai/gpt-5", "low")
    assert (done.model, done.thinking) == ("openai/gpt-5", "low")
    done = ops.set_session_model(engine, GROUP, None, "off")
    assert (done.model, done.thinking) == ("openai/gpt-5", None)
    assert engine.store.sessions.get(GROUP).entry["modelProvider"] == "openai"
    done = ops.set_session_model(engine, GROUP, "default")
    entry = engine.store.sessions.get(GROUP).entry
    assert done.model is None and "model" not in entry and "modelProvider" not in entry
    with pytest.raises(SessionOpInvalid):
        ops.set_session_model(engine, GROUP, None)


def test_archive_hides_from_the_list_unarchive_brings_back_main_never(engine):
    add_session(engine, GROUP)
    add_session(engine, "main")
    assert ops.set_archived(engine, GROUP, True).archived
    assert [s["key"] for s in run_tool(engine, "sessions_list")["sessions"]] == ["main"]
    assert not ops.set_archived(engine, GROUP, False).archived
    assert len(run_tool(engine, "sessions_list")["sessions"]) == 2
    with pytest.raises(SessionOpRefused, match=r"^Cannot archive the main session \(agent:main:main\)\.$"):
        ops.set_archived(engine, "main", True)
    assert [e.kind for e in audit_entries(engine)[:2]] == ["session_unarchive", "session_archive"]


def test_delete_removes_entry_and_lines_keeps_the_file_renamed(engine, clock):
    add_session(engine, GROUP, [{"role": "user", "content": "gone"}])
    add_session(engine, "main")
    session = engine.store.sessions.get(GROUP)
    seen = _told(engine)
    ops.delete_session(engine, GROUP)
    assert engine.store.sessions.get(GROUP) is None and ops.transcript_of(engine, session.session_id) == []
    assert not os.path.exists(session.mirror_path)
    assert os.path.exists(f"{session.mirror_path}.deleted.{clock.now_ms()}")
    assert [e.session_key for e in seen if isinstance(e, SessionChanged)] == [GROUP]
    with pytest.raises(SessionOpRefused, match=r"^Cannot delete the main session \(agent:main:main\)\.$"):
        ops.delete_session(engine, "main")
    with pytest.raises(SessionOpInvalid, match=f"^No session found: {GROUP}$"):
        ops.delete_session(engine, GROUP)


def test_a_reset_transcript_stays_reachable_by_its_session_id(engine):
    """Each reset leaves its generation under the key (`session_generations`); an export of the old
    sessionId is that transcript, under the session's key; the current one is untouched."""
    from sessions_tui.engine.export import session_export

    add_session(engine, GROUP, [{"role": "user", "content": "first"}], label="ops")
    first = engine.store.sessions.get(GROUP).session_id
    ops.reset_session(engine, GROUP)
    engine.store.transcripts.append(GROUP, {"role": "user", "content": "second"})
    second = ops.reset_session(engine, GROUP).previous_session_id
    assert [g.session_id for g in engine.store.sessions.generations_of(GROUP)] == [second, first]
    old = session_export(engine, first)
    assert (old.key, old.session_id, old.entry["sessionId"], old.entry["label"]) == (GROUP, first, first, "ops")
    assert any('"first"' in line for line in old.lines) and not any('"second"' in line for line in old.lines)
    middle = session_export(engine, second)
    assert any('"second"' in line for line in middle.lines) and json.loads(middle.lines[0])["type"] == "reset"
    assert session_export(engine, "no-such-session-id") is None


def test_delete_takes_the_generations_resets_left_too(engine, clock):
    add_session(engine, GROUP, [{"role": "user", "content": "old"}])
    old = engine.store.sessions.get(GROUP)
    ops.reset_session(engine, GROUP)

    def indexed() -> int:
        with engine.store.read() as conn:
            return int(conn.execute("SELECT count(*) FROM transcript_text").fetchone()[0])

    assert indexed() >= 1  # the old line
    ops.delete_session(engine, GROUP)
    assert ops.transcript_of(engine, old.session_id) == [] and engine.store.sessions.generations_of(GROUP) == []
    assert os.path.exists(f"{old.mirror_path}.deleted.{clock.now_ms()}") and not os.path.exists(old.mirror_path)
    assert indexed() == 0
