"""Hostile or broken input to the command line (issue 9): one line on stderr naming what and
where, exit 2, no traceback, no hang, and nothing stored lost or changed.

Where a real process matters (a FIFO must not hang it) the command runs as a subprocess; the
timeout is only a guard, the assertions are on the exit code and the message.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import FAST, GUARD, cli, digest, one_error_line
from openclaw_fake import copy_fixture
from sessions_tui.cli import main
from sessions_tui.engine.engine import Engine


@pytest.fixture(autouse=True)
def _no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SESSIONS_TUI_HOME", raising=False)
    monkeypatch.delenv("SESSIONS_TUI_CONFIG", raising=False)


@pytest.fixture(scope="module")
def fast_state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    state = tmp_path_factory.mktemp("fast")
    (state / "config.json5").write_text(FAST)
    assert cli("demo", state=state).returncode == 0
    return state


# --------------------------------------------------------------------------------------------
# 1. A config file someone named must exist
# --------------------------------------------------------------------------------------------


def test_a_missing_config_named_by_the_option_exits_2_naming_it(tmp_path, capsys):
    missing = tmp_path / "nope.json5"
    code = main(["--state", str(tmp_path / "s"), "--config", str(missing), "tool", "agents_list"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert one_error_line(err) == f"--config {missing}: config file not found"
    assert not (tmp_path / "s").exists()  # refused before anything was created


def test_a_missing_config_named_by_the_environment_exits_2_naming_it(tmp_path, capsys, monkeypatch):
    missing = tmp_path / "env.json5"
    monkeypatch.setenv("SESSIONS_TUI_CONFIG", str(missing))
    code = main(["tool", "agents_list", "--state", str(tmp_path / "s")])
    assert code == 2
    assert one_error_line(capsys.readouterr().err) == f"$SESSIONS_TUI_CONFIG {missing}: config file not found"


def test_the_default_config_may_be_absent(tmp_path, capsys):
    assert main(["--state", str(tmp_path / "s"), "tool", "agents_list"]) == 0
    assert json.loads(capsys.readouterr().out)["agents"][0]["id"] == "main"


def test_demo_writes_its_config_where_a_missing_one_was_named(tmp_path, capsys):
    named = tmp_path / "demo.json5"
    assert main(["demo", "--state", str(tmp_path / "s"), "--config", str(named)]) == 0
    assert named.is_file()


# --------------------------------------------------------------------------------------------
# 2. A state directory that cannot be used: refused, left as it was
# --------------------------------------------------------------------------------------------


def test_a_state_that_is_a_file_exits_2_and_the_file_is_untouched(tmp_path, capsys):
    state = tmp_path / "state"
    state.write_bytes(b"my notes\n")
    before = digest(state)
    code = main(["tool", "sessions_list", "--state", str(state)])
    assert code == 2 and capsys.readouterr().out == ""
    assert digest(state) == before


def test_a_state_file_message_says_it_is_not_a_directory(tmp_path):
    state = tmp_path / "state"
    state.write_bytes(b"x")
    proc = cli("tool", "sessions_list", state=state)
    assert proc.returncode == 2 and proc.stdout == ""
    line = one_error_line(proc.stderr)
    assert line == f"{state}: is a file, not a state directory"


@pytest.mark.parametrize(
    "command", [["tool", "sessions_list"], ["send", "main", "hi"], ["demo"], ["import-openclaw", "{fixture}"]]
)
def test_a_corrupt_database_exits_2_naming_it_and_stays_byte_identical(tmp_path, command):
    state = tmp_path / "state"
    state.mkdir()
    database = state / "sessions.sqlite3"
    database.write_bytes(b"this is not a database, but someone's data all the same\n" * 40)
    before, listing = digest(database), sorted(os.listdir(state))
    fixture = copy_fixture(tmp_path / "openclaw", "sqlite-state")
    proc = cli(*[str(fixture) if part == "{fixture}" else part for part in command], state=state)
    assert proc.returncode == 2 and proc.stdout == ""
    line = one_error_line(proc.stderr)
    assert line.startswith(f"{database}: ") and "not a database" in line
    assert digest(database) == before and sorted(os.listdir(state)) == listing


def test_a_database_path_that_is_a_fifo_is_refused_without_opening_it(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    os.mkfifo(state / "sessions.sqlite3")
    proc = cli("tool", "sessions_list", state=state)
    assert proc.returncode == 2
    assert one_error_line(proc.stderr) == f"{state / 'sessions.sqlite3'}: is a FIFO, not a sessions-tui database"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into a read-only directory")
def test_an_unwritable_state_directory_exits_2_naming_it(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    state.chmod(0o555)
    try:
        proc = cli("tool", "sessions_list", state=state)
    finally:
        state.chmod(0o755)
    assert proc.returncode == 2
    assert one_error_line(proc.stderr) == f"{state}: the state directory is not writable"


def test_a_state_directory_its_user_may_not_write_exits_2_naming_it(tmp_path, monkeypatch, capsys):
    """The same refusal whoever runs the tests (root may write into a read-only directory, so the
    test above is skipped for root): the directory is one the process may not write, as the
    system's `access` answers for any other user."""
    state = tmp_path / "state"
    state.mkdir()
    real_access = os.access

    def access(path, mode, *args, **kwargs):  # type: ignore[no-untyped-def]
        if Path(path) == state and mode & os.W_OK:
            return False
        return real_access(path, mode, *args, **kwargs)

    monkeypatch.setattr(os, "access", access)
    assert main(["--state", str(state), "tool", "sessions_list"]) == 2
    assert one_error_line(capsys.readouterr().err) == f"{state}: the state directory is not writable"
    assert list(state.iterdir()) == []  # nothing was created in it


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc")
def test_a_state_directory_nothing_can_be_created_in_exits_2_naming_it():
    """/proc/self is a directory no one, not even root, can create a file in."""
    proc = cli("tool", "sessions_list", state=Path("/proc/self"))
    assert proc.returncode == 2
    line = one_error_line(proc.stderr)
    assert line.startswith("/proc/self") and ("not writable" in line or "cannot" in line)


