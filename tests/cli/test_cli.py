"""The command line (tool, send, demo, --state, --config): output, exit codes and errors of
`sessions-tui`, as real processes."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def cli(*args, state: Path, env_extra=None, config: Path | None = None):
    env = {**os.environ, **(env_extra or {})}
    env.pop("SESSIONS_TUI_HOME", None)
    env.pop("SESSIONS_TUI_CONFIG", None)
    argv = [sys.executable, "-m", "sessions_tui", "--state", str(state)]
    if config is not None:
        argv += ["--config", str(config)]
    return subprocess.run(argv + list(args), capture_output=True, text=True, env=env, timeout=60)


@pytest.fixture(scope="module")
def demo_state(tmp_path_factory):
    state = tmp_path_factory.mktemp("demo")
    proc = cli("demo", state=state)
    assert proc.returncode == 0, proc.stderr
    return state


def test_tool_prints_the_bare_result_object(demo_state):
    proc = cli("tool", "sessions_list", '{"kinds": ["cron"]}', state=demo_state)
    assert proc.returncode == 0 and proc.stderr == ""
    result = json.loads(proc.stdout)
    assert set(result) >= {"count", "sessions"} and "details" not in result and "content" not in result
    assert [row["key"] for row in result["sessions"]] == ["cron:nightly-report"]


def test_error_results_still_exit_zero(demo_state):
    proc = cli("tool", "sessions_history", '{"sessionKey": "agent:main:discord:group:nope"}', state=demo_state)
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == {"status": "error", "error": "No session found: agent:main:discord:group:nope"}


def test_invalid_arguments_exit_2_with_ref_text(demo_state):
    proc = cli("tool", "sessions_history", "{}", state=demo_state)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == "sessions-tui: sessionKey required"


def test_unknown_tool_exits_2(demo_state):
    proc = cli("tool", "sessions_nope", state=demo_state)
    assert proc.returncode == 2 and "Unknown tool: sessions_nope" in proc.stderr


def test_malformed_args_json_exits_2(demo_state):
    proc = cli("tool", "sessions_list", "{oops", state=demo_state)
    assert proc.returncode == 2 and "ARGS_JSON: invalid JSON at line 1 column 2" in proc.stderr
    proc = cli("tool", "sessions_list", "[1]", state=demo_state)
    assert proc.returncode == 2 and "ARGS_JSON: must be a JSON object" in proc.stderr


def test_bad_config_exits_2_naming_file_and_place(tmp_path):
    config = tmp_path / "bad.json5"
    config.write_text("{\n  session: { scope: 'global', }\n  tools: oops\n}\n")
    proc = cli("tool", "sessions_list", state=tmp_path / "s", config=config)
    assert proc.returncode == 2
    assert str(config) in proc.stderr and ":3:" in proc.stderr
    config.write_text('{ session: { agentToAgent: { maxPingPongTurns: "five" } } }')
    proc = cli("tool", "sessions_list", state=tmp_path / "s", config=config)
    assert proc.returncode == 2 and "session.agentToAgent.maxPingPongTurns" in proc.stderr


def test_out_of_range_config_warns_and_runs(tmp_path):
    config = tmp_path / "c.json5"
    config.write_text("{ session: { agentToAgent: { maxPingPongTurns: 9 } } }")
    proc = cli("tool", "agents_list", state=tmp_path / "s", config=config)
    assert proc.returncode == 0 and "warning:" in proc.stderr and "maxPingPongTurns" in proc.stderr


def test_config_comes_from_the_state_directory_by_default(tmp_path):
    state = tmp_path / "s"
    state.mkdir()
    (state / "config.json5").write_text("{ agents: { defaults: { subagents: { allowAgents: ['x'] } } } }")
    proc = cli("tool", "agents_list", state=state)
    assert [a["id"] for a in json.loads(proc.stdout)["agents"]] == ["main", "x"]


def test_state_and_config_from_environment(tmp_path):
    state = tmp_path / "envstate"
    config = tmp_path / "env.json5"
    config.write_text("{ agents: { defaults: { subagents: { allowAgents: ['y'] } } } }")
    env = {**os.environ, "SESSIONS_TUI_HOME": str(state), "SESSIONS_TUI_CONFIG": str(config)}
    proc = subprocess.run(
        [sys.executable, "-m", "sessions_tui", "tool", "agents_list"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert [a["id"] for a in json.loads(proc.stdout)["agents"]] == ["main", "y"]
    assert (state / "sessions.sqlite3").exists()


def test_as_changes_the_requester(demo_state):
    proc = cli("tool", "sessions_history", '{"sessionKey": "main"}', "--as", "agent:research:main", state=demo_state)
    result = json.loads(proc.stdout)
    assert result["sessionKey"] == "main"
    assert "retrieval" in json.dumps(result["messages"])


def test_as_refuses_what_is_not_a_key(demo_state):
    proc = cli("tool", "sessions_list", "--as", "not a key", state=demo_state)
    assert proc.returncode == 2 and "--as: not a session key" in proc.stderr


def test_sandboxed_flag_and_sandboxed_agents_hide_sessions(demo_state):
    forced = json.loads(
        cli("tool", "sessions_list", "--as", "agent:main:discord:group:dev", "--sandboxed", state=demo_state).stdout
    )
    assert forced["count"] == 0
    # The demo's `helper` agent has sandbox.mode "all": sandboxed without the flag.
    helper = json.loads(cli("tool", "sessions_list", "--as", "agent:helper:main", state=demo_state).stdout)
    assert helper["count"] == 0
    normal = json.loads(cli("tool", "sessions_list", "--as", "agent:main:discord:group:dev", state=demo_state).stdout)
    assert normal["count"] > 0


def test_as_and_sandboxed_before_the_command_count_too(demo_state):
    before = json.loads(
        cli("--as", "agent:main:discord:group:dev", "--sandboxed", "tool", "sessions_list", state=demo_state).stdout
    )
    assert before["count"] == 0
    history = json.loads(
        cli(
            "--as", "agent:research:main", "tool", "sessions_history", '{"sessionKey": "main"}', state=demo_state
        ).stdout
    )
    assert "retrieval" in json.dumps(history["messages"])
    after = json.loads(
        cli("--as", "agent:helper:main", "tool", "sessions_list", "--as", "main", state=demo_state).stdout
    )
    assert after["count"] > 0  # the command's own --as wins


def test_output_is_utf8_json_not_ascii_escapes(demo_state):
    proc = cli("tool", "sessions_history", '{"sessionKey": "agent:main:discord:group:dev"}', state=demo_state)
    assert "…" in proc.stdout  # the redaction mask, printed as itself


def test_demo_command_seeds_once_and_lists_the_sessions(demo_state):
    proc = cli("demo", state=demo_state)
    assert proc.returncode == 0 and "cron:nightly-report" in proc.stdout
    assert proc.stdout.count("\n") == 10  # the state line and 9 sessions: seeding again added nothing


def test_help_mentions_every_command(tmp_path):
    proc = cli("--help", state=tmp_path)
    for word in ("tool", "send", "demo", "import-openclaw", "--state", "--config", "--demo", "--as"):
        assert word in proc.stdout


FAST = (
    "{ models: { demo: { latencyMs: 0, chunkMs: 0 } }, "
    "session: { sendPolicy: { rules: [ { action: 'deny', match: { channel: 'whatsapp' } } ] } } }"
)


@pytest.fixture
def fast_state(tmp_path):
    state = tmp_path / "fast"
    state.mkdir()
    (state / "config.json5").write_text(FAST)
    assert cli("demo", state=state).returncode == 0
    return state


def test_tool_sessions_send_waits_for_the_background_work(fast_state):
    proc = cli(
        "tool",
        "sessions_send",
        '{"sessionKey": "agent:main:discord:group:dev", "message": "hi", "timeoutSeconds": 0}',
        "--as",
        "main",
        state=fast_state,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["status"] == "accepted"
    history = json.loads(
        cli(
            "tool", "sessions_history", '{"sessionKey": "agent:main:discord:group:dev", "limit": 200}', state=fast_state
        ).stdout
    )
    texts = json.dumps(history["messages"])
    # The run, the ping-pong and the announce step all finished before the command exited.
    assert "Agent-to-agent announce step." in texts and "Received from agent:main:main: hi" in texts


def test_send_prints_the_outcome_and_the_ping_pong(fast_state):
    proc = cli("send", "agent:main:discord:group:dev", "hello", "--as", "main", state=fast_state)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "→ agent:main:discord:group:dev · waiting up to 30 s"
    assert lines[1].startswith("ok · replied in ")
    assert lines[2] == "  Received from agent:main:main: hello. On it."
    assert any(line.startswith("↔ turn 1 of 5 · main: ") for line in lines)
    assert any("(stops the ping-pong)" in line for line in lines)
    assert any(line.startswith("announce · agent:main:discord:group:dev (recorded in the outbox): ") for line in lines)


def test_send_refused_by_policy_exits_1(fast_state):
    proc = cli("send", "agent:main:whatsapp:group:family", "hello", state=fast_state)
    assert proc.returncode == 1
    assert "forbidden · send blocked by session policy: rule 1 (channel=whatsapp)" in proc.stdout


def test_send_slash_send_sets_the_override_as_the_owner(fast_state):
    proc = cli("send", "agent:main:whatsapp:group:family", "/send on", state=fast_state)
    assert proc.returncode == 0 and proc.stdout.strip() == "⚙️ Send policy set to on."
    rows = json.loads(cli("tool", "sessions_list", '{"kinds": ["group"]}', state=fast_state).stdout)["sessions"]
    assert {r["key"]: r.get("sendPolicy") for r in rows}["agent:main:whatsapp:group:family"] == "allow"
    proc = cli("send", "agent:main:whatsapp:group:family", "hi again", "--timeout", "0", state=fast_state)
    assert proc.returncode == 0 and "accepted · the run goes on" in proc.stdout
    proc = cli("send", "agent:main:whatsapp:group:family", "/send sideways", state=fast_state)
    assert proc.stdout.strip() == "⚙️ Usage: /send on|off|inherit"


def test_tool_sessions_spawn_waits_for_the_child_and_its_announce(fast_state):
    proc = cli(
        "tool",
        "sessions_spawn",
        '{"task": "count the words in: a b c", "label": "words"}',
        "--as",
        "main",
        state=fast_state,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "accepted"
    history = json.loads(cli("tool", "sessions_history", '{"sessionKey": "main", "limit": 1}', state=fast_state).stdout)
    announce = history["messages"][-1]
    assert announce["announce"]["status"] == "ok"
    assert announce["content"][0]["text"].startswith("Status: completed successfully\nResult: That text has 3 words.")
