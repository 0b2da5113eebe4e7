"""A store batch writing in bulk: the search index is exact in every committed state, a session's
write without a savepoint is still all or nothing, and a schema 3 file's transcripts migrate."""

from __future__ import annotations

import json
import sqlite3

import pytest

from sessions_tui.engine.store.browse_schema import SEARCHED
from sessions_tui.engine.store.browsing.browse import SessionFilter
from sessions_tui.engine.store.connection import BatchAborted, StoreError
from sessions_tui.engine.store.schema import DB_NAME, SCHEMA_VERSION
from sessions_tui.engine.store.store import Store

COLUMNS = ", ".join(SEARCHED)


def sid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def line(n: int) -> dict:
    return {"type": "message", "id": f"{n:08x}", "message": {"role": "user", "content": f"hello {n}"}}


def import_one(store: Store, n: int, **entry: object) -> None:
    lines = [line(n * 10 + i) for i in range(3)]
    store.imports.import_session(
        f"agent:main:telegram:direct:{n}",
        {"updatedAt": 1_000 + n, **entry},
        session_id=sid(n),
        lines=lines,
        raw=[json.dumps(x) for x in lines],
        source=f"src#{n}",
        source_lines=len(lines) + 1,
    )


def assert_search_exact(store: Store) -> None:
    """The search index holds every session's searched fields, under its rowid, and nothing else;
    new sessions are indexed by the trigger."""
    with store.read() as conn:
        rows = sorted(tuple(r) for r in conn.execute(f"SELECT rowid, {COLUMNS} FROM sessions"))
        indexed = sorted(tuple(r) for r in conn.execute(f"SELECT rowid, {COLUMNS} FROM sessions_search"))
        triggers = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert indexed == rows
    assert {"sessions_search_insert", "sessions_search_update", "sessions_search_delete"} <= triggers


def test_a_batch_indexes_its_sessions_for_search_at_each_commit(tmp_path, clock):
    store = Store(tmp_path, clock)
    store.sessions.create("agent:main:discord:group:before", {"label": "Before"})
    with store.batch(seconds=0) as checkpoint:
        for n in range(5):
            import_one(store, n, label=f"Room {n}")
        store.sessions.patch("agent:main:telegram:direct:3", {"label": "Renamed"})  # an update of a row not indexed yet
        store.sessions.patch("agent:main:discord:group:before", {"label": "Before, renamed"})  # and of one indexed
        checkpoint()
        with store.read() as conn:  # committed: the insert trigger is back and nothing is left to index
            assert conn.execute("SELECT count(*) FROM sessions_search").fetchone()[0] == 6
        import_one(store, 5, label="Later")
    assert_search_exact(store)
    assert store.browse.count(SessionFilter(search="renamed")) == 2
    assert store.browse.count(SessionFilter(search="room 3")) == 0
    store.sessions.create("agent:main:discord:group:after", {"label": "After"})  # outside a batch: the trigger
    assert_search_exact(store)
    store.close()


def test_an_interrupted_batch_leaves_the_search_index_as_committed(tmp_path, clock):
    store = Store(tmp_path, clock)
    with pytest.raises(RuntimeError), store.batch(seconds=0) as checkpoint:
        for n in range(3):
            import_one(store, n)
            checkpoint()
        import_one(store, 3)
        store.sessions.patch("agent:main:telegram:direct:1", {"label": "lost"})
        raise RuntimeError("stopped")
    assert store.sessions.count() == 3
    assert_search_exact(store)
    assert store.browse.count(SessionFilter(search="lost")) == 0
    reopened = Store(tmp_path, clock)  # what another process sees
    assert_search_exact(reopened)
    reopened.close()
    store.close()


def test_a_session_already_there_fails_alone_and_the_batch_goes_on(tmp_path, clock):
    store = Store(tmp_path, clock)
    with store.batch() as checkpoint:
        import_one(store, 1)
        with pytest.raises(StoreError, match="already"):
            import_one(store, 1)
        import_one(store, 2)
        checkpoint()
    assert store.sessions.count() == 2 and len(store.transcripts.transcript_lines("agent:main:telegram:direct:2")) == 3
    assert store.imports.imported_lines("src#2") == 4
    assert_search_exact(store)
    store.close()