# --------------------------------------------------------------------------------------------
# 3. FIFOs and devices are refused, never read, never waited on
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["FIFO", "character device"])
def test_a_config_that_is_a_fifo_or_a_device_is_refused(tmp_path, kind):
    if kind == "FIFO":
        config = tmp_path / "config.json5"
        os.mkfifo(config)
    else:
        config = Path("/dev/zero")
    proc = cli("--config", str(config), "tool", "agents_list", state=tmp_path / "s")
    assert proc.returncode == 2
    assert one_error_line(proc.stderr) == f"{config}: is a {kind}, not a config file"


def test_a_config_of_50_mb_is_refused_at_once_naming_the_file_and_the_limit(tmp_path):
    config = tmp_path / "config.json5"
    with config.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)  # sparse: nothing is written
    proc = cli("--config", str(config), "tool", "agents_list", state=tmp_path / "s")
    assert proc.returncode == 2
    assert one_error_line(proc.stderr) == f"{config}: 52428800 bytes, over the 1 MiB a config file may hold"


def test_a_default_config_that_is_a_fifo_is_refused(tmp_path):
    state = tmp_path / "s"
    state.mkdir()
    os.mkfifo(state / "config.json5")
    proc = cli("tool", "agents_list", state=state)
    assert proc.returncode == 2 and "is a FIFO, not a config file" in one_error_line(proc.stderr)


def _lines_of(state: Path, key: str) -> int:
    engine = Engine(state)
    try:
        return len(engine.store.transcripts.transcript_lines(key))
    finally:
        engine.close()


def test_import_reports_a_fifo_store_of_one_agent_and_imports_the_rest(tmp_path):
    root = copy_fixture(tmp_path / "openclaw", "sqlite-state")
    (root / "agents" / "piped" / "agent").mkdir(parents=True)
    os.mkfifo(root / "agents" / "piped" / "agent" / "openclaw-agent.sqlite")
    (root / "agents" / "legacy" / "sessions").mkdir(parents=True)
    os.mkfifo(root / "agents" / "legacy" / "sessions" / "sessions.json")
    proc = cli("import-openclaw", str(root), state=tmp_path / "s")
    assert proc.returncode == 0, proc.stderr
    problems = proc.stderr.splitlines()
    assert (
        f"{root}/agents/piped/agent/openclaw-agent.sqlite: OpenClaw store is a FIFO, not a regular file; "
        "not opened" in problems
    )
    assert (
        f"{root}/agents/legacy/sessions/sessions.json: session store is a FIFO, not a regular file; skipped" in problems
    )
    assert "2 problems" in proc.stdout and "imported 0" not in proc.stdout
    assert _lines_of(tmp_path / "s", "agent:main:main") > 0


