"""The state directory is its owner's alone (engine/store/disk/private_files.py): raw transcripts, secrets
included, are never readable by another local user. Everything created is 0700 (directories) or
0600 (files) whatever the umask lets through; a state directory from before is tightened when it
is opened, and the command line says so once, on stderr.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessions_tui.backend.local.backend import open_local
from sessions_tui.engine.store.disk.mirror_files import MirrorWriter
from sessions_tui.engine.store.schema import DB_NAME
from sessions_tui.engine.store.store import Store

FAST = "{ models: { demo: { latencyMs: 0, chunkMs: 0 } } }"


def cli(*args: str, state: Path) -> subprocess.CompletedProcess[str]:
    """A command in a fresh process whose umask lets group and others read (the usual 022)."""
    env = {k: v for k, v in os.environ.items() if k not in ("SESSIONS_TUI_HOME", "SESSIONS_TUI_CONFIG")}
    argv = [sys.executable, "-m", "sessions_tui", "--state", str(state), *args]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, umask=0o022)


def modes(top: Path) -> dict[str, int]:
    """Every directory and file under `top` (itself included) → its permission bits."""
    out = {".": stat.S_IMODE(os.lstat(top).st_mode)}
    for path in top.rglob("*"):
        out[str(path.relative_to(top))] = stat.S_IMODE(os.lstat(path).st_mode)
    return out


def assert_private(top: Path) -> dict[str, int]:
    found = modes(top)
    for name, mode in found.items():
        want = 0o700 if (top / name).is_dir() else 0o600
        assert mode == want, f"{name}: {oct(mode)}, not {oct(want)}"
    return found


@pytest.fixture
def loose_umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_every_file_of_a_fresh_state_directory_is_the_owners_after_a_send(tmp_path):
    fresh = tmp_path / "fresh" / "state"  # its parent is created too
    sent = cli("--demo", "send", "main", "hello there", state=fresh)
    assert sent.returncode == 0, sent.stderr
    found = assert_private(tmp_path / "fresh")
    assert {"state", f"state/{DB_NAME}", "state/config.json5"} <= found.keys()  # the demo's config too
    assert any(name.endswith(".jsonl") for name in found)  # the transcript mirrors and their directories


def test_the_databases_wal_and_shm_are_the_owners_while_it_is_open(tmp_path, clock, loose_umask):
    store = Store(tmp_path / "state", clock)
    try:
        store.sessions.create("agent:main:main", {})
        store.transcripts.append("agent:main:main", {"role": "user", "content": "a secret"})
        db = tmp_path / "state" / DB_NAME
        for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, path
        assert_private(tmp_path / "state")
    finally:
        store.close()


def test_an_imports_mirrors_written_by_its_child_process_are_the_owners(tmp_path, clock, loose_umask, monkeypatch):
    monkeypatch.setattr(MirrorWriter, "spawn_after", 2)
    store = Store(tmp_path / "state", clock)
    with store.batch(seconds=0):
        for n in range(6):
            line = {"type": "message", "id": f"{n:08x}", "message": {"role": "user", "content": "x"}}
            store.imports.import_session(
                f"agent:a{n % 3}:s{n}",
                {"updatedAt": n},
                session_id=f"00000000-0000-4000-8000-{n:012d}",
                lines=[line],
                raw=[json.dumps(line)],
                source=f"src#{n}",
                source_lines=2,
            )
    store.close()
    found = assert_private(tmp_path / "state")
    assert sum(name.endswith(".jsonl") for name in found) == 6


def loosen(state: Path) -> None:
    """What a state directory from before looked like: 0755 directories, a 0644 database."""
    for path in [state, *state.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)


def test_an_open_store_from_before_is_tightened_and_said_once(tmp_path):
    state = tmp_path / "state"
    (tmp_path / "state").mkdir()
    (state / "config.json5").write_text(FAST)
    assert cli("demo", state=state).returncode == 0
    loosen(state)
    assert stat.S_IMODE(os.stat(state / DB_NAME).st_mode) == 0o644

    first = cli("tool", "sessions_list", state=state)
    assert first.returncode == 0, first.stderr
    lines = first.stderr.splitlines()
    assert len(lines) == 1, first.stderr
    assert lines[0].startswith(f"warning: {state}: the state directory was readable by other users (the directory, ")
    assert DB_NAME in lines[0] and "now its owner's only (directories 700, files 600)" in lines[0]
    assert_private(state)

    again = cli("tool", "sessions_list", state=state)
    assert again.returncode == 0 and again.stderr == ""


def test_the_dashboard_is_told_too(tmp_path):
    """The notice is one of the backend's opening warnings, which the dashboard shows as a toast."""
    state = tmp_path / "state"
    Store(state).close()
    loosen(state)
    backend = open_local(state, state / "config.json5")
    try:
        assert [w for w in backend.config_warnings if "readable by other users" in w] == [
            f"{state}: the state directory was readable by other users (the directory, {DB_NAME}); "
            "now its owner's only (directories 700, files 600)"
        ]
    finally:
        backend.close()
    backend = open_local(state, state / "config.json5")
    try:
        assert backend.config_warnings == []
    finally:
        backend.close()