def test_a_session_write_failing_halfway_undoes_the_batchs_transaction(tmp_path, clock, monkeypatch):
    store = Store(tmp_path, clock)
    with store.batch(seconds=0) as checkpoint:
        import_one(store, 1)
        checkpoint()  # committed
    with pytest.raises(BatchAborted), store.batch(seconds=60) as checkpoint:
        import_one(store, 2)
        checkpoint()  # not yet committed

        def fail(*args: object, **kwargs: object) -> None:
            raise StoreError("no room for the cursor")

        monkeypatch.setattr(store.imports, "_record_import", fail)
        import_one(store, 3)  # its row and lines are written, then its cursor fails
    monkeypatch.undo()
    assert store.sessions.get("agent:main:telegram:direct:1") is not None
    assert (
        store.sessions.get("agent:main:telegram:direct:2") is None
        and store.sessions.get("agent:main:telegram:direct:3") is None
    )
    with store.read() as conn:
        assert conn.execute("SELECT count(*) FROM transcript").fetchone()[0] == 3
        assert conn.execute("SELECT count(*) FROM imports").fetchone()[0] == 1
    assert_search_exact(store)
    store.close()


SCHEMA_3_TRANSCRIPT = """
CREATE TABLE transcript (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    msg_seq INTEGER,
    entry_id TEXT,
    line TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE INDEX transcript_by_msg_seq ON transcript(session_id, msg_seq) WHERE msg_seq IS NOT NULL;
"""


def test_a_schema_3_file_gets_its_transcripts_in_a_rowid_table(tmp_path, clock):
    store = Store(tmp_path, clock)
    for n in range(3):
        import_one(store, n, label=f"Room {n}")
    store.transcripts.append("agent:main:telegram:direct:1", {"role": "assistant", "content": "more"})
    before = {n: store.transcripts.transcript_lines(f"agent:main:telegram:direct:{n}") for n in range(3)}
    store.close()
    conn = sqlite3.connect(tmp_path / DB_NAME)  # the file as schema 3 wrote it
    rows = conn.execute("SELECT session_id, seq, msg_seq, entry_id, line FROM transcript").fetchall()
    conn.execute("DROP TABLE transcript")
    conn.executescript(SCHEMA_3_TRANSCRIPT)
    conn.executemany("INSERT INTO transcript VALUES (?, ?, ?, ?, ?)", rows)
    conn.execute("PRAGMA user_version=3")
    conn.commit()
    conn.close()

    store = Store(tmp_path, clock)
    with store.read() as c:
        assert c.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        sql = c.execute("SELECT sql FROM sqlite_master WHERE name = 'transcript'").fetchone()[0]
        indexes = {r[1] for r in c.execute("PRAGMA index_list(transcript)")}
        assert not c.execute("SELECT count(*) FROM sqlite_master WHERE name = 'transcript_schema3'").fetchone()[0]
    assert "WITHOUT ROWID" not in sql.upper() and "transcript_by_msg_seq" in indexes
    assert {n: store.transcripts.transcript_lines(f"agent:main:telegram:direct:{n}") for n in range(3)} == before
    history = store.transcripts.history("agent:main:telegram:direct:1", limit=2)
    assert [m["content"] for m in history.messages] == ["hello 12", "more"] and history.total == 4
    store.transcripts.append("agent:main:telegram:direct:1", {"role": "user", "content": "after"})
    assert store.transcripts.history("agent:main:telegram:direct:1").total == 5
    with pytest.raises(sqlite3.IntegrityError), store.write() as c:  # (session, seq) is still a key
        c.execute("INSERT INTO transcript (session_id, seq, line) VALUES (?, 1, '{}')", (sid(1),))
    assert_search_exact(store)
    store.close()
    again = Store(tmp_path, clock)  # opening it again changes nothing
    assert again.transcripts.transcript_lines("agent:main:telegram:direct:0") == before[0]
    again.close()


def test_a_batch_that_adds_no_session_leaves_the_schema_alone(tmp_path, clock):
    store = Store(tmp_path, clock)
    import_one(store, 1)
    with store.read() as conn:
        before = conn.execute("PRAGMA schema_version").fetchone()[0]
    with store.batch(seconds=0) as checkpoint:
        store.transcripts.append_lines("agent:main:telegram:direct:1", [line(99)])
        checkpoint()
    with store.read() as conn:
        assert conn.execute("PRAGMA schema_version").fetchone()[0] == before  # readers keep their statements
    assert_search_exact(store)
    store.close()