def test_import_reports_a_transcript_that_is_a_fifo_or_a_device_and_imports_the_rest(tmp_path):
    root = copy_fixture(tmp_path / "openclaw", "legacy-state")
    sessions = root / "agents" / "main" / "sessions"
    fifo = sessions / "22222222-2222-4222-8222-222222222222.jsonl"
    device = sessions / "33333333-3333-4333-8333-333333333333.jsonl"
    fifo.unlink()
    os.mkfifo(fifo)
    device.unlink()
    device.symlink_to("/dev/zero")
    proc = cli("import-openclaw", str(root), state=tmp_path / "s")
    assert proc.returncode == 0, proc.stderr
    problems = proc.stderr.splitlines()
    assert f"{fifo}: transcript is a FIFO, not a regular file; skipped" in problems
    # a link to a device is a link out of the source: never opened either
    assert f"{device}: a link out of the source directory (to /dev/zero); skipped" in problems
    assert _lines_of(tmp_path / "s", "agent:main:main") > 0
    assert _lines_of(tmp_path / "s", "agent:main:discord:group:123") == 0


def test_follow_reports_a_fifo_transcript_once_and_keeps_following(tmp_path):
    root = copy_fixture(tmp_path / "openclaw", "legacy-state")
    fifo = root / "agents" / "main" / "sessions" / "22222222-2222-4222-8222-222222222222.jsonl"
    fifo.unlink()
    os.mkfifo(fifo)
    env = {k: v for k, v in os.environ.items() if k not in ("SESSIONS_TUI_HOME", "SESSIONS_TUI_CONFIG")}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sessions_tui",
            "import-openclaw",
            str(root),
            "--follow",
            "--state",
            str(tmp_path / "s"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # the first tick's summary: the import is done
            if line.startswith("imported "):
                break
        proc.terminate()
        out, err = proc.communicate(timeout=GUARD)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0 and out.endswith("stopped\n")
    assert err.count(f"{fifo}: transcript is a FIFO, not a regular file; skipped") == 1


# --------------------------------------------------------------------------------------------
# 4. send --message-file
# --------------------------------------------------------------------------------------------


def _user_texts(state: Path, key: str) -> list[str]:
    engine = Engine(state)
    try:
        messages = engine.store.transcripts.history(key).messages
    finally:
        engine.close()
    texts = []
    for message in messages:
        if message.get("role") == "user":
            content = message["content"]
            texts.append(content if isinstance(content, str) else "".join(b.get("text", "") for b in content))
    return texts


def test_message_file_sends_a_message_longer_than_a_command_line(fast_state, tmp_path):
    message = "word " * 30_000 + "end"  # 150 KB: more than one argument may hold on Linux
    path = tmp_path / "message.txt"
    path.write_text(message + "\n", encoding="utf-8")
    proc = cli(
        "send", "agent:main:cron:nightly-report", "--message-file", str(path), "--timeout", "5", state=fast_state
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1].startswith("ok · replied in ")
    assert message in _user_texts(fast_state, "agent:main:cron:nightly-report")  # whole, newline dropped


def test_message_file_dash_reads_stdin(fast_state):
    proc = cli(
        "send",
        "agent:main:cron:nightly-report",
        "--message-file",
        "-",
        "--timeout",
        "5",
        state=fast_state,
        input="from stdin, é…\n",
    )
    assert proc.returncode == 0, proc.stderr
    assert "from stdin, é…" in proc.stdout


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["main", "hi", "--message-file", "{file}"], "send: MESSAGE and --message-file do not go together: give one"),
        (["main"], "send: no message: give MESSAGE or --message-file FILE"),
        (["main", "--message-file", "{missing}"], "--message-file {missing}: cannot read: No such file or directory"),
        (["main", "--message-file", "{dir}"], "--message-file {dir}: is a directory, not a file or a pipe"),
        (
            ["main", "--message-file", "/dev/zero"],
            "--message-file /dev/zero: is a character device, not a file or a pipe",
        ),
        (["main", "--message-file", "{latin1}"], "--message-file {latin1}: not UTF-8 text (byte 3)"),
    ],
)
def test_message_file_refusals_are_one_line_exit_2(tmp_path, capsys, args, expected):
    state = tmp_path / "s"
    names = {
        "{file}": tmp_path / "m.txt",
        "{missing}": tmp_path / "absent.txt",
        "{dir}": tmp_path,
        "{latin1}": tmp_path / "latin1.txt",
    }
    names["{file}"].write_text("hello")
    names["{latin1}"].write_bytes("caf\u00e9".encode("latin-1"))
    argv = ["send", "--state", str(state), *[str(names.get(a, a)) for a in args]]
    for name, path in names.items():
        expected = expected.replace(name, str(path))
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and one_error_line(err) == expected
    assert not state.exists()  # refused before the store was opened


