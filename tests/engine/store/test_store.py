"""The SQLite store: transcripts, the JSONL mirror, several processes, and SIGKILL mid-write."""

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sessions_tui.engine.store.connection import StoreError
from sessions_tui.engine.store.store import Store

WORKER = Path(__file__).with_name("store_worker.py")
KEY = "agent:main:main"


def mirror_lines(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def test_create_writes_header_and_appends_chain_parent_ids(tmp_path, clock):
    store = Store(tmp_path, clock)
    session = store.sessions.create(KEY, {"lastChannel": "webchat"})
    store.transcripts.append(KEY, {"role": "user", "content": "hi"})
    store.transcripts.append(KEY, {"role": "assistant", "content": [{"type": "text", "text": "hello"}]})
    lines = mirror_lines(session.mirror_path)
    assert lines[0] == {
        "type": "session",
        "version": 3,
        "id": session.session_id,
        "timestamp": "2026-04-13T12:00:00.000Z",
        "cwd": str(tmp_path),
    }
    assert [line["type"] for line in lines[1:]] == ["message", "message"]
    assert lines[1]["parentId"] is None
    assert lines[2]["parentId"] == lines[1]["id"]
    assert all(len(line["id"]) == 8 and int(line["id"], 16) >= 0 for line in lines[1:])
    assert session.mirror_path == str(tmp_path / "agents" / "main" / "sessions" / f"{session.session_id}.jsonl")
    assert oct(os.stat(session.mirror_path).st_mode & 0o777) == "0o600"
    store.close()


def test_transcript_lines_are_stored_verbatim(tmp_path, clock):
    store = Store(tmp_path, clock)
    session = store.sessions.create(KEY)
    store.transcripts.append(KEY, {"role": "user", "content": "ünïcode ✓", "extra": {"nested": [1, 2]}})
    stored = store.transcripts.transcript_lines(KEY)
    with open(session.mirror_path, encoding="utf-8") as handle:
        assert handle.read().splitlines()[1:] == stored
    assert json.loads(stored[0])["message"]["extra"] == {"nested": [1, 2]}
    store.close()


def test_history_windows_and_numbering(tmp_path, clock):
    store = Store(tmp_path, clock)
    store.sessions.create(KEY)
    for i in range(10):
        store.transcripts.append(KEY, {"role": "user", "content": f"m{i}"})
    page = store.transcripts.history(KEY, limit=3)
    assert [m["content"] for m in page.messages] == ["m7", "m8", "m9"]
    assert [m["__openclaw"]["seq"] for m in page.messages] == [8, 9, 10]
    assert page.total == 10 and page.start == 7
    page = store.transcripts.history(KEY, limit=3, offset=8)
    assert [m["content"] for m in page.messages] == ["m0", "m1"]
    assert page.start == 0
    assert store.transcripts.history("agent:main:nope").messages == []
    store.close()


def test_compaction_lines_become_system_messages_and_others_are_not_messages(tmp_path, clock):
    store = Store(tmp_path, clock)
    store.sessions.create(KEY)
    store.transcripts.append_lines(
        KEY,
        [
            {"type": "model_change", "provider": "x", "modelId": "y"},
            {"type": "compaction", "summary": "s"},
            {"type": "message", "message": {"role": "user", "content": "after"}},
        ],
    )
    messages = store.transcripts.history(KEY).messages
    assert messages[0]["role"] == "system"
    assert messages[0]["content"] == [{"type": "text", "text": "Compaction"}]
    assert messages[0]["__openclaw"]["kind"] == "compaction"
    assert [m["__openclaw"]["seq"] for m in messages] == [1, 2]
    assert len(store.transcripts.transcript_lines(KEY)) == 3
    store.close()


def test_append_moves_updated_at_unless_told_not_to(tmp_path, clock):
    store = Store(tmp_path, clock)
    store.sessions.create(KEY)
    clock.advance(5000)
    store.transcripts.append(KEY, {"role": "user", "content": "x"})
    assert store.sessions.get(KEY).updated_at == clock.now_ms()
    assert store.sessions.get(KEY).entry["updatedAt"] == clock.now_ms()
    clock.advance(5000)
    store.transcripts.append(KEY, {"role": "user", "content": "y"}, touch=False)
    assert store.sessions.get(KEY).updated_at == clock.now_ms() - 5000
    store.close()


def test_patch_merges_and_removes_fields(tmp_path, clock):
    store = Store(tmp_path, clock)
    store.sessions.create(KEY, {"label": "a", "sendPolicy": "deny"})
    store.sessions.patch(KEY, {"label": "b", "sendPolicy": None, "spawnedBy": "agent:main:x"})
    entry = store.sessions.get(KEY).entry
    assert entry["label"] == "b" and "sendPolicy" not in entry
    assert store.sessions.spawned_keys("agent:main:x") == {KEY}
    with pytest.raises(StoreError, match="No session found"):
        store.sessions.patch("agent:main:none", {"label": "x"})
    store.close()


def test_duplicate_key_and_unsafe_session_id_are_refused(tmp_path, clock):
    store = Store(tmp_path, clock)
    store.sessions.create(KEY)
    with pytest.raises(StoreError, match="already exists"):
        store.sessions.create(KEY)
    with pytest.raises(StoreError, match="Invalid session ID: ../evil"):
        store.sessions.create("agent:main:other", session_id="../evil")
    store.close()


def test_list_is_newest_first_with_filters_and_paging(tmp_path, clock):
    store = Store(tmp_path, clock)
    for i in range(5):
        store.sessions.create(f"agent:main:s{i}", {"updatedAt": 1000 + i})
    store.sessions.create("agent:main:cron:job:run:r1", {"updatedAt": 9999})
    rows, more = store.browse.list_sessions(limit=2)
    assert [r.key for r in rows] == ["agent:main:s4", "agent:main:s3"] and more
    rows, more = store.browse.list_sessions(limit=2, offset=4)
    assert [r.key for r in rows] == ["agent:main:s0"] and not more
    rows, _ = store.browse.list_sessions(active_since=1003)
    assert {r.key for r in rows} == {"agent:main:s3", "agent:main:s4"}
    store.close()


def test_a_torn_mirror_line_is_cut_off_at_the_next_append(tmp_path, clock):
    store = Store(tmp_path, clock)
    session = store.sessions.create(KEY)
    store.transcripts.append(KEY, {"role": "user", "content": "one"})
    with open(session.mirror_path, "a", encoding="utf-8") as handle:
        handle.write('{"type":"message","id":"deadbeef","mess')  # a process died here
    store.transcripts.append(KEY, {"role": "user", "content": "two"})
    lines = mirror_lines(session.mirror_path)
    assert [line["message"]["content"] for line in lines[1:]] == ["one", "two"]
    store.close()


def test_a_deleted_mirror_is_rebuilt_from_the_database(tmp_path, clock):
    store = Store(tmp_path, clock)
    session = store.sessions.create(KEY)
    store.transcripts.append(KEY, {"role": "user", "content": "one"})
    os.remove(session.mirror_path)
    store.transcripts.append(KEY, {"role": "user", "content": "two"})
    lines = mirror_lines(session.mirror_path)
    assert lines[0]["type"] == "session"
    assert [line["message"]["content"] for line in lines[1:]] == ["one", "two"]
    store.close()


def _spawn(state: Path, count: int, tag: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), str(state), KEY, str(count), tag],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "ready"
    return proc


