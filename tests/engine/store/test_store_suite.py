"""The store's contract, on both stores (`store`: SQLite and PostgreSQL): the session index (create, get,
patch, list) and the transcripts (append, lines, history windows), and their transactions."""

import json
import threading

import pytest

from sessions_tui.engine.store.connection import StoreError
from sessions_tui.engine.store.store import Store

KEY = "agent:main:main"


def mirror_lines(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def reopen(store: Store, state_dir, clock) -> Store:
    """A second store on the same database (another process's, another host's)."""
    from sessions_tui.engine.store.postgres.store import PostgresStore

    if isinstance(store, PostgresStore):
        return PostgresStore(store.url, state_dir, clock)
    return Store(state_dir, clock)


def say(store: Store, key: str, text: str, role: str = "user") -> None:
    store.transcripts.append(key, {"role": role, "content": [{"type": "text", "text": text}]})


def test_create_then_read_back_by_key_and_by_session_id(store):
    made = store.sessions.create(KEY, {"lastChannel": "webchat", "label": "daily"})
    got = store.sessions.get(KEY)
    assert got == made
    assert got.entry == {
        "lastChannel": "webchat",
        "label": "daily",
        "sessionId": made.session_id,
        "updatedAt": made.created_at,
    }
    assert store.sessions.get_by_session_id(made.session_id) == made
    assert store.sessions.session_id_of(KEY) == made.session_id
    assert store.sessions.get("agent:main:other") is None
    assert store.sessions.count() == 1
    assert store.sessions.agent_ids() == ["main"]
    assert store.sessions.keys_with_label("daily") == [KEY]


def test_a_key_or_session_id_taken_is_refused_and_nothing_written(store):
    made = store.sessions.create(KEY)
    with pytest.raises(StoreError, match="Session already exists"):
        store.sessions.create(KEY)
    with pytest.raises(StoreError, match="Session ID already in use"):
        store.sessions.create("agent:main:second", session_id=made.session_id)
    with pytest.raises(StoreError, match="Invalid session ID"):
        store.sessions.create("agent:main:third", session_id="../x")
    assert store.sessions.count() == 1


def test_patch_merges_and_removes_fields_and_keeps_the_columns_in_step(store):
    store.sessions.create(KEY, {"label": "a", "model": "m1"})
    patched = store.sessions.patch(KEY, {"label": "b", "model": None, "updatedAt": 5})
    assert patched.entry["label"] == "b" and "model" not in patched.entry
    assert patched.updated_at == 5
    assert store.sessions.keys_with_label("b") == [KEY] and store.sessions.keys_with_label("a") == []
    with pytest.raises(StoreError, match="No session found"):
        store.sessions.patch("agent:main:nope", {"label": "x"})


def test_spawned_children_and_keys_like(store):
    store.sessions.create(KEY)
    store.sessions.create("agent:main:subagent:1", {"spawnedBy": KEY})
    store.sessions.create("agent:main:subagent:2", {"parentSessionKey": KEY})
    store.sessions.create("agent:main:a_b%c")
    store.sessions.create("agent:main:aXbYc")
    assert store.sessions.spawned_keys(KEY) == {"agent:main:subagent:1", "agent:main:subagent:2"}
    assert store.sessions.children_of([KEY]) == [("agent:main:subagent:1", KEY), ("agent:main:subagent:2", KEY)]
    assert sorted(store.sessions.keys_like(["agent:main:", ":1"])) == ["agent:main:subagent:1"]
    assert store.sessions.keys_like(["agent:main:a_b%c"]) == ["agent:main:a_b%c"]  # `_` and `%` match only themselves


def test_list_sessions_newest_first_with_a_limit_and_an_offset(store, clock):
    for i in range(5):
        store.sessions.create(f"agent:main:s{i}", {"updatedAt": 1000 + i})
    rows, more = store.browse.list_sessions(limit=2)
    assert [r.key for r in rows] == ["agent:main:s4", "agent:main:s3"] and more
    rows, more = store.browse.list_sessions(limit=2, offset=4)
    assert [r.key for r in rows] == ["agent:main:s0"] and not more
    rows, more = store.browse.list_sessions(offset=3)
    assert [r.key for r in rows] == ["agent:main:s1", "agent:main:s0"] and not more


def test_appends_chain_their_lines_keep_them_verbatim_and_write_the_mirror(store, tmp_path):
    session = store.sessions.create(KEY)
    say(store, KEY, "hi")
    say(store, KEY, "hello", role="assistant")
    store.transcripts.append_lines(KEY, [{"type": "custom", "customType": "note", "data": {"x": "50%?"}}])
    lines = store.transcripts.transcript_lines(KEY)
    parsed = [json.loads(line) for line in lines]
    assert [p["type"] for p in parsed] == ["message", "message", "custom"]
    assert parsed[0]["parentId"] is None and parsed[1]["parentId"] == parsed[0]["id"]
    assert parsed[2]["data"] == {"x": "50%?"}
    assert mirror_lines(session.mirror_path)[1:] == parsed
    assert mirror_lines(session.mirror_path)[0]["cwd"] == str(tmp_path)
    assert store.transcripts.transcript_tail(KEY) == (3, parsed[2]["id"])
    assert store.sessions.lines_of(session.session_id) == lines
    assert store.sessions.get(KEY).msg_count == 2


def test_an_append_moves_updated_at_and_keeps_the_entry_s_fields_in_order(store, clock):
    store.sessions.create(KEY, {"zeta": 1, "alpha": {"b": 2, "a": 1}, "updatedAt": 10})
    clock.advance(5_000)
    say(store, KEY, "hi")
    got = store.sessions.get(KEY)
    assert got.updated_at == clock.now_ms()
    assert list(got.entry) == ["zeta", "alpha", "updatedAt", "sessionId"]
    assert got.entry["alpha"] == {"b": 2, "a": 1} and got.entry["updatedAt"] == clock.now_ms()


def test_history_windows_count_messages_only(store):
    store.sessions.create(KEY)
    for i in range(1, 8):
        say(store, KEY, f"m{i}")
        if i == 3:
            store.transcripts.append_lines(KEY, [{"type": "custom", "customType": "note"}])

    def texts(page):
        return [m["content"][0]["text"] for m in page.messages]

    whole = store.transcripts.history(KEY)
    assert texts(whole) == [f"m{i}" for i in range(1, 8)] and whole.total == 7 and whole.start == 0
    newest = store.transcripts.history(KEY, limit=3)
    assert texts(newest) == ["m5", "m6", "m7"] and newest.start == 4
    before = store.transcripts.history(KEY, limit=3, offset=3)
    assert texts(before) == ["m2", "m3", "m4"] and before.start == 1
    assert texts(store.transcripts.history(KEY, limit=3, offset=6)) == ["m1"]
    assert store.transcripts.history(KEY, limit=3, offset=9).messages == []
    assert store.transcripts.history("agent:main:nope").total == 0
    assert [m["__openclaw"]["seq"] for m in newest.messages] == [5, 6, 7]


def test_appending_to_no_session_is_refused(store):
    with pytest.raises(StoreError, match="No session found"):
        say(store, KEY, "hi")


def test_a_reset_keeps_the_old_lines_under_their_session_id_and_a_delete_removes_all(store):
    first = store.sessions.create(KEY)
    say(store, KEY, "before")
    old = store.sessions.renew_session_id(KEY, "11111111-1111-4111-8111-111111111111", {"label": "new"})
    assert old == first.session_id
    assert [g.session_id for g in store.sessions.generations_of(KEY)] == [first.session_id]
    assert len(store.sessions.lines_of(first.session_id)) == 1
    say(store, KEY, "after")
    assert store.transcripts.history(KEY).total == 1
    assert store.sessions.delete(KEY, store.text_index.unindex_session) is not None
    assert store.sessions.get(KEY) is None and store.sessions.lines_of(first.session_id) == []


def test_a_failed_write_in_a_batch_is_undone_alone(store):
    with store.batch() as checkpoint:
        store.sessions.create("agent:main:a")
        with pytest.raises(StoreError):
            store.sessions.create("agent:main:a")
        store.sessions.create("agent:main:b")
        say(store, "agent:main:b", "in the batch")
        checkpoint()
    assert store.sessions.count() == 2
    assert store.transcripts.history("agent:main:b").total == 1


def test_a_batch_that_fails_leaves_nothing(store):
    with pytest.raises(RuntimeError), store.batch():
        store.sessions.create("agent:main:a")
        raise RuntimeError("boom")
    assert store.sessions.count() == 0


def test_archive_if_live_archives_once(store):
    store.sessions.create(KEY)
    assert store.sessions.archive_if_live(KEY, 5)
    assert not store.sessions.archive_if_live(KEY, 6)
    assert store.sessions.get(KEY).archived_at == 5 and store.sessions.count() == 0


def test_two_stores_on_one_database_append_without_losing_a_line(store, tmp_path, clock):
    """Two processes (or hosts) on one store: every append lands, numbered once."""
    other = reopen(store, tmp_path, clock)
    store.sessions.create(KEY)
    start = threading.Barrier(2)

    def append_from(s: Store, name: str) -> None:
        start.wait()
        for i in range(20):
            say(s, KEY, f"{name}{i}")

    threads = [threading.Thread(target=append_from, args=(s, n)) for s, n in ((store, "a"), (other, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    other.close()
    page = store.transcripts.history(KEY)
    assert page.total == 40
    assert [m["__openclaw"]["seq"] for m in page.messages] == list(range(1, 41))
    assert len({m["content"][0]["text"] for m in page.messages}) == 40