def test_a_link_in_the_state_directory_is_not_followed_to_tighten_its_target(tmp_path):
    state = tmp_path / "state"
    Store(state).close()
    elsewhere = tmp_path / "shared.txt"
    elsewhere.write_text("not sessions-tui's")
    os.chmod(elsewhere, 0o644)
    (state / "link").symlink_to(elsewhere)
    Store(state).close()
    assert stat.S_IMODE(os.stat(elsewhere).st_mode) == 0o644


def test_tightening_gives_each_entry_its_kinds_mode_whatever_it_had(tmp_path):
    """A directory that had lost its owner's x (0644) becomes 0700, not 0600; an executable file 0600."""
    state = tmp_path / "state"
    (tmp_path / "state").mkdir()
    (state / "config.json5").write_text(FAST)
    assert cli("demo", state=state).returncode == 0
    sessions = next((state / "agents").glob("*/sessions"))
    mirror = next(sessions.glob("*.jsonl"))
    os.chmod(mirror, 0o755)
    os.chmod(sessions, 0o640)
    os.chmod(sessions.parent, 0o604)
    os.chmod(state / "agents", 0o644)
    os.chmod(state, 0o755)

    Store(state).close()

    found = assert_private(state)
    assert found["agents"] == 0o700 and found[str(sessions.relative_to(state))] == 0o700
    assert found[str(mirror.relative_to(state))] == 0o600


def test_a_state_directory_named_by_a_link_is_tightened_where_it_leads_and_said_once(tmp_path):
    """The directory the user named is theirs, link or not: the one it leads to is made 0700."""
    target = tmp_path / "target"
    Store(target).close()
    os.chmod(target, 0o755)  # its files are 0600: only the directory is open
    link = tmp_path / "link"
    link.symlink_to(target)

    first = cli("tool", "sessions_list", state=link)
    assert first.returncode == 0, first.stderr
    assert first.stderr == (
        f"warning: {link} (a link to {os.path.realpath(target)}): the state directory was readable by other users "
        "(the directory); now its owner's only (directories 700, files 600)\n"
    )
    assert_private(target)
    assert os.path.islink(link)  # the link itself is left as it is

    again = cli("tool", "sessions_list", state=link)
    assert again.returncode == 0 and again.stderr == ""


def test_demo_on_a_state_directory_from_before_says_it_was_tightened(tmp_path):
    """`demo` opens the store twice (again under the config it may write): the first opening's
    tightening is said all the same."""
    state = tmp_path / "state"
    state.mkdir()
    os.chmod(state, 0o755)
    (state / "config.json5").write_text(FAST)
    os.chmod(state / "config.json5", 0o644)

    proc = cli("demo", state=state)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == (
        f"warning: {state}: the state directory was readable by other users (the directory, config.json5); "
        "now its owner's only (directories 700, files 600)\n"
    )
    assert_private(state)


def test_an_agents_directory_that_is_a_link_is_not_followed_to_tighten_what_it_leads_to(tmp_path):
    state = tmp_path / "state"
    Store(state).close()
    elsewhere = tmp_path / "shared"
    (elsewhere / "main" / "sessions").mkdir(parents=True)
    for directory in (elsewhere, elsewhere / "main", elsewhere / "main" / "sessions"):
        os.chmod(directory, 0o755)
    (state / "agents").symlink_to(elsewhere)
    os.chmod(state, 0o755)
    Store(state).close()
    assert stat.S_IMODE(os.stat(state).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(elsewhere / "main").st_mode) == 0o755
    assert stat.S_IMODE(os.stat(elsewhere / "main" / "sessions").st_mode) == 0o755