def _check_consistent(state: Path) -> list[str]:
    """Integrity, contiguous numbering, and a mirror identical to the database."""
    conn = sqlite3.connect(state / "sessions.sqlite3")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    store = Store(state)
    store.transcripts.append(KEY, {"role": "user", "content": "check"})  # reconciles the mirror
    session = store.sessions.get(KEY)
    page = store.transcripts.history(KEY)
    assert [m["__openclaw"]["seq"] for m in page.messages] == list(range(1, session.msg_count + 1))
    with open(session.mirror_path, encoding="utf-8") as handle:
        mirrored = handle.read().splitlines()
    assert mirrored[1:] == store.transcripts.transcript_lines(KEY)
    contents = [m["content"].split(" ")[0] for m in page.messages]
    store.close()
    return contents


def test_two_processes_appending_to_one_session_lose_nothing(tmp_path):
    Store(tmp_path).close()
    procs = [_spawn(tmp_path, 150, tag) for tag in ("a", "b")]
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    contents = _check_consistent(tmp_path)
    for tag in ("a", "b"):
        mine = [c for c in contents if c.startswith(f"{tag}-")]
        assert mine == [f"{tag}-{i}" for i in range(1, 151)]  # all there, in order


def test_sigkill_mid_write_loses_at_most_the_write_in_flight(tmp_path):
    rng = random.Random(7)
    written_before = 0
    for round_no in range(6):
        proc = _spawn(tmp_path, 0, f"r{round_no}")
        time.sleep(rng.uniform(0.05, 0.3))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        contents = _check_consistent(tmp_path)
        mine = [c for c in contents if c.startswith(f"r{round_no}-")]
        # Every committed write of this round is there, numbered without a gap.
        assert mine == [f"r{round_no}-{i}" for i in range(1, len(mine) + 1)]
        assert len(contents) > written_before
        written_before = len(contents)


