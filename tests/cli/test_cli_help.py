"""The command line's help, where the demo lives, which commands take --demo, and config warnings
kept for the dashboard (issue 10)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import as_on_a_terminal
from sessions_tui import cli
from sessions_tui.cli.parser import tool_example, tool_summary
from sessions_tui.engine.demo.state import HELPER_KEY
from sessions_tui.tools.calling.registry import TOOLS

COMMANDS = {
    "tool": "invoke one session tool",
    "send": "send a message into a session",
    "demo": "write the demo into its own state directory",
    "import-openclaw": "import an OpenClaw state directory",
}


def run(*args: str, home: Path):
    """sessions-tui as a real process, with HOME and XDG_DATA_HOME in `home` and no state or
    config named by the environment."""
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "COLUMNS": "100"}
    env.pop("SESSIONS_TUI_HOME", None)
    env.pop("SESSIONS_TUI_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "sessions_tui", *args], capture_output=True, text=True, env=env, timeout=60
    )


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("SESSIONS_TUI_HOME", raising=False)
    monkeypatch.delenv("SESSIONS_TUI_CONFIG", raising=False)
    return tmp_path


def test_top_level_help_describes_every_command(home):
    proc = run("--help", home=home)
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    for name, summary in COMMANDS.items():
        assert f"{name} {summary}" in text, name
    assert "Without a COMMAND it opens the dashboard" in text
    assert "open the dashboard on the demo" in text  # issue 28: the top level speaks of the dashboard


@pytest.mark.parametrize("name", COMMANDS)
def test_each_command_help_has_its_description(home, name):
    proc = run(name, "--help", home=home)
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    description = lines[lines.index("") + 1]  # the first line after the usage
    assert description.lower().startswith(COMMANDS[name].lower()) and description.endswith(".")
    assert len(" ".join(proc.stdout.split()).split(description)[1].split("positional arguments")[0]) > 80


def test_tool_help_lists_every_registered_tool_with_a_summary_and_an_example(home):
    proc = run("tool", "--help", home=home)
    text = proc.stdout
    assert proc.returncode == 0 and "tools (ARGS_JSON is a JSON object" in text
    flat = " ".join(text.split())
    for name, spec in TOOLS.items():
        assert f"\n  {name}\n" in text, name
        assert tool_summary(spec) in flat and "\n" not in tool_summary(spec)
        example = tool_example(spec)
        assert set(spec.parameters.get("required") or []) <= set(example)
        prefix = f"e.g. sessions-tui tool {name}"
        line = next(line.strip() for line in text.splitlines() if line.strip().startswith(prefix))
        args = line.removeprefix(prefix).strip()
        assert (json.loads(args.strip("'")) if args else {}) == example


def test_a_tool_without_a_curated_example_gets_one_from_its_schema():
    spec = TOOLS["sessions_history"]
    from dataclasses import replace

    from pydantic import Field

    from sessions_tui.tools.calling.base import ToolArgs

    class NewArgs(ToolArgs):
        session_key: str = Field(alias="sessionKey")
        limit: int

        @classmethod
        def read(cls, params: dict) -> dict:
            return params

    new = replace(spec, name="sessions_new", arguments=NewArgs)
    assert new.parameters["required"] == ["sessionKey", "limit"]
    assert tool_example(new) == {"sessionKey": "…", "limit": 1}


def test_the_demo_gets_its_own_state_directory_and_leaves_the_everyday_one_untouched(home):
    everyday, demo = home / "data" / "sessions-tui", home / "data" / "sessions-tui-demo"
    proc = run("demo", home=home)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == f"state: {demo}"
    assert (demo / "sessions.sqlite3").is_file() and (demo / "config.json5").is_file()
    assert not everyday.exists()
    listed = json.loads(run("tool", "--demo", "sessions_list", home=home).stdout)
    assert listed["count"] >= 8
    assert not everyday.exists()
    proc = run("--demo", "tool", "sessions_list", '{"kinds": ["cron"]}', home=home)
    assert [row["key"] for row in json.loads(proc.stdout)["sessions"]] == ["cron:nightly-report"]
    assert json.loads(run("tool", "sessions_list", home=home).stdout)["count"] == 0  # the everyday one: empty


def test_the_demo_ignores_the_everyday_config_variable_but_not_state_or_config(home, tmp_path):
    everyday_config = tmp_path / "everyday.json5"
    everyday_config.write_text("{ agents: { defaults: { subagents: { allowAgents: ['x'] } } } }")
    env_home = {"SESSIONS_TUI_CONFIG": str(everyday_config)}
    proc = subprocess.run(
        [sys.executable, "-m", "sessions_tui", "tool", "--demo", "agents_list"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env_home, "HOME": str(home), "XDG_DATA_HOME": str(home / "data")},
    )
    assert [a["id"] for a in json.loads(proc.stdout)["agents"]] == ["main", "research"]  # the demo config
    assert everyday_config.read_text().startswith("{ agents")
    other_home, state = tmp_path / "other-home", tmp_path / "mine"
    proc = run("demo", "--state", str(state), home=other_home)
    assert proc.stdout.splitlines()[0] == f"state: {state}" and (state / "sessions.sqlite3").is_file()
    assert not (other_home / "data").exists()


def test_dashboard_demo_opens_on_the_demo_directory_with_config_warnings_kept(home, monkeypatch):
    """`sessions-tui --demo` (what `make run` runs): the dashboard gets the demo's engine; a config
    that warns keeps its warnings on the engine (Engine.config_warnings) for the dashboard to show."""
    from sessions_tui.ui.app import SessionsApp

    opened = []
    as_on_a_terminal(monkeypatch)
    monkeypatch.setattr(SessionsApp, "run", lambda self, *a, **k: opened.append(self.backend.engine))
    assert cli.main(["--demo"]) == 0
    demo = home / "data" / "sessions-tui-demo"
    assert opened[0].state_dir == demo and opened[0].store.sessions.get(HELPER_KEY) is not None
    assert not (home / "data" / "sessions-tui").exists()
    assert opened[0].config_warnings == []
    config = home / "warns.json5"
    config.write_text("{ session: { agentToAgent: { maxPingPongTurns: 9 } } }")
    assert cli.main(["--state", str(home / "s"), "--config", str(config)]) == 0
    assert len(opened[1].config_warnings) == 1 and "maxPingPongTurns" in opened[1].config_warnings[0]


@pytest.mark.parametrize(
    "argv, operator",
    [
        ([], None),
        (["--as", "agent:main:discord:group:dev"], "agent:main:discord:group:dev"),
        (["--sandboxed"], "agent:main:main"),
    ],
)
def test_the_dashboard_operates_as_the_operator_unless_started_as_a_session(home, monkeypatch, argv, operator):
    """Issue 29: the dashboard's operations on a session are the operator's, as `session` without
    `--as`; started with `--as` or `--sandboxed` they are that session's (as after `a`)."""
    from sessions_tui.ui.app import SessionsApp

    opened = []
    as_on_a_terminal(monkeypatch)
    monkeypatch.setattr(SessionsApp, "run", lambda self, *a, **k: opened.append(self.operator()))
    assert cli.main(["--demo", *argv]) == 0
    chosen = opened[0]
    assert (chosen.key if chosen is not None else None) == operator


