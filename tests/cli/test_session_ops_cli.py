"""`sessions-tui session new|reset|rename|model|archive|unarchive|delete` and `send main` on a fresh
state directory: one line each (or `--json`), exit 2 for bad input, 1 for a refusal."""

from __future__ import annotations

import json

from cli_support import cli, one_error_line
from conftest import FAST_DEMO
from server_support import local_backend

GROUP = "agent:main:discord:group:ops"


def _fresh(tmp_path):
    state = tmp_path / "s"
    local_backend(state, FAST_DEMO).close()  # its config.json5: the demo model without latency
    return state


def test_send_main_on_a_fresh_state_creates_it(tmp_path):
    state = _fresh(tmp_path)
    done = cli("send", "main", "hello", state=state)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("→ main") and "\nok · replied" in done.stdout
    listed = json.loads(cli("tool", "sessions_list", "{}", state=state).stdout)
    assert [s["key"] for s in listed["sessions"]] == ["main"]


def test_every_operation_from_a_fresh_state(tmp_path):
    state = _fresh(tmp_path)
    done = cli("session", "new", GROUP, "--label", "ops", "--message", "hi", state=state)
    assert done.returncode == 0 and done.stdout.startswith(f"created {GROUP} (sessionId "), done.stderr
    assert "label 'ops'); first message accepted" in done.stdout
    assert cli("send", "main", "hello", state=state).returncode == 0
    listed = json.loads(cli("tool", "sessions_list", "{}", state=state).stdout)
    assert sorted(s["key"] for s in listed["sessions"]) == [GROUP, "main"]
    done = cli("session", "rename", "discord:group:ops", "room", state=state)
    assert (done.returncode, done.stdout) == (0, f"renamed {GROUP}: label 'room'\n")
    done = cli("session", "model", GROUP, "openai/gpt-5", "--thinking", "low", state=state)
    assert (done.returncode, done.stdout) == (0, f"{GROUP}: model openai/gpt-5, thinking low\n")
    before = json.loads(cli("session", "reset", GROUP, "--json", state=state).stdout)
    assert before["op"] == "reset" and before["previous_session_id"] != before["session_id"]
    assert cli("session", "archive", GROUP, state=state).stdout == f"archived {GROUP}\n"
    listed = json.loads(cli("tool", "sessions_list", "{}", state=state).stdout)
    assert [s["key"] for s in listed["sessions"]] == ["main"]
    assert cli("session", "unarchive", GROUP, state=state).stdout == f"unarchived {GROUP}\n"
    done = cli("session", "delete", GROUP, "--yes", state=state)
    assert (done.returncode, done.stdout) == (0, f"deleted {GROUP}\n")


def test_refusals_exit_1_bad_input_exit_2(tmp_path):
    state = _fresh(tmp_path)
    assert cli("session", "new", GROUP, state=state).returncode == 0
    for args, code, line in [
        (("new", GROUP), 1, f"Session already exists: {GROUP}"),
        (("new", "global"), 1, "global is reserved: a session cannot be created under it"),
        (("new", "unknown"), 1, "unknown is reserved: a session cannot be created under it"),
        (("new", "a b"), 2, "not a session key: 'a b'"),
        (("new", "discord:group:x", "--thinking", "loud"), 2, 'Invalid thinking level "loud". Use one of: '),
        (("delete", "main", "--yes"), 2, "No session found: main"),
        (("delete", GROUP), 2, "delete: --yes is needed when stdin is not a terminal"),
        (("model", GROUP), 2, "model: give MODEL, --thinking L, or both"),
        (("reset", "agent:main:nope"), 2, "No session found: agent:main:nope"),
    ]:
        done = cli("session", *args, state=state)
        assert done.returncode == code and one_error_line(done.stderr).startswith(line), (args, done.stderr)
    assert cli("send", "main", "hi", state=state).returncode == 0
    done = cli("session", "delete", "main", "--yes", state=state)
    assert done.returncode == 1 and "Cannot delete the main session (agent:main:main)." in done.stderr
    done = cli("session", "archive", "main", state=state)
    assert done.returncode == 1 and "Cannot archive the main session (agent:main:main)." in done.stderr


def test_as_a_sandboxed_session_an_operation_outside_its_tree_is_a_refusal(tmp_path):
    """`--as KEY --sandboxed` acts with that session's reach: exit 1 with the tools' own line for a
    session outside its tree; the operator (no --as) reaches it."""
    state = _fresh(tmp_path)
    assert cli("session", "new", GROUP, state=state).returncode == 0
    assert cli("session", "new", "discord:group:other", state=state).returncode == 0
    done = cli("session", "rename", "discord:group:other", "x", "--as", GROUP, "--sandboxed", state=state)
    assert done.returncode == 1 and done.stdout == ""
    assert one_error_line(done.stderr) == "Session not visible from this sandboxed agent session: discord:group:other"
    done = cli("session", "abort", "discord:group:other", "--as", GROUP, "--sandboxed", state=state)
    assert done.returncode == 1 and "not visible from this sandboxed" in done.stderr
    done = cli("session", "rename", "discord:group:other", "x", state=state)
    assert (done.returncode, done.stdout) == (0, "renamed agent:main:discord:group:other: label 'x'\n")
