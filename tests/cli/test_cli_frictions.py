"""The command line's frictions of issue 28: the dashboard without a terminal (item 4), `--remote`'s
errors (item 21), mistyped commands and options and each command's help (item 22), the line a
truncated search ends with (item 25)."""

from __future__ import annotations

import json
import os
import pty
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import GUARD, cli, one_error_line
from server_support import TOKEN, local_backend, served
from sessions_tui.cli.commands.dashboard import NO_TERMINAL

GROUP = "agent:main:discord:group:dev"


# -- item 4: the dashboard needs a terminal ------------------------------------------------------


def test_item_4_the_dashboard_without_a_terminal_exits_2_with_one_line(tmp_path):
    """`sessions-tui --demo </dev/null >out` used to draw escape codes on stderr and spin a core
    forever: now one line, exit 2, and nothing written (the state directory is not even made)."""
    state = tmp_path / "state"
    with open(os.devnull) as nothing:
        done = subprocess.run(
            [sys.executable, "-m", "sessions_tui", "--demo", "--state", str(state)],
            stdin=nothing,
            capture_output=True,
            text=True,
            timeout=GUARD,
        )
    assert done.returncode == 2 and done.stdout == ""
    assert one_error_line(done.stderr) == NO_TERMINAL
    assert "`tool`, `watch` or `serve`" in NO_TERMINAL
    assert not state.exists()


def test_item_4_a_terminal_on_stdin_alone_is_not_enough(tmp_path):
    """Keys from a terminal, output to a file or pipe: refused as well, and Textual is never loaded."""
    probe = (
        "import sys\n"
        "from sessions_tui import cli\n"
        "code = cli.main(['--state', sys.argv[1]])\n"
        "print(code, 'textual' in sys.modules)\n"
    )
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-c", probe, str(tmp_path / "state")],
            stdin=follower,
            capture_output=True,
            text=True,
            timeout=GUARD,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert done.stdout == "2 False\n", done.stderr
    assert one_error_line(done.stderr) == NO_TERMINAL


