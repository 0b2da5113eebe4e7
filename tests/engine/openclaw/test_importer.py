"""`import_openclaw`: a legacy OpenClaw state directory comes in whole, verbatim, once, untouched."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from conftest import NOW_MS, run_tool
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.openclaw.importer import import_openclaw as import_state_dir
from sessions_tui.engine.openclaw.layout import NoOpenClawState
from sessions_tui.engine.openclaw.mirror import ImportReport

A2A = {"tools": {"agentToAgent": {"enabled": True}}}


def import_openclaw(engine: Engine, root: Path) -> ImportReport:
    return import_state_dir(engine.store, engine.canonical, root)


MINUTE = 60_000


def iso(ms: int) -> str:
    from sessions_tui.engine.clock import iso_from_ms

    return iso_from_ms(ms)


# --------------------------------------------------------------------------------------------
# Building legacy OpenClaw state directories
# --------------------------------------------------------------------------------------------


@dataclass
class LegacySession:
    agent: str
    raw_key: str
    key: str  # the canonical key it must be imported under
    session_id: str
    entry: dict[str, Any]
    lines: list[str] = field(default_factory=list)  # every physical line, header first
    path: Path | None = None

    @property
    def body(self) -> list[str]:
        """The lines after the header: what the store must hold, verbatim."""
        return self.lines[1:]


def header(session_id: str, ts: int) -> str:
    return json.dumps({"type": "session", "version": 1, "id": session_id, "timestamp": iso(ts), "cwd": "/home/op/work"})


def message_line(entry_id: str, parent: str | None, ts: int, message: dict[str, Any]) -> str:
    # Default separators (", " and ": "): not the store's compact form, so "verbatim" is tested.
    return json.dumps(
        {"type": "message", "id": entry_id, "parentId": parent, "timestamp": iso(ts), "message": message},
        ensure_ascii=False,
    )


def transcript(session_id: str, ts: int, tag: str) -> list[str]:
    """A realistic transcript: user, assistant with a tool call, tool result, model change,
    compaction, and a final exchange."""
    return [
        header(session_id, ts),
        message_line(
            f"{tag}000001", None, ts + 1000, {"role": "user", "content": f"hello from {tag} ✓", "timestamp": ts + 1000}
        ),
        message_line(
            f"{tag}000002",
            f"{tag}000001",
            ts + 2000,
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "let me look"},
                    {"type": "text", "text": f"checking {tag}"},
                    {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "a.txt"}},
                ],
                "provider": "openai",
                "model": "gpt-5",
                "stopReason": "toolUse",
                "usage": {"input": 10, "output": 5, "totalTokens": 15},
                "timestamp": ts + 2000,
            },
        ),
        message_line(
            f"{tag}000003",
            f"{tag}000002",
            ts + 3000,
            {
                "role": "toolResult",
                "toolCallId": "call_1",
                "toolName": "read",
                "content": [{"type": "text", "text": "file body"}],
                "isError": False,
                "timestamp": ts + 3000,
            },
        ),
        json.dumps(
            {
                "type": "model_change",
                "id": f"{tag}000004",
                "parentId": f"{tag}000003",
                "timestamp": iso(ts + 4000),
                "provider": "anthropic",
                "modelId": "claude-x",
            }
        ),
        json.dumps(
            {
                "type": "compaction",
                "id": f"{tag}000005",
                "parentId": f"{tag}000004",
                "timestamp": iso(ts + 5000),
                "summary": "earlier talk",
                "firstKeptEntryId": f"{tag}000002",
                "tokensBefore": 1234,
            }
        ),
        message_line(
            f"{tag}000006",
            f"{tag}000005",
            ts + 6000,
            {"role": "user", "content": f"and now {tag}?", "timestamp": ts + 6000},
        ),
        message_line(
            f"{tag}000007",
            f"{tag}000006",
            ts + 7000,
            {
                "role": "assistant",
                "content": [{"type": "text", "text": f"done {tag}"}],
                "provider": "anthropic",
                "model": "claude-x",
                "stopReason": "stop",
                "timestamp": ts + 7000,
            },
        ),
    ]


def write_lines(path: Path, lines: list[str], *, trailing_newline: bool = True) -> None:
    text = "\n".join(lines) + ("\n" if trailing_newline else "")
    path.write_bytes(text.encode("utf-8"))


def legacy_sessions() -> list[LegacySession]:
    t = NOW_MS - 10 * MINUTE
    return [
        LegacySession(
            "main",
            "agent:main:main",
            "agent:main:main",
            "0f8c2a6e-1111-4c3b-9d1e-aaaaaaaaaaa1",
            {
                "updatedAt": t + 9 * MINUTE,
                "chatType": "direct",
                "channel": "webchat",
                "lastChannel": "webchat",
                "lastTo": "operator",
                "model": "gpt-5",
                "totalTokens": 4321,
                "contextTokens": 200000,
                "thinkingLevel": "low",
                "systemSent": True,
            },
        ),
        LegacySession(
            "main",
            "cron:job-1",
            "agent:main:cron:job-1",
            "0f8c2a6e-2222-4c3b-9d1e-aaaaaaaaaaa2",
            {
                "updatedAt": t + 8 * MINUTE,
                "label": "nightly report",
                "displayName": "Nightly cron",
            },
        ),
        LegacySession(
            "main",
            "discord:group:dev",
            "agent:main:discord:group:dev",
            "0f8c2a6e-3333-4c3b-9d1e-aaaaaaaaaaa3",
            {
                "updatedAt": t + 7 * MINUTE,
                "chatType": "group",
                "displayName": "discord:#dev",
                "subject": "Dev chat",
                "label": "dev-room",
                "lastChannel": "discord",
                "deliveryContext": {"channel": "discord", "to": "channel:42", "accountId": "bot1"},
                "estimatedCostUsd": 0.25,
                "sendPolicy": "deny",
            },
        ),
        LegacySession(
            "ops",
            "main",
            "agent:ops:main",
            "0f8c2a6e-4444-4c3b-9d1e-aaaaaaaaaaa4",
            {
                "updatedAt": t + 6 * MINUTE,
                "channel": "telegram",
                "lastChannel": "telegram",
                "displayName": "Ops main",
                "model": "claude-x",
            },
        ),
        LegacySession(
            "ops",
            "agent:ops:slack:channel:alerts",
            "agent:ops:slack:channel:alerts",
            "0f8c2a6e-5555-4c3b-9d1e-aaaaaaaaaaa5",
            {
                "updatedAt": t + 5 * MINUTE,
                "chatType": "channel",
                "label": "alerts",
                "origin": {"provider": "slack", "accountId": "T01"},
            },
        ),
    ]


def build_legacy(root: Path, sessions: list[LegacySession] | None = None) -> list[LegacySession]:
    """Write `root/agents/<id>/sessions/{sessions.json, <sessionId>.jsonl}`."""
    sessions = legacy_sessions() if sessions is None else sessions
    stores: dict[str, dict[str, Any]] = {}
    for i, s in enumerate(sessions):
        sdir = root / "agents" / s.agent / "sessions"
        sdir.mkdir(parents=True, exist_ok=True)
        s.entry = {"sessionId": s.session_id, **s.entry}
        stores.setdefault(s.agent, {})[s.raw_key] = s.entry
        if not s.lines:
            s.lines = transcript(s.session_id, s.entry["updatedAt"] - 60_000, f"{i:02x}")
        s.path = sdir / f"{s.session_id}.jsonl"
        write_lines(s.path, s.lines)
    for agent, store in stores.items():
        (root / "agents" / agent / "sessions" / "sessions.json").write_text(
            json.dumps(store, indent=2), encoding="utf-8"
        )
    return sessions


def snapshot(root: Path) -> dict[str, tuple]:
    """Every file's and directory's content hash, size, mode and mtime, by relative path."""
    out: dict[str, tuple] = {}
    for dirpath, _dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        st = d.stat()
        out[str(d.relative_to(root)) + "/"] = ("dir", st.st_mode, st.st_mtime_ns)
        for name in filenames:
            p = d / name
            st = p.stat()
            digest = hashlib.sha256(p.read_bytes()).hexdigest()
            out[str(p.relative_to(root))] = (digest, st.st_size, st.st_mode, st.st_mtime_ns)
    return out


@pytest.fixture
def legacy(tmp_path: Path) -> tuple[Path, list[LegacySession]]:
    root = tmp_path / "openclaw"
    return root, build_legacy(root)


def by_key(sessions: list[LegacySession]) -> dict[str, LegacySession]:
    return {s.key: s for s in sessions}


# --------------------------------------------------------------------------------------------
# Keys, ids, transcripts
# --------------------------------------------------------------------------------------------


def test_every_agents_sessions_are_imported_under_canonical_keys(make_engine, legacy):
    root, sessions = legacy
    engine = make_engine()
    report = import_openclaw(engine, root)
    assert report.problems == []
    assert report.sessions_imported == 5
    stored = {s.key for s in engine.store.browse.list_sessions(include_archived=True)[0]}
    assert stored == {
        "agent:main:main",
        "agent:main:cron:job-1",
        "agent:main:discord:group:dev",
        "agent:ops:main",
        "agent:ops:slack:channel:alerts",
    }
    assert engine.store.sessions.get("cron:job-1") is None  # not under its bare spelling
    assert engine.store.sessions.get("agent:main:cron:job-1").agent_id == "main"
    assert engine.store.sessions.get("agent:ops:main").agent_id == "ops"
    assert engine.store.sessions.get("agent:ops:slack:channel:alerts").agent_id == "ops"


def test_bare_legacy_key_in_main_store_becomes_agent_main_key(make_engine, legacy):
    root, _ = legacy
    engine = make_engine()
    import_openclaw(engine, root)
    cron = engine.store.sessions.get("agent:main:cron:job-1")
    assert cron is not None
    assert cron.entry["label"] == "nightly report"
    assert engine.canonical("cron:job-1") == "agent:main:cron:job-1"
    assert engine.store.sessions.get("agent:main:discord:group:dev") is not None


def test_session_ids_are_kept(make_engine, legacy):
    root, sessions = legacy
    engine = make_engine()
    import_openclaw(engine, root)
    for s in sessions:
        stored = engine.store.sessions.get(s.key)
        assert stored.session_id == s.session_id
        assert stored.entry["sessionId"] == s.session_id
        assert engine.store.sessions.get_by_session_id(s.session_id).key == s.key


def test_transcript_lines_are_stored_verbatim_without_header(make_engine, legacy):
    root, sessions = legacy
    engine = make_engine()
    report = import_openclaw(engine, root)
    for s in sessions:
        assert engine.store.transcripts.transcript_lines(s.key) == s.body
    assert report.lines_imported == sum(len(s.body) for s in sessions)
    # message lines, the compaction line and the model_change line all came along
    types = [json.loads(line)["type"] for line in engine.store.transcripts.transcript_lines("agent:main:main")]
    assert types == ["message", "message", "message", "model_change", "compaction", "message", "message"]


def test_transcripts_are_mirrored_under_the_state_dir(make_engine, legacy, tmp_path):
    root, sessions = legacy
    state = tmp_path / "state"
    engine = make_engine(state=state)
    import_openclaw(engine, root)
    for s in sessions:
        mirror = state / "agents" / s.agent / "sessions" / f"{s.session_id}.jsonl"
        assert engine.store.sessions.get(s.key).mirror_path == str(mirror)
        lines = mirror.read_text(encoding="utf-8").splitlines()
        head = json.loads(lines[0])
        assert head["type"] == "session" and head["id"] == s.session_id
        assert lines[1:] == s.body
        assert oct(mirror.stat().st_mode & 0o777) == "0o600"


def test_sessions_history_returns_the_imported_messages(make_engine, legacy):
    root, sessions = legacy
    engine = make_engine(A2A)
    import_openclaw(engine, root)
    result = run_tool(engine, "sessions_history", {"sessionKey": "main"})
    assert result["sessionKey"] == "main"
    assert result["totalMessages"] == 6  # 5 messages + the compaction; model_change is not one
    roles = [m["role"] for m in result["messages"]]
    assert roles == ["user", "assistant", "system", "user", "assistant"]  # tool result dropped
    assert result["messages"][0]["content"] == "hello from 00 ✓"
    assert result["messages"][1]["content"][1] == {"type": "text", "text": "checking 00"}
    assert result["messages"][2]["content"] == [{"type": "text", "text": "Compaction"}]
    assert result["messages"][-1]["content"] == [{"type": "text", "text": "done 00"}]
    with_tools = run_tool(engine, "sessions_history", {"sessionKey": "main", "includeTools": True})
    assert [m["role"] for m in with_tools["messages"]] == [
        "user",
        "assistant",
        "toolResult",
        "system",
        "user",
        "assistant",
    ]
    cron = run_tool(engine, "sessions_history", {"sessionKey": "cron:job-1"})
    assert cron["messages"][0]["content"] == "hello from 01 ✓"
    ops = run_tool(engine, "sessions_history", {"sessionKey": "agent:ops:slack:channel:alerts"})
    assert ops["messages"][-1]["content"] == [{"type": "text", "text": "done 04"}]
    by_id = run_tool(engine, "sessions_history", {"sessionKey": sessions[3].session_id})
    assert by_id["sessionKey"] == "agent:ops:main"
    assert by_id["messages"][0]["content"] == "hello from 03 ✓"


def test_entry_fields_are_visible_in_sessions_list(make_engine, legacy):
    root, sessions = legacy
    engine = make_engine(A2A)
    import_openclaw(engine, root)
    result = run_tool(engine, "sessions_list", {})
    rows = {row["key"]: row for row in result["sessions"]}
    assert list(rows) == [
        "main",
        "cron:job-1",
        "agent:main:discord:group:dev",
        "agent:ops:main",
        "agent:ops:slack:channel:alerts",
    ]  # newest first, by the imported updatedAt
    main = rows["main"]
    assert main["kind"] == "main"
    assert main["channel"] == "webchat" and main["lastChannel"] == "webchat" and main["lastTo"] == "operator"
    assert main["sessionId"] == sessions[0].session_id
    assert main["updatedAt"] == sessions[0].entry["updatedAt"]
    assert main["model"] == "gpt-5" and main["totalTokens"] == 4321 and main["contextTokens"] == 200000
    assert main["thinkingLevel"] == "low" and main["systemSent"] is True
    cron = rows["cron:job-1"]
    assert cron["kind"] == "cron" and cron["channel"] == "internal"
    assert cron["label"] == "nightly report" and cron["displayName"] == "Nightly cron"
    dev = rows["agent:main:discord:group:dev"]
    assert dev["kind"] == "group" and dev["channel"] == "discord"
    assert dev["displayName"] == "discord:#dev" and dev["label"] == "dev-room"
    assert dev["deliveryContext"] == {"channel": "discord", "to": "channel:42", "accountId": "bot1"}
    assert dev["lastChannel"] == "discord" and dev["estimatedCostUsd"] == 0.25 and dev["sendPolicy"] == "deny"
    ops = rows["agent:ops:main"]
    assert ops["kind"] == "main" and ops["channel"] == "telegram" and ops["displayName"] == "Ops main"
    alerts = rows["agent:ops:slack:channel:alerts"]
    assert alerts["label"] == "alerts" and alerts["origin"] == {"provider": "slack", "accountId": "T01"}
    assert alerts["channel"] == "slack"
    for s in sessions:
        row = next(r for r in rows.values() if r["sessionId"] == s.session_id)
        assert row["transcriptPath"] == engine.store.sessions.get(s.key).mirror_path


# --------------------------------------------------------------------------------------------
# Idempotence, and the source left alone
# --------------------------------------------------------------------------------------------


def test_second_import_imports_nothing_and_duplicates_no_lines(make_engine, legacy):
    root, sessions = legacy
    engine = make_engine()
    first = import_openclaw(engine, root)
    before = {s.key: engine.store.transcripts.transcript_lines(s.key) for s in sessions}
    mirrors = {s.key: Path(engine.store.sessions.get(s.key).mirror_path).read_bytes() for s in sessions}
    second = import_openclaw(engine, root)
    assert first.sessions_imported == 5
    assert second.sessions_imported == 0
    assert second.sessions_updated == 0
    assert second.sessions_unchanged == 5
    assert second.lines_imported == 0
    assert second.problems == []
    assert engine.store.sessions.count(include_archived=True) == 5
    for s in sessions:
        assert engine.store.transcripts.transcript_lines(s.key) == before[s.key] == s.body
        assert Path(engine.store.sessions.get(s.key).mirror_path).read_bytes() == mirrors[s.key]


def test_reimport_after_two_appended_lines_adds_exactly_those_two(make_engine, legacy):
    root, sessions = legacy
    engine = make_engine()
    import_openclaw(engine, root)
    target = sessions[1]
    extra = [
        message_line("ff000001", "01000007", NOW_MS, {"role": "user", "content": "one more", "timestamp": NOW_MS}),
        message_line(
            "ff000002",
            "ff000001",
            NOW_MS + 1,
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "sure"}],
                "timestamp": NOW_MS + 1,
            },
        ),
    ]
    with open(target.path, "a", encoding="utf-8") as handle:
        handle.write("\n".join(extra) + "\n")
    report = import_openclaw(engine, root)
    assert report.sessions_imported == 0
    assert report.sessions_updated == 1
    assert report.sessions_unchanged == 4
    assert report.lines_imported == 2
    assert engine.store.transcripts.transcript_lines(target.key) == target.body + extra
    mirror = Path(engine.store.sessions.get(target.key).mirror_path).read_text(encoding="utf-8").splitlines()
    assert mirror[1:] == target.body + extra
    history = run_tool(engine, "sessions_history", {"sessionKey": "cron:job-1"})
    assert history["messages"][-1]["content"] == [{"type": "text", "text": "sure"}]
    assert history["totalMessages"] == 8
    for s in sessions:
        if s is not target:
            assert engine.store.transcripts.transcript_lines(s.key) == s.body
    again = import_openclaw(engine, root)
    assert (again.sessions_updated, again.lines_imported) == (0, 0)
    assert engine.store.transcripts.transcript_lines(target.key) == target.body + extra


def test_source_directory_is_byte_for_byte_unchanged(make_engine, legacy):
    root, _ = legacy
    before = snapshot(root)
    engine = make_engine()
    import_openclaw(engine, root)
    import_openclaw(engine, root)  # and the incremental path too
    assert snapshot(root) == before


def test_source_with_problems_is_unchanged_too(make_engine, tmp_path):
    root = tmp_path / "openclaw"
    sessions = legacy_sessions()
    sessions[0].lines = transcript(sessions[0].session_id, NOW_MS - 60_000, "aa")
    sessions[0].lines.insert(2, "{broken")
    build_legacy(root, sessions)
    (root / "agents" / "ops" / "sessions" / "sessions.json").write_text("{not json", encoding="utf-8")
    before = snapshot(root)
    report = import_openclaw(make_engine(), root)
    assert len(report.problems) == 2
    assert snapshot(root) == before


# --------------------------------------------------------------------------------------------
# Bad input: reported, skipped, the rest still imports
# --------------------------------------------------------------------------------------------


def test_corrupt_lines_are_reported_with_line_numbers_and_skipped(make_engine, tmp_path):
    root = tmp_path / "openclaw"
    sessions = legacy_sessions()
    s = sessions[0]
    good = transcript(s.session_id, NOW_MS - 60_000, "aa")
    lines = list(good)
    lines.insert(2, '{"type":"message","id":"bad1","message":{"role":')  # line 3: invalid JSON
    lines.insert(4, "")  # line 5: blank, ignored
    lines.insert(5, "[1, 2, 3]")  # line 6: not an object
    lines.insert(7, '{"type":"message","id":"bad3","parentId":null,"message":5}')  # line 8
    s.lines = lines
    build_legacy(root, sessions)
    engine = make_engine()
    report = import_openclaw(engine, root)
    path = s.path
    assert len(report.problems) == 3
    assert report.problems[0].startswith(f"{path}:3: invalid JSON")
    assert report.problems[1].startswith(f"{path}:6: not a JSON object")
    assert report.problems[2].startswith(f"{path}:8: message is not an object")
    assert all(p.endswith("line skipped") for p in report.problems)
    # the good lines of that transcript, and every other session, came in
    assert engine.store.transcripts.transcript_lines(s.key) == good[1:]
    assert report.sessions_imported == 5
    for other in sessions[1:]:
        assert engine.store.transcripts.transcript_lines(other.key) == other.body
    # and a re-import neither re-reports nor re-imports anything
    again = import_openclaw(engine, root)
    assert again.problems == [] and again.lines_imported == 0
    assert engine.store.transcripts.transcript_lines(s.key) == good[1:]


def test_invalid_sessions_json_is_reported_and_other_agents_still_import(make_engine, legacy):
    root, sessions = legacy
    bad = root / "agents" / "main" / "sessions" / "sessions.json"
    bad.write_text('{"agent:main:main": {"sessionId": ', encoding="utf-8")
    engine = make_engine()
    report = import_openclaw(engine, root)
    assert len(report.problems) == 1
    assert report.problems[0].startswith(f"{bad}: cannot read session store")
    assert report.sessions_imported == 2
    assert {s.key for s in engine.store.browse.list_sessions()[0]} == {
        "agent:ops:main",
        "agent:ops:slack:channel:alerts",
    }
    for s in sessions:
        if s.agent == "ops":
            assert engine.store.transcripts.transcript_lines(s.key) == s.body


def test_sessions_json_that_is_not_an_object_is_reported(make_engine, legacy):
    root, _ = legacy
    bad = root / "agents" / "ops" / "sessions" / "sessions.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    engine = make_engine()
    report = import_openclaw(engine, root)
    assert report.problems == [f"{bad}: session store is not a JSON object; skipped"]
    assert report.sessions_imported == 3


def test_json5_sessions_json_is_accepted(make_engine, tmp_path):
    root = tmp_path / "openclaw"
    sessions = [s for s in legacy_sessions() if s.agent == "main"]
    build_legacy(root, sessions)
    a, b, c = sessions
    (root / "agents" / "main" / "sessions" / "sessions.json").write_text(
        "// written by hand\n"
        "{\n"
        f"  'agent:main:main': {{ sessionId: '{a.session_id}', updatedAt: {a.entry['updatedAt']}, "
        "channel: 'webchat', },\n"
        "  /* a cron job */\n"
        f'  "cron:job-1": {{"sessionId": "{b.session_id}", "updatedAt": {b.entry["updatedAt"]}, '
        '"label": "nightly report",},\n'
        f'  "discord:group:dev": {{"sessionId": "{c.session_id}", "updatedAt": {c.entry["updatedAt"]}}},\n'
        "}\n",
        encoding="utf-8",
    )
    engine = make_engine()
    report = import_openclaw(engine, root)
    assert report.problems == []
    assert report.sessions_imported == 3
    assert engine.store.sessions.get("agent:main:main").entry["channel"] == "webchat"
    assert engine.store.sessions.get("agent:main:cron:job-1").entry["label"] == "nightly report"
    for s in sessions:
        assert engine.store.transcripts.transcript_lines(s.key) == s.body


def test_entry_without_valid_session_id_is_reported(make_engine, legacy):
    root, _ = legacy
    path = root / "agents" / "main" / "sessions" / "sessions.json"
    store = json.loads(path.read_text(encoding="utf-8"))
    store["hook:no-id"] = {"updatedAt": NOW_MS, "label": "x"}
    store["hook:bad-id"] = {"sessionId": "../../etc/passwd", "updatedAt": NOW_MS}
    store["hook:num-id"] = {"sessionId": 12345, "updatedAt": NOW_MS}
    store["hook:not-object"] = "nope"
    path.write_text(json.dumps(store), encoding="utf-8")
    engine = make_engine()
    report = import_openclaw(engine, root)
    assert report.problems == [
        f"{path}: hook:no-id: missing or invalid sessionId; skipped",
        f"{path}: hook:bad-id: missing or invalid sessionId; skipped",
        f"{path}: hook:num-id: missing or invalid sessionId; skipped",
        f"{path}: hook:not-object: entry is not an object; skipped",
    ]
    assert report.sessions_imported == 5
    for key in ("agent:main:hook:no-id", "agent:main:hook:bad-id", "agent:main:hook:num-id"):
        assert engine.store.sessions.get(key) is None


def test_a_directory_without_either_layout_is_refused_naming_both(make_engine, tmp_path):
    (tmp_path / "empty" / "agents" / "main").mkdir(parents=True)
    with pytest.raises(NoOpenClawState) as refused:
        import_openclaw(make_engine(), tmp_path / "empty")
    text = str(refused.value)
    assert "agents/<agentId>/agent/openclaw-agent.sqlite" in text
    assert "agents/<agentId>/sessions/sessions.json" in text
    with pytest.raises(NoOpenClawState, match="no such directory"):
        import_openclaw(make_engine(), tmp_path / "nowhere")
    (tmp_path / "afile").write_text("x")
    with pytest.raises(NoOpenClawState) as a_file:
        import_openclaw(make_engine(), tmp_path / "afile")
    assert str(a_file.value) == f"{tmp_path / 'afile'}: is a file, not a directory"


def test_existing_session_under_the_same_key_is_not_overwritten(make_engine, legacy):
    root, _ = legacy
    engine = make_engine()
    engine.store.sessions.create("agent:main:cron:job-1", {"label": "mine"})
    engine.store.transcripts.append("agent:main:cron:job-1", {"role": "user", "content": "kept"})
    report = import_openclaw(engine, root)
    assert report.sessions_imported == 4
    assert len(report.problems) == 1 and "agent:main:cron:job-1 already exists" in report.problems[0]
    assert engine.store.sessions.get("agent:main:cron:job-1").entry["label"] == "mine"
    assert len(engine.store.transcripts.transcript_lines("agent:main:cron:job-1")) == 1


def test_summary_counts_everything(make_engine, legacy):
    root, sessions = legacy
    report = import_openclaw(make_engine(), root)
    assert isinstance(report, ImportReport)
    assert report.summary() == (
        f"imported 5 sessions, updated 0, unchanged 0; {sum(len(s.body) for s in sessions)} "
        "transcript lines; 0 problems"
    )


# --------------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------------


def cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    env["HOME"] = str(home)
    env["XDG_DATA_HOME"] = str(home / "xdg")
    return subprocess.run(
        [sys.executable, "-m", "sessions_tui", *args], capture_output=True, text=True, env=env, timeout=60
    )


def test_cli_import_openclaw_prints_summary_and_problems(legacy, tmp_path):
    root, sessions = legacy
    s = sessions[2]
    with open(s.path, "a", encoding="utf-8") as handle:
        handle.write("not json at all\n")
    state = tmp_path / "cli-state"
    proc = cli("import-openclaw", str(root), "--state", str(state), home=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines_total = sum(len(x.body) for x in sessions)
    assert proc.stdout.strip().splitlines() == [
        f"read {root / 'agents' / 'main' / 'sessions' / 'sessions.json'}",
        f"read {root / 'agents' / 'ops' / 'sessions' / 'sessions.json'}",
        f"imported 5 sessions, updated 0, unchanged 0; {lines_total} transcript lines; 1 problem",
    ]
    assert proc.stderr.strip().splitlines() == [
        f"{s.path}:{len(s.lines) + 1}: invalid JSON (Expecting value at column 1); line skipped"
    ]
    engine = Engine(state)
    try:
        assert engine.store.sessions.count() == 5
        for x in sessions:
            assert engine.store.transcripts.transcript_lines(x.key) == x.body
    finally:
        engine.close()
    again = cli("import-openclaw", str(root), "--state", str(state), home=tmp_path)
    assert again.returncode == 0
    assert again.stdout.strip().splitlines()[-1] == (
        "imported 0 sessions, updated 0, unchanged 5; 0 transcript lines; 0 problems"
    )
    assert again.stderr == ""


# --------------------------------------------------------------------------------------------
# Edge cases: a line still being written, a reset session, a malformed updatedAt.
# --------------------------------------------------------------------------------------------


def test_unterminated_last_line_is_imported_once_complete(make_engine, legacy):
    root, sessions = legacy
    engine = make_engine()
    target = sessions[1]
    line = message_line("ee000001", "01000007", NOW_MS, {"role": "user", "content": "late", "timestamp": NOW_MS})
    with open(target.path, "a", encoding="utf-8") as handle:
        handle.write(line[:25])  # OpenClaw is mid-write when the import runs
    import_openclaw(engine, root)
    with open(target.path, "a", encoding="utf-8") as handle:
        handle.write(line[25:] + "\n")
    import_openclaw(engine, root)
    assert engine.store.transcripts.transcript_lines(target.key) == target.body + [line]


def test_reimport_after_session_id_change_does_not_mix_transcripts(make_engine, legacy):
    root, sessions = legacy
    engine = make_engine()
    import_openclaw(engine, root)
    target = sessions[2]
    store_path = root / "agents" / "main" / "sessions" / "sessions.json"
    data = json.loads(store_path.read_text(encoding="utf-8"))
    new_id = "0f8c2a6e-9999-4c3b-9d1e-aaaaaaaaaaa9"
    data[target.raw_key]["sessionId"] = new_id
    new_lines = transcript(new_id, NOW_MS, "77") + [
        message_line(f"77{i:06d}", None, NOW_MS, {"role": "user", "content": f"new {i}"}) for i in range(3)
    ]
    write_lines(store_path.parent / f"{new_id}.jsonl", new_lines)
    target.path.rename(target.path.with_name(target.path.name + ".reset.2026-04-13T12-00-00.000Z"))
    store_path.write_text(json.dumps(data), encoding="utf-8")
    report = import_openclaw(engine, root)
    stored = engine.store.transcripts.transcript_lines(target.key)
    if stored == target.body:  # kept the old transcript: then say why
        assert any(target.raw_key in p for p in report.problems)
    else:  # or took the new one, whole
        assert stored == new_lines[1:]
        assert engine.store.sessions.get(target.key).session_id == new_id


@pytest.mark.parametrize("updated_at", ["yesterday", None, [1]])
def test_entry_with_non_numeric_updated_at_is_reported_not_fatal(make_engine, legacy, updated_at):
    root, _ = legacy
    path = root / "agents" / "main" / "sessions" / "sessions.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["cron:job-1"]["updatedAt"] = updated_at
    path.write_text(json.dumps(data), encoding="utf-8")
    engine = make_engine()
    report = import_openclaw(engine, root)
    assert engine.store.sessions.get("agent:ops:main") is not None  # the rest still imports
    assert engine.store.sessions.get("agent:main:discord:group:dev") is not None
    imported = engine.store.sessions.get("agent:main:cron:job-1")
    assert imported is not None or any("cron:job-1" in p for p in report.problems)


def test_reimport_takes_entry_fields_changed_in_the_source_and_keeps_local_ones(make_engine, legacy):
    root, sessions = legacy
    engine = make_engine()
    import_openclaw(engine, root)
    target = sessions[1]
    engine.store.sessions.patch(target.key, {"status": "done", "totalTokens": 999})  # sessions-tui's own changes
    store_path = root / "agents" / "main" / "sessions" / "sessions.json"
    data = json.loads(store_path.read_text(encoding="utf-8"))
    data[target.raw_key]["label"] = "renamed in OpenClaw"
    store_path.write_text(json.dumps(data), encoding="utf-8")
    report = import_openclaw(engine, root)
    entry = engine.store.sessions.get(target.key).entry
    assert report.sessions_updated == 1 and report.sessions_unchanged == 4
    assert entry["label"] == "renamed in OpenClaw"
    assert entry["status"] == "done" and entry["totalTokens"] == 999
    assert import_openclaw(engine, root).sessions_unchanged == 5  # and idempotent again
