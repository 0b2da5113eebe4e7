"""A damaged state database (store/disk/integrity.py): nothing is written to it. Every command that
writes refuses it with one line naming the file and what to do (exit 2), leaving it byte for byte
as it was; the reading commands show what can still be read, under one warning line.

The damage is real: a few pages of a real store overwritten (those of the search indexes, which
listing, history and export never read, so only a check finds it).
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from cli_support import FAST, cli, digest, one_error_line
from damage_support import overwrite, pages_of
from openclaw_fake import FIXTURE
from sessions_tui.cli.commands.search import BEHIND_ON_DAMAGED
from sessions_tui.engine.store.connection import StoreDamaged
from sessions_tui.engine.store.disk import integrity
from sessions_tui.engine.store.schema import DB_NAME
from sessions_tui.engine.store.store import Store


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    state = tmp_path_factory.mktemp("healthy")
    (state / "config.json5").write_text(FAST)
    assert cli("demo", state=state).returncode == 0
    return state


def damaged_copy(healthy: Path, state: Path, prefixes: tuple[str, ...]) -> Path:
    """A copy of the demo's state directory at `state` with the pages of the tables and indexes
    named by `prefixes` overwritten."""
    shutil.copytree(healthy, state)
    db = state / DB_NAME
    pages = pages_of(db, prefixes)
    assert len(pages) >= 4
    overwrite(db, pages)
    return state


@pytest.fixture
def damaged(healthy: Path, tmp_path: Path) -> Path:
    """A copy of the demo's state directory with the pages of its search indexes overwritten."""
    return damaged_copy(healthy, tmp_path / "state", ("transcript_text", "sessions_search"))


WRITING = {
    "send": ["send", "main", "hello"],
    "tool sessions_send": ["tool", "sessions_send", '{"sessionKey": "main", "message": "hi", "timeoutSeconds": 0}'],
    "tool sessions_spawn": ["tool", "sessions_spawn", '{"task": "look"}'],
    "import-openclaw": ["import-openclaw", str(FIXTURE / "legacy-state")],
    "demo": ["demo"],
    "serve": ["serve", "--port", "0"],
    "the dashboard": [],
}


@pytest.mark.parametrize("command", list(WRITING))
def test_a_command_that_writes_refuses_a_damaged_store_and_leaves_it_as_it_was(damaged, command):
    db = damaged / DB_NAME
    before = digest(db)
    proc = cli(*WRITING[command], state=damaged, terminal=command == "the dashboard")
    assert proc.returncode == 2, proc.stderr
    line = one_error_line(proc.stderr)
    assert line.startswith(f"{db}: the state database is damaged (")
    assert "restore it from a backup, or recover what it holds" in line and f"sqlite3 {db} .recover" in line
    assert line.endswith("; nothing was written")
    assert digest(db) == before
    assert not Path(f"{db}-wal").exists() or Path(f"{db}-wal").stat().st_size == 0


READING = {
    "tool sessions_list": ["tool", "sessions_list"],
    "tool sessions_history": ["tool", "sessions_history", '{"sessionKey": "main"}'],
    "export": ["export", "main"],
    "sends": ["sends"],
}


@pytest.mark.parametrize("command", list(READING))
def test_a_command_that_reads_shows_what_it_can_under_one_warning(damaged, command):
    db = damaged / DB_NAME
    before = digest(db)
    proc = cli(*READING[command], state=damaged)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"warning: {db}: the state database is damaged (")
    assert proc.stderr.endswith("; showing what can still be read\n")
    assert digest(db) == before


def test_a_big_store_is_not_checked_whole_but_damage_met_is_kept_for_every_later_process(damaged, monkeypatch, clock):
    """Past WHOLE_CHECK_BYTES only SQLite meeting the damage finds it; from then on no process writes."""
    monkeypatch.setattr(integrity, "WHOLE_CHECK_BYTES", 0)
    db = damaged / DB_NAME
    before = digest(db)
    store = Store(damaged, clock)
    try:
        assert store.damage is None  # too big to check whole at every start
        with pytest.raises(sqlite3.DatabaseError, match="malformed"), store.read() as conn:
            conn.execute("SELECT count(*) FROM transcript_text").fetchall()
        assert store.damage is not None
        with pytest.raises(StoreDamaged, match="nothing was written"), store.write():
            pass
    finally:
        store.close()
    later = Store(damaged, clock)
    try:
        assert later.damage is not None
        with pytest.raises(StoreDamaged):
            later.sessions.create("agent:main:new", {})
    finally:
        later.close()
    assert digest(db) == before
    # a send from the command line, as big a store: refused at once
    proc = cli("send", "main", "hello", state=damaged)
    assert proc.returncode == 2 and one_error_line(proc.stderr).endswith("; nothing was written")
    assert digest(db) == before