def test_an_undecodable_command_line_message_is_refused(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "sessions_tui", "--state", str(tmp_path / "s"), "send", "main", b"caf\xe9"],
        capture_output=True,
        timeout=GUARD,
    )
    assert proc.returncode == 2
    assert one_error_line(proc.stderr.decode()) == "MESSAGE: not UTF-8 text (character 3)"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([b"tool", b"sessions_list", b"--as", b"agent:main:\xff"], "--as: not UTF-8 text (character 11)"),
        ([b"send", b"main", b"hi", b"--as", b"agent:main:\xff"], "--as: not UTF-8 text (character 11)"),
        ([b"--as", b"agent:main:\xff"], "--as: not UTF-8 text (character 11)"),  # the dashboard
        ([b"tool", b"sessions_\xff"], "NAME: not UTF-8 text (character 9)"),
        ([b"tool", b"sessions_list", b'{"kinds": ["\xff"]}'], "ARGS_JSON: not UTF-8 text (character 12)"),
        ([b"send", b"agent:main:\xff", b"hi"], "KEY: not UTF-8 text (character 11)"),
        ([b"search", b"ab\xffcd"], "QUERY: not UTF-8 text (character 2)"),
        ([b"search", b"fine", b"ab\xffcd"], "QUERY: not UTF-8 text (character 2)"),
        ([b"search", b"x", b"--session", b"ab\xffcd"], "--session: not UTF-8 text (character 2)"),
        ([b"sends", b"--session", b"ab\xffcd"], "--session: not UTF-8 text (character 2)"),
        ([b"search", b"x", b"--remote", b"http://127.0.0.1:9/\xff"], "--remote: not UTF-8 text (character 19)"),
        (
            [b"search", b"x", b"--remote", b"http://127.0.0.1:9", b"--token", b"t\xff"],
            "--token: not UTF-8 text (character 1)",
        ),
        ([b"serve", b"--host", b"h\xff"], "--host: not UTF-8 text (character 1)"),
    ],
)
def test_undecodable_bytes_in_a_text_argument_are_refused_naming_it(fast_state, args, expected):
    before = digest(fast_state / "sessions.sqlite3")
    proc = subprocess.run(
        [sys.executable, "-m", "sessions_tui", "--state", str(fast_state), *args],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=GUARD,
    )
    assert proc.returncode == 2 and proc.stdout == b""
    assert one_error_line(proc.stderr.decode()) == expected
    assert digest(fast_state / "sessions.sqlite3") == before