# -- batches: many writes, few commits ---------------------------------------------------------


def test_a_batch_keeps_its_writes_and_undoes_a_failed_one_alone(tmp_path, clock):
    store = Store(tmp_path, clock)
    with store.batch():
        store.sessions.create("agent:main:a")
        with pytest.raises(StoreError, match="already exists"):
            with store.write() as conn:
                conn.execute("UPDATE sessions SET label = 'half-written' WHERE key = 'agent:main:a'")
                store.sessions.create("agent:main:a")
        store.sessions.create("agent:main:b")
    assert store.sessions.get("agent:main:a") is not None and store.sessions.get("agent:main:b") is not None
    assert store.sessions.get("agent:main:a").entry.get("label") is None  # the failed write left nothing
    assert Store(tmp_path, clock).sessions.get("agent:main:b") is not None  # committed for everyone


def test_a_batch_commits_at_checkpoints_so_other_connections_see_its_progress(tmp_path, clock):
    store = Store(tmp_path, clock)
    other = Store(tmp_path, clock)
    with store.batch(seconds=0.0) as checkpoint:
        store.sessions.create("agent:main:a")
        assert other.sessions.get("agent:main:a") is None  # not committed yet
        checkpoint()
        assert other.sessions.get("agent:main:a") is not None
        store.sessions.create("agent:main:b")
    assert other.sessions.get("agent:main:b") is not None


def test_a_batch_that_raises_loses_only_what_was_not_committed(tmp_path, clock):
    store = Store(tmp_path, clock)
    with pytest.raises(RuntimeError):
        with store.batch(seconds=0.0) as checkpoint:
            store.sessions.create("agent:main:a")
            checkpoint()
            store.sessions.create("agent:main:b")
            raise RuntimeError("stopped")
    assert store.sessions.get("agent:main:a") is not None
    assert store.sessions.get("agent:main:b") is None
    store.sessions.create("agent:main:c")  # the store is usable afterwards


def test_a_batch_takes_the_write_lock_only_once_it_writes(tmp_path, clock):
    store = Store(tmp_path, clock)
    rival = sqlite3.connect(tmp_path / "sessions.sqlite3", timeout=0.05, isolation_level=None)
    with store.batch() as checkpoint:
        assert store.sessions.get("agent:main:a") is None  # reads take no lock
        rival.execute("BEGIN IMMEDIATE")
        rival.execute("COMMIT")
        store.sessions.create("agent:main:a")
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            rival.execute("BEGIN IMMEDIATE")  # held until the batch commits
        checkpoint()
    rival.execute("BEGIN IMMEDIATE")
    rival.execute("COMMIT")
    rival.close()


def test_batches_do_not_nest(tmp_path, clock):
    store = Store(tmp_path, clock)
    with store.batch():
        with pytest.raises(StoreError, match="already open"):
            with store.batch():
                pass
