"""A batch's new mirror files, written by a child process once there are many (store/disk/mirror_files.py).

They are the same bytes and mode as the batch's own thread writes, all on disk before the batch
commits; a file the child cannot write fails the batch and stores nothing; the files of a child
that dies (or cannot start) are written by the batch's own thread.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from test_store import mirror_lines

from sessions_tui.engine.store.disk import mirror_files
from sessions_tui.engine.store.disk.mirror_files import MirrorWriter
from sessions_tui.engine.store.store import Store


def sid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def import_one(store: Store, n: int, agent: str = "main") -> None:
    lines = [
        {"type": "message", "id": f"{n:04x}{i:04x}", "message": {"role": "user", "content": f"m{n}.{i}"}}
        for i in range(3)
    ]
    store.imports.import_session(
        f"agent:{agent}:s{n}",
        {"updatedAt": n},
        session_id=sid(n),
        lines=lines,
        raw=[json.dumps(line) for line in lines],
        source=f"src#{n}",
        source_lines=4,
    )


def mirrors(state: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(path.relative_to(state)): (path.read_bytes(), os.stat(path).st_mode & 0o777)
        for path in sorted((state / "agents").rglob("*.jsonl"))
    }


@pytest.fixture
def child(monkeypatch):
    """A child process from the second new mirror of a batch on."""
    monkeypatch.setattr(MirrorWriter, "spawn_after", 2)


def import_batch(state: Path, clock, count: int) -> dict[str, tuple[bytes, int]]:
    store = Store(state, clock)
    with store.batch(seconds=0) as checkpoint:
        for n in range(1, count + 1):
            import_one(store, n, agent="main" if n % 3 else "ops")
            if n % 7 == 0:
                checkpoint()
    assert store.sessions.count() == count
    store.close()
    return mirrors(state)


def test_the_child_writes_the_same_files_as_the_batchs_own_thread(tmp_path, clock, monkeypatch):
    own = import_batch(tmp_path / "own", clock, 30)
    monkeypatch.setattr(MirrorWriter, "spawn_after", 2)
    by_child = import_batch(tmp_path / "child", clock, 30)
    assert len(own) == 30
    assert {k: (v[0].replace(b"/own", b"/x"), v[1]) for k, v in own.items()} == {
        k: (v[0].replace(b"/child", b"/x"), v[1]) for k, v in by_child.items()
    }
    assert {mode for _, mode in by_child.values()} == {0o600}


def test_every_mirror_is_on_disk_when_its_batch_commits(tmp_path, clock, child, monkeypatch):
    store = Store(tmp_path, clock)
    seen: list[int] = []
    commit = Store._commit_batch

    def check_then_commit(self: Store) -> None:
        commit(self)
        seen.append(len(mirrors(tmp_path)))

    monkeypatch.setattr(Store, "_commit_batch", check_then_commit)
    with store.batch(seconds=0) as checkpoint:
        for n in range(1, 11):
            import_one(store, n)
            if n % 5 == 0:
                checkpoint()
    assert seen == [5, 10]
    assert (
        store.transcripts._writer is not None and store.transcripts._writer._proc is None
    )  # the child ended with the batch
    store.close()


def test_a_session_appended_to_in_its_batch_gets_the_child_written_mirror_first(tmp_path, clock, child):
    store = Store(tmp_path, clock)
    with store.batch(seconds=60):
        for n in range(1, 5):
            import_one(store, n)
        store.transcripts.append_lines(
            "agent:main:s3", [{"type": "message", "id": "later", "message": {"role": "user"}}]
        )
    lines = mirror_lines(store.sessions.get("agent:main:s3").mirror_path)
    assert lines[0]["type"] == "session" and [line["id"] for line in lines[1:]] == [
        "00030000",
        "00030001",
        "00030002",
        "later",
    ]
    store.close()


def test_a_mirror_the_child_cannot_create_fails_the_batch_and_stores_nothing(tmp_path, clock, child):
    store = Store(tmp_path, clock)
    (tmp_path / "agents" / "ops").mkdir(parents=True)
    (tmp_path / "agents" / "ops" / "sessions").write_text("not a directory", encoding="utf-8")
    with pytest.raises(NotADirectoryError), store.batch(seconds=60) as checkpoint:
        for n in range(1, 8):
            import_one(store, n, agent="ops" if n == 4 else "main")
        checkpoint()
    assert store.sessions.count() == 0 and store.imports.imported_lines("src#1") is None
    # the next batch starts clean
    with store.batch() as checkpoint:
        for n in range(1, 4):
            import_one(store, n)
        checkpoint()
    assert store.sessions.count() == 3
    store.close()


@pytest.mark.parametrize("when", ["before-sync", "mid-batch"])
def test_the_files_of_a_child_that_died_are_written_by_the_batchs_own_thread(tmp_path, clock, child, when, monkeypatch):
    if when == "mid-batch":  # each file is sent at once: the dead child's pipe fails there, not at the sync
        monkeypatch.setattr(mirror_files, "_SEND_BYTES", 1)
    store = Store(tmp_path, clock)
    with store.batch(seconds=60) as checkpoint:
        for n in range(1, 4):
            import_one(store, n)
        proc = store.transcripts._writer._proc
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        for n in range(4, 7):
            import_one(store, n)
        checkpoint()
    assert store.sessions.count() == 6
    for n in range(1, 7):
        assert [line["id"] for line in mirror_lines(store.sessions.get(f"agent:main:s{n}").mirror_path)[1:]] == [
            f"{n:04x}{i:04x}" for i in range(3)
        ]
    store.close()


def test_a_child_that_cannot_start_leaves_the_files_to_the_batchs_own_thread(tmp_path, clock, child, monkeypatch):
    monkeypatch.setattr("sys.executable", "")
    assert import_batch(tmp_path, clock, 5).keys() == {f"agents/main/sessions/{sid(n)}.jsonl" for n in (1, 2, 4, 5)} | {
        f"agents/ops/sessions/{sid(3)}.jsonl"
    }


def test_a_failure_is_raised_by_every_sync_until_the_writer_is_closed(tmp_path):
    writer = MirrorWriter()
    (tmp_path / "file").write_text("", encoding="utf-8")
    writer.add(tmp_path / "file" / "a.jsonl", b"x\n")
    for _ in range(2):
        with pytest.raises(NotADirectoryError):
            writer.sync()
    writer.close()
    writer.add(tmp_path / "b.jsonl", b"y\n")
    writer.sync()
    assert (tmp_path / "b.jsonl").read_bytes() == b"y\n"
    writer.close()
