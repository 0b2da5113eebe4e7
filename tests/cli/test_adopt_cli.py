"""`sessions-tui import-openclaw DIR --adopt`: `adopted N sessions (M lines) from DIR` (or `--json`), then
`send` and `session rename` work in the adopted sessions; a followed store refused (exit 1), `--adopt`
with `--follow` or under `--openclaw` bad input (exit 2); adopting again names what it kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import cli, one_error_line
from conftest import FAST_DEMO
from openclaw_fake import FakeGateway, copy_fixture
from server_support import local_backend
from sessions_tui.cli.errors import redacted_line
from sessions_tui.engine.openclaw.follow import Follower
from sessions_tui.engine.openclaw.importer import import_openclaw

GROUP = "agent:main:discord:group:123"


def _root(tmp_path: Path, layout: str) -> Path:
    if layout == "legacy-state":
        return copy_fixture(tmp_path / "openclaw", layout)
    FakeGateway(tmp_path / "openclaw").close()  # the recorded rows, in a store this SQLite writes
    return tmp_path / "openclaw"


def _state(tmp_path: Path) -> Path:
    state = tmp_path / "s"
    local_backend(state, FAST_DEMO).close()  # its config.json5: the zero-latency demo model
    return state


@pytest.mark.parametrize("layout", ["sqlite-state", "legacy-state"])
def test_adopt_says_what_it_took_then_the_sessions_run_here(tmp_path, layout):
    root, state = _root(tmp_path, layout), _state(tmp_path)
    done = cli("import-openclaw", str(root), "--adopt", state=state)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    out = done.stdout.splitlines()
    assert out[-2].startswith("imported 10 sessions, updated 0, unchanged 0; ")
    lines = int(out[-2].split("; ")[1].split()[0])
    assert out[-1] == f"adopted 10 sessions ({lines} lines) from {redacted_line(str(root))}"
    sent = cli("send", GROUP, "hello", state=state)
    assert sent.returncode == 0 and sent.stdout.splitlines()[1].startswith("ok · replied"), sent
    renamed = cli("session", "rename", GROUP, "ops", state=state)
    assert renamed.returncode == 0, renamed.stderr
    again = cli("import-openclaw", str(root), "--adopt", "--json", state=state)
    assert again.returncode == 0 and again.stderr == ""
    report = json.loads(again.stdout)
    assert set(report) == {"sources", "problems", "summary", "adopted"}
    assert report["adopted"] == {"sessions": 0, "lines": 0, "kept": []}


def test_json_gives_the_import_shape_plus_the_adopted_counts(tmp_path):
    root, state = _root(tmp_path, "legacy-state"), _state(tmp_path)
    done = cli("import-openclaw", str(root), "--adopt", "--json", state=state)
    assert done.returncode == 0
    report = json.loads(done.stdout)
    assert report["problems"] == [] and len(report["sources"]) == 1
    assert report["summary"].startswith("imported 10 sessions")
    assert report["adopted"]["sessions"] == 10 and report["adopted"]["lines"] > 0
    plain = cli("import-openclaw", str(root), "--json", state=tmp_path / "plain")
    assert set(json.loads(plain.stdout)) == {"sources", "problems", "summary"}  # no adoption: no counts


def test_adopting_again_names_a_session_changed_here_and_in_openclaw(tmp_path):
    root, state = _root(tmp_path, "legacy-state"), _state(tmp_path)
    backend = local_backend(state, FAST_DEMO)
    engine = backend.engine
    import_openclaw(engine.store, engine.canonical, root, adopt=True)
    engine.store.transcripts.append(GROUP, {"role": "user", "content": "written here"})
    sid = engine.store.sessions.get(GROUP).session_id
    backend.close()
    with (root / "agents/main/sessions" / f"{sid}.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps({"type": "message", "id": "x1", "message": {"role": "user", "content": "there"}}) + "\n")
    done = cli("import-openclaw", str(root), "--adopt", state=state)
    assert done.returncode == 0
    assert done.stdout.splitlines()[-2:] == [
        f"adopted 0 sessions (0 lines) from {redacted_line(str(root))}",
        f"{GROUP}: changed here and in OpenClaw since it was adopted; kept as it is here "
        "(1 line from OpenClaw not taken)",
    ]


def test_a_store_this_state_directory_follows_is_refused_exit_1(tmp_path):
    root, state = _root(tmp_path, "sqlite-state"), _state(tmp_path)
    backend = local_backend(state, FAST_DEMO)
    follower = Follower(backend.engine.store, backend.engine.canonical, root)
    follower.tick()
    follower.close()
    backend.close()
    done = cli("import-openclaw", str(root), "--adopt", state=state)
    assert done.returncode == 1 and done.stdout == ""
    assert "is followed by this state directory" in one_error_line(done.stderr)
    sent = cli("send", GROUP, "hello", state=state)  # still OpenClaw's
    assert sent.returncode == 1 and "lives in OpenClaw" in sent.stdout + sent.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--adopt", "--follow"], "--follow and --adopt do not go together"),
        (["--json", "--follow"], "--follow and --json do not go together"),
    ],
)
def test_adopt_or_json_with_follow_is_bad_input(tmp_path, args, said):
    root = _root(tmp_path, "legacy-state")
    done = cli("import-openclaw", str(root), *args, state=tmp_path / "s")
    assert done.returncode == 2 and one_error_line(done.stderr) == said


def test_adopt_under_openclaw_is_bad_input(tmp_path):
    root = _root(tmp_path, "legacy-state")
    done = cli(
        "--openclaw",
        str(root),
        "import-openclaw",
        str(root),
        "--adopt",
        env_extra={"SESSIONS_TUI_HOME": str(tmp_path / "h")},
    )
    assert done.returncode == 2 and one_error_line(done.stderr).startswith("--adopt: the state directory of --openclaw")