# -- item 21: --remote's errors ------------------------------------------------------------------


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then let go)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def remote_cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """The command line with no token in the environment and its state directories in `home`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    env.update({"HOME": str(home), "XDG_DATA_HOME": str(home / "data")})
    return subprocess.run(
        [sys.executable, "-m", "sessions_tui", *args], capture_output=True, text=True, env=env, timeout=GUARD
    )


@pytest.mark.parametrize("scheme", ["http://", "ws://", ""])
def test_item_21_a_closed_port_is_not_reachable_not_a_connect_error(tmp_path, scheme):
    port = closed_port()
    done = remote_cli("--remote", f"{scheme}127.0.0.1:{port}", "tool", "agents_list", home=tmp_path)
    url = f"{scheme or 'http://'}127.0.0.1:{port}"  # a bare host:port is http://
    assert done.returncode == 2 and done.stdout == ""
    assert one_error_line(done.stderr) == f"{url}: the server is not reachable (Connection refused)"


def test_item_21_no_token_says_so_and_where_serve_wrote_one_and_host_port_is_http(tmp_path):
    backend = local_backend(tmp_path / "served")
    with served(backend) as url:
        bare = url.removeprefix("http://")
        none = remote_cli("--remote", bare, "tool", "agents_list", home=tmp_path)
        wrong = remote_cli("--remote", bare, "--token", "not-it", "tool", "agents_list", home=tmp_path)
        right = remote_cli("--remote", bare, "--token", TOKEN, "tool", "agents_list", home=tmp_path)
        (tmp_path / "data" / "sessions-tui").mkdir(parents=True)
        (tmp_path / "data" / "sessions-tui" / "serve.token").write_text("made by a serve\n")
        here = remote_cli("--remote", bare, "sends", home=tmp_path)
    assert right.returncode == 0 and json.loads(right.stdout)["requester"] == "main", right.stderr
    said = one_error_line(none.stderr)
    assert none.returncode == 2 and "refused" not in said
    assert said == (
        f"{url}: no token was given and the server asks for one (401): give it with --token, or set "
        "$SESSIONS_TUI_TOKEN; a serve started without one wrote it to serve.token in its state directory "
        f"(by default {tmp_path / 'data' / 'sessions-tui' / 'serve.token'})"
    )
    assert one_error_line(here.stderr).endswith(f"(here: {tmp_path / 'data' / 'sessions-tui' / 'serve.token'})")
    assert one_error_line(wrong.stderr) == f"{url}: the server refused the token (401)"


# -- item 22: mistyped commands and options, each command's help ---------------------------------


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["sned", "main", "hi"], "invalid choice: 'sned', did you mean 'send'?"),
        (["search", "x", "--limt", "5"], "unrecognized arguments: --limt 5 (did you mean --limit?)"),
        (["export", "main", "--format", "mdd"], "invalid choice: 'mdd', did you mean 'md'?"),
        (["session", "abrot", "main"], "invalid choice: 'abrot', did you mean 'abort'?"),
    ],
)
def test_item_22_a_mistyped_command_or_option_gets_a_did_you_mean(tmp_path, argv, said):
    done = cli(*argv, state=tmp_path / "state")
    assert done.returncode == 2 and said in done.stderr and done.stdout == "", done.stderr


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--stat", "{tmp}"], "unrecognized arguments: --stat {tmp} (did you mean --state?)"),
        (["search", "--stat", "{tmp}", "x"], "unrecognized arguments: --stat (did you mean --state?)"),
        (["search", "x", "--lim", "5"], "unrecognized arguments: --lim 5 (did you mean --limit?)"),
        (["tool", "--sand", "agents_list"], "unrecognized arguments: --sand (did you mean --sandboxed?)"),
    ],
)
def test_item_22_a_long_option_is_never_taken_by_its_prefix(tmp_path, argv, said):
    """`--stat /tmp` opened a store in /tmp: a prefix is no option now, and nothing is opened."""
    where = tmp_path / "elsewhere"
    where.mkdir()
    done = cli(*(word.format(tmp=where) for word in argv))
    assert done.returncode == 2 and said.format(tmp=where) in done.stderr, done.stderr
    assert list(where.iterdir()) == []


@pytest.mark.parametrize(
    ("command", "remote"),
    [
        (["search", "--help"], "the server to search:"),
        (["tool", "--help"], "the server to run the tool on:"),
        (["export", "--help"], "the server to export from:"),
        (["session", "abort", "--help"], "the server to abort the turn on:"),
        (["--help"], "the server to show in the dashboard:"),
    ],
)
def test_item_22_each_help_says_the_shared_options_in_its_own_words(tmp_path, command, remote):
    done = remote_cli(*command, home=tmp_path)
    flat = " ".join(done.stdout.split())
    assert done.returncode == 0 and remote in flat, flat
    assert "dashboard, tool, send" not in flat and "every command but" not in flat


@pytest.fixture(scope="module")
def demo_state(tmp_path_factory):
    state = tmp_path_factory.mktemp("demo")
    assert cli("demo", state=state).returncode == 0
    return state


def test_item_22_every_example_in_tool_help_runs_on_the_demo(demo_state, tmp_path):
    """Each `e.g. sessions-tui tool …` line, run as printed on a demo store: exit 0 and an answer
    (a search finds something; no example is a placeholder)."""
    help_text = remote_cli("tool", "--help", home=tmp_path).stdout
    examples = [line.strip().removeprefix("e.g. ") for line in help_text.splitlines() if "e.g. sessions-tui" in line]
    assert len(examples) >= 7 and not any("…" in example for example in examples)
    for example in examples:
        words = shlex.split(example)
        assert words[:2] == ["sessions-tui", "tool"]
        done = cli(*words[1:], state=demo_state)
        assert done.returncode == 0, (example, done.stderr)
        result = json.loads(done.stdout)
        assert result.get("status") not in ("error", "forbidden"), (example, result)
        assert result.get("results", [None]) != [], (example, result)


# -- item 25: search's truncation line ----------------------------------------------------------


def test_item_25_a_truncated_search_says_so_plainly(demo_state):
    done = cli("search", "deploy", "--limit", "1", state=demo_state)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "more matches: showing the first 1; --limit N shows more"
