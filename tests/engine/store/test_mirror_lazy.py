"""A session's JSONL mirror file comes with its first transcript line: an empty session costs no file.

Everything that shows a session (history, its full transcript, sessions_list, a follow of the
OpenClaw it came from) treats a missing mirror as an empty transcript.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_store import mirror_lines

from conftest import run_tool
from openclaw_fake import FakeGateway
from sessions_tui.engine.openclaw.follow import Follower
from sessions_tui.engine.store.connection import StoreError
from sessions_tui.engine.store.store import Store

KEY = "agent:main:main"
EMPTY = "agent:main:discord:group:888"
EMPTY_ID = "88800000-0000-4000-8000-000000000888"


def test_a_new_session_has_no_mirror_file(tmp_path, clock):
    store = Store(tmp_path, clock)
    session = store.sessions.create(KEY)
    assert not os.path.exists(session.mirror_path)
    assert not (tmp_path / "agents").exists()  # not even its directory
    assert store.transcripts.history(KEY).messages == [] and store.transcripts.history(KEY).total == 0
    assert store.transcripts.transcript_lines(KEY) == []
    assert store.transcripts.transcript_tail(KEY) == (0, None)
    store.close()


def test_the_first_line_creates_the_mirror_with_its_header(tmp_path, clock):
    store = Store(tmp_path, clock)
    session = store.sessions.create(KEY)
    store.transcripts.append(KEY, {"role": "user", "content": "one"})
    lines = mirror_lines(session.mirror_path)
    assert lines[0] == {
        "type": "session",
        "version": 3,
        "id": session.session_id,
        "timestamp": "2026-04-13T12:00:00.000Z",
        "cwd": str(tmp_path),
    }
    assert [line["message"]["content"] for line in lines[1:]] == ["one"]
    assert oct(os.stat(session.mirror_path).st_mode & 0o777) == "0o600"
    store.transcripts.append(KEY, {"role": "user", "content": "two"})
    assert [line["message"]["content"] for line in mirror_lines(session.mirror_path)[1:]] == ["one", "two"]
    store.close()


def test_a_file_left_by_a_process_that_died_before_its_commit_is_replaced(tmp_path, clock):
    store = Store(tmp_path, clock)
    session = store.sessions.create(KEY)
    Path(session.mirror_path).parent.mkdir(parents=True)
    Path(session.mirror_path).write_text('{"type":"session"}\n{"type":"message","id":"dead', encoding="utf-8")
    store.transcripts.append(KEY, {"role": "user", "content": "one"})
    lines = mirror_lines(session.mirror_path)
    assert lines[0]["id"] == session.session_id
    assert [line["message"]["content"] for line in lines[1:]] == ["one"]
    store.close()


def test_an_empty_session_shows_in_history_and_list_without_a_file(engine):
    key = engine.canonical("main")
    engine.store.sessions.create(key)
    history = run_tool(engine, "sessions_history", {"sessionKey": key})
    assert history["messages"] == []
    listed = run_tool(engine, "sessions_list", {"messageLimit": 2})
    row = {r["sessionId"]: r for r in listed["sessions"]}[engine.store.sessions.get(key).session_id]
    assert row["transcriptPath"] == engine.store.sessions.get(key).mirror_path  # where it will be
    assert row.get("messages", []) == []
    assert not os.path.exists(row["transcriptPath"])


def test_empty_sessions_in_a_batch_write_no_file_and_the_others_theirs_before_the_commit(tmp_path, clock):
    store = Store(tmp_path, clock)
    with store.batch() as checkpoint:
        for n in range(50):
            lines = [{"type": "message", "id": f"{n:04x}0001", "message": {"role": "user", "content": f"m{n}"}}]
            store.imports.import_session(
                f"agent:main:s{n}",
                {"updatedAt": 1},
                session_id=f"00000000-0000-4000-8000-{n:012d}",
                lines=lines if n % 2 else [],
                raw=[json.dumps(lines[0])] if n % 2 else [],
                source=f"src#{n}",
                source_lines=2 if n % 2 else 1,
            )
            checkpoint()
    for n in range(50):
        session = store.sessions.get(f"agent:main:s{n}")
        assert session is not None
        if n % 2:
            assert [line["message"]["content"] for line in mirror_lines(session.mirror_path)[1:]] == [f"m{n}"]
        else:
            assert not os.path.exists(session.mirror_path)
    store.close()


def test_a_mirror_that_cannot_be_created_fails_the_batch_and_stores_nothing(tmp_path, clock):
    store = Store(tmp_path, clock)
    (tmp_path / "agents" / "main").mkdir(parents=True)
    (tmp_path / "agents" / "main" / "sessions").write_text("not a directory", encoding="utf-8")
    line = {"type": "message", "id": "00000001", "message": {"role": "user", "content": "hi"}}
    with pytest.raises(OSError), store.batch() as checkpoint:
        store.imports.import_session(
            KEY,
            {"updatedAt": 1},
            session_id="00000000-0000-4000-8000-000000000001",
            lines=[line],
            raw=[json.dumps(line)],
            source="src#main",
            source_lines=2,
        )
        checkpoint()
    assert store.sessions.get(KEY) is None and store.imports.imported_lines("src#main") is None
    store.close()


def test_a_sessionid_in_use_leaves_the_other_sessions_mirror_alone(tmp_path, clock):
    store = Store(tmp_path, clock)
    first = store.sessions.create(KEY, session_id="00000000-0000-4000-8000-000000000001")
    store.transcripts.append(KEY, {"role": "user", "content": "mine"})
    before = Path(first.mirror_path).read_bytes()
    line = {"type": "message", "id": "00000002", "message": {"role": "user", "content": "other"}}
    with pytest.raises(StoreError, match="already in use"):
        store.imports.import_session(
            "agent:main:other",
            {},
            session_id=first.session_id,
            lines=[line],
            raw=[json.dumps(line)],
            source="src#other",
            source_lines=2,
        )
    assert Path(first.mirror_path).read_bytes() == before
    store.close()


def test_an_openclaw_session_with_no_lines_is_followed_into_a_mirror(tmp_path, make_engine):
    gateway = FakeGateway(tmp_path / "openclaw")
    engine = make_engine()
    follower = Follower(engine.store, engine.canonical, tmp_path / "openclaw")
    try:
        follower.tick()
        gateway.conn.execute(
            "INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at) VALUES (?, ?, ?, ?)",
            (EMPTY, EMPTY_ID, json.dumps({"sessionId": EMPTY_ID, "updatedAt": 1}), 1),
        )
        follower.tick()
        session = engine.store.sessions.get(EMPTY)
        assert session is not None and session.msg_count == 0
        assert not os.path.exists(session.mirror_path)
        assert run_tool(engine, "sessions_history", {"sessionKey": EMPTY})["messages"] == []
        gateway.conn.execute(
            "INSERT INTO session_windows (session_id, session_key, created_at, updated_at) VALUES (?, ?, 1, 1)",
            (EMPTY_ID, EMPTY),
        )
        gateway._insert(EMPTY_ID, 0, {"type": "session", "id": "x"})
        gateway.append(EMPTY, {"role": "user", "content": "hello"})
        assert follower.tick().report.changed == {EMPTY: 1}
        lines = mirror_lines(session.mirror_path)
        assert lines[0]["type"] == "session" and [line["message"]["content"] for line in lines[1:]] == ["hello"]
        assert [line.split('"content":"')[1][:5] for line in engine.store.transcripts.transcript_lines(EMPTY)] == [
            "hello"
        ]
    finally:
        follower.close()
        gateway.close()


def test_a_transcript_replaced_by_an_empty_one_loses_its_mirror(tmp_path, clock):
    store = Store(tmp_path, clock)
    line = {"type": "message", "id": "00000001", "message": {"role": "user", "content": "hi"}}
    store.imports.import_session(
        KEY,
        {"updatedAt": 1},
        session_id="00000000-0000-4000-8000-000000000001",
        lines=[line],
        raw=[json.dumps(line)],
        source="src#main",
        source_lines=2,
    )
    path = store.sessions.get(KEY).mirror_path
    assert os.path.exists(path)
    store.imports.replace_import(KEY, entry={"updatedAt": 2}, lines=[], raw=[], source="src#main", source_lines=1)
    assert not os.path.exists(path) and store.transcripts.transcript_lines(KEY) == []
    store.transcripts.append(KEY, {"role": "user", "content": "again"})
    assert [line["message"]["content"] for line in mirror_lines(path)[1:]] == ["again"]
    store.close()