def test_a_write_that_meets_damage_is_undone_and_refused(healthy, tmp_path, monkeypatch, clock):
    monkeypatch.setattr(integrity, "WHOLE_CHECK_BYTES", 0)
    state = tmp_path / "state"
    shutil.copytree(healthy, state)
    db = state / DB_NAME
    overwrite(db, pages_of(db, ("transcript",)))
    before = digest(db)
    store = Store(state, clock)
    try:
        with pytest.raises(StoreDamaged, match="nothing was written"):
            store.transcripts.append("agent:main:main", {"role": "user", "content": "hello"})
        assert store.damage is not None
    finally:
        store.close()
    assert digest(db) == before


def test_a_store_put_in_place_of_a_damaged_one_is_checked_and_used(damaged, healthy, clock):
    db = damaged / DB_NAME
    assert cli("send", "main", "hello", state=damaged).returncode == 2
    assert Path(f"{db}{integrity.MARKER_SUFFIX}").exists()
    restored = damaged / "restored.sqlite3"
    shutil.copyfile(healthy / DB_NAME, restored)
    restored.replace(db)
    store = Store(damaged, clock)
    try:
        assert store.damage is None
        assert not Path(f"{db}{integrity.MARKER_SUFFIX}").exists()
    finally:
        store.close()


def test_a_store_whose_first_page_is_overwritten_is_refused_naming_what_to_do(damaged):
    db = damaged / DB_NAME
    overwrite(db, [1])
    before = digest(db)
    proc = cli("send", "main", "hello", state=damaged)
    assert proc.returncode == 2
    line = one_error_line(proc.stderr)
    assert line.startswith(f"{db}: the state database is damaged (") and ".recover" in line
    assert digest(db) == before


# -- search: a read, which answers from what the index holds -------------------------------------

WARNING_END = "; showing what can still be read\n"
BEHIND = f"({BEHIND_ON_DAMAGED})"


@pytest.fixture
def damaged_behind(healthy: Path, tmp_path: Path) -> Path:
    """A damaged copy whose transcript index is behind (built with other redaction rules than its
    config's, so a search on a healthy store would index first), the damage where search does not
    read (the dashboard's session-filter index)."""
    state = damaged_copy(healthy, tmp_path / "state", ("sessions_search",))
    (state / "config.json5").write_text(FAST.replace("} } }", '} }, logging: { redactPatterns: ["zq-other"] } }'))
    return state


def test_search_on_a_damaged_store_with_its_index_behind_answers_from_what_the_index_holds(damaged_behind):
    db = damaged_behind / DB_NAME
    before = digest(db)
    proc = cli("search", "deploy", state=damaged_behind)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("\n") == 1 and "indexing" not in proc.stderr  # the warning only: no catch-up
    assert proc.stderr.startswith(f"warning: {db}: the state database is damaged (")
    assert proc.stderr.endswith(WARNING_END)
    assert "The deploy finished" in proc.stdout
    assert proc.stdout.rstrip("\n").endswith(BEHIND)
    as_json = cli("search", "--json", "deploy", state=damaged_behind)
    assert as_json.returncode == 0 and '"indexing": true' in as_json.stdout and "The deploy finished" in as_json.stdout
    tool = cli("tool", "sessions_search", '{"query": "deploy"}', state=damaged_behind)
    assert tool.returncode == 0, tool.stderr
    assert '"indexing": true' in tool.stdout and "The deploy finished" in tool.stdout
    assert digest(db) == before


SEARCHING = {"search": ["search", "deploy"], "tool sessions_search": ["tool", "sessions_search", '{"query": "deploy"}']}


@pytest.mark.parametrize("command", list(SEARCHING))
def test_search_on_a_store_whose_index_is_damaged_says_in_one_line_it_cannot_read_it(healthy, tmp_path, command):
    state = damaged_copy(healthy, tmp_path / "state", ("transcript_text",))
    db = state / DB_NAME
    before = digest(db)
    proc = cli(*SEARCHING[command], state=state)
    assert proc.returncode == 2
    warning, line = proc.stderr.splitlines()
    assert warning.startswith(f"warning: {db}: the state database is damaged (") and "Traceback" not in proc.stderr
    assert line.startswith(f"sessions-tui: {db}: search cannot read the state database: it is damaged where search")
    assert not proc.stdout
    assert digest(db) == before