@pytest.mark.parametrize(
    "argv, said",
    [
        (
            ["--demo", "demo"],
            "--demo goes with the commands that read or act on sessions, not demo: it writes the demo already",
        ),
        (["--demo", "import-openclaw", "x"], "not import-openclaw: the demo has sessions of its own"),
        (["demo", "--demo"], "unrecognized arguments: --demo"),
        (["import-openclaw", "x", "--demo"], "unrecognized arguments: --demo"),
    ],
)
def test_demo_is_refused_where_it_means_nothing(home, argv, said):
    proc = run(*argv, home=home)
    assert proc.returncode == 2 and said in proc.stderr and proc.stdout == ""
    assert not (home / "data").exists()


SK = "sk-proj-qw3er5ty7ui9op1as3df5gh7jk9lz1xc3vb5"


@pytest.mark.parametrize(
    "argv",
    [
        ["sends", "--reached", SK],
        ["export", "main", "--format", SK],
        ["search", "x", "--limit", SK],
        ["send", "main", "hi", "--timeout", SK],
        [SK],
        ["sends", "--reached", "replied", "--what", SK],
        ["sends", "--reached", "replied", SK],
        ["--as", "main", "--x", SK],
    ],
)
def test_a_parse_error_repeats_what_was_typed_redacted_under_its_usage(home, capsys, argv):
    with pytest.raises(SystemExit) as exited:
        cli.main(argv)
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.startswith("usage: sessions-tui") and "error: " in err, err
    assert "ty7ui9op1as3df5gh" not in err and "sk-pro…3vb5" in err, err