def test_a_lone_surrogate_in_a_text_argument_is_refused_in_process(tmp_path, capsys):
    assert main(["--state", str(tmp_path / "s"), "tool", "sessions_list", "--as", "agent:main:\udcff"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and one_error_line(err) == "--as: not UTF-8 text (character 11)"
    assert not (tmp_path / "s").exists()  # refused before the store was opened


def test_undecodable_bytes_in_a_path_are_a_path_like_any_other(tmp_path):
    state = os.fsencode(tmp_path) + b"/st\xffate"
    proc = subprocess.run(
        [sys.executable, "-m", "sessions_tui", "--state", state, "tool", "agents_list"],
        capture_output=True,
        timeout=GUARD,
    )
    assert proc.returncode == 0, proc.stderr
    assert os.path.isdir(state)


def test_send_help_documents_message_file():
    proc = cli("send", "--help")
    assert "--message-file FILE" in proc.stdout and "stdin" in proc.stdout and "UTF-8" in proc.stdout


# --------------------------------------------------------------------------------------------
# 5 and 7. Output for people: control characters visible, agent text redacted
# --------------------------------------------------------------------------------------------

OSC52 = "\x1b]52;c;aGVsbG8=\x07"
OSC0 = "\x1b]0;pwned\x07"


def test_send_output_shows_osc_sequences_inert(fast_state):
    proc = cli(
        "send",
        "agent:main:discord:group:dev",
        f"copy {OSC52} title {OSC0} csi \x9b2J",
        "--timeout",
        "5",
        state=fast_state,
    )
    assert proc.returncode == 0, proc.stderr
    for raw in ("\x1b", "\x07", "\x9b"):
        assert raw not in proc.stdout
    reply = proc.stdout.splitlines()[2]
    assert "copy ␛]52;c;aGVsbG8=␇ title ␛]0;pwned␇ csi \ufffd2J" in reply


def test_send_output_redacts_secrets_in_agent_text(fast_state):
    secret = "sk-" + "Zq7" * 10
    proc = cli("send", "agent:main:discord:group:dev", f"use {secret} please", "--timeout", "5", state=fast_state)
    assert proc.returncode == 0, proc.stderr
    assert "Received from another session: use " in proc.stdout and secret not in proc.stdout


def test_error_lines_show_control_characters_visibly(tmp_path, capsys):
    assert main(["tool", f"sessions_nope{OSC0}", "--state", str(tmp_path / "s")]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "\x1b" not in line and "\x07" not in line and "sessions_nope␛]0;pwned␇" in line


def test_import_problems_show_control_characters_visibly(tmp_path):
    root = tmp_path / "openclaw"
    sessions = root / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "sessions.json").write_text(json.dumps({f"agent:main:x{OSC52}": "not an object"}))
    proc = cli("import-openclaw", str(root), state=tmp_path / "s")
    assert proc.returncode == 0
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr
    assert "agent:main:x␛]52;c;aGVsbG8=␇: entry is not an object; skipped" in proc.stderr


def test_follow_lines_show_control_characters_visibly():
    import io

    from sessions_tui.cli.commands.import_openclaw import FollowPrinter
    from sessions_tui.engine.openclaw.follow import FollowTick
    from sessions_tui.engine.openclaw.mirror import ImportReport

    out, err = io.StringIO(), io.StringIO()
    printer = FollowPrinter(out, err, show_key=str)
    report = ImportReport(changed={f"agent:main:x{OSC0}\n": 2}, problems=[f"bad\x9b{OSC52}"])
    printer.tick(FollowTick(report=report, first=False))
    assert out.getvalue().endswith("agent:main:x␛]0;pwned␇␊  +2 lines\n") and out.getvalue().count("\n") == 1
    assert err.getvalue() == "bad\ufffd␛]52;c;aGVsbG8=␇\n"


def test_the_dashboard_and_the_cli_share_one_visible_function():
    from sessions_tui import terminal_text
    from sessions_tui.ui import text

    assert text.visible is terminal_text.visible
    shown = terminal_text.visible("a\x1b[31mb\x00\x7f\x85\td\ne\ud800")
    assert shown == "a␛[31mb␀␡\ufffd\td\ne\ufffd"
    assert terminal_text.visible_line("a\tb\nc\r") == "a␉b␊c␍"


# --------------------------------------------------------------------------------------------
# 6. JSON output: controls escaped, the rest readable, lone surrogates harmless
# --------------------------------------------------------------------------------------------


def test_json_text_escapes_controls_c1_separators_and_surrogates():
    from sessions_tui.terminal_text import json_text

    value = {"k\x9b": "é … 日本 🙂 \x1b[0m \x7f \x85 \u2028 \u2029 \ud800 \n"}
    text = json_text(value)
    assert text.isascii() is False and "é … 日本 🙂" in text
    for raw in ("\x1b", "\x7f", "\x85", "\x9b", "\u2028", "\u2029", "\ud800"):
        assert raw not in text
    for escape in ("\\u001b", "\\u007f", "\\u0085", "\\u009b", "\\u2028", "\\u2029", "\\ud800", "\\n"):
        assert escape in text
    assert json.loads(text) == value


def test_print_json_survives_lone_surrogates_on_a_utf8_stdout(monkeypatch):
    import io

    from sessions_tui.cli.commands.tool import print_json

    raw = io.BytesIO()
    stdout = io.TextIOWrapper(raw, encoding="utf-8", errors="strict")
    monkeypatch.setattr(sys, "stdout", stdout)
    print_json({"error": "No session found: x\udcff"})
    stdout.flush()
    assert json.loads(raw.getvalue().decode("utf-8")) == {"error": "No session found: x\udcff"}


def test_tool_output_escapes_c1_and_line_separators(fast_state):
    key = "agent:main:x\x9b\u2028é"
    proc = cli("tool", "sessions_history", json.dumps({"sessionKey": key}), state=fast_state)
    assert proc.returncode == 0, proc.stderr
    assert "\x9b" not in proc.stdout and "\u2028" not in proc.stdout
    assert "\\u009b\\u2028é" in proc.stdout
    assert json.loads(proc.stdout)["error"] == f"No session found: {key}"
