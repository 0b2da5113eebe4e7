"""`sessions-tui usage` (cli/commands/usage.py): tokens and estimated cost as text and JSON, by agent,
model and session, by day and hour, and bad input (exit 2)."""

from __future__ import annotations

import json
import time

import pytest

from conftest import state_cli
from sessions_tui.engine.clock import FrozenClock
from sessions_tui.engine.store.store import Store

cli = state_cli
HOUR = 3_600_000
DAY = 24 * HOUR
PRICED = (
    "{ models: { providers: { acme: { baseUrl: 'http://x/v1', "
    "models: [ { id: 'm1', cost: { input: 2, output: 10 } } ] } } } }"
)


def _assistant(ts: int, input_: int, output: int, provider: str, model: str) -> dict:
    usage = {"input": input_, "output": output, "totalTokens": input_ + output}
    return {"role": "assistant", "content": [], "provider": provider, "model": model, "usage": usage, "timestamp": ts}


@pytest.fixture(scope="module")
def used_state(tmp_path_factory):
    """Three sessions of two agents: a priced model an hour ago and ten days ago, an unpriced one an hour ago."""
    state = tmp_path_factory.mktemp("usage")
    (state / "config.json5").write_text(PRICED)
    now = int(time.time() * 1000)
    store = Store(state, FrozenClock(now))
    try:
        for key, messages in (
            ("agent:main:main", [_assistant(now - HOUR, 1_000_000, 100_000, "acme", "m1")]),
            ("agent:ops:main", [_assistant(now - HOUR, 5000, 500, "other", "x9")]),
            ("agent:main:discord:group:dev", [_assistant(now - 10 * DAY, 2_000_000, 0, "acme", "m1")]),
        ):
            store.sessions.create(key, {})
            for message in messages:
                store.transcripts.append(key, message)
    finally:
        store.close()
    return state


def test_usage_by_agent_prints_totals_groups_and_days(used_state):
    proc = cli("usage", state=used_state)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("usage since ") and lines[0].endswith(": 2 turns, 1.11M tokens, estimated cost $3.00+?")
    assert "(1 turn on models with no price in the config: their cost is left out)" in lines[1]
    header = next(i for i, line in enumerate(lines) if line.startswith("agent "))
    assert lines[header + 1].split() == ["main", "1", "1.00M", "100.0k", "1.10M", "$3.00"]
    assert lines[header + 2].split() == ["ops", "1", "5.0k", "500", "5.5k", "?"]
    assert any(line.startswith("by day ") for line in lines)


def test_usage_json_by_model_over_a_longer_span(used_state):
    proc = cli("usage", "--since", "30d", "--by", "model", "--every", "hour", "--json", state=used_state)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["by"] == "model" and report["every"] == "hour" and report["estimated"] is True
    by = {g["name"]: g for g in report["groups"]}
    assert by["acme/m1"]["turns"] == 2 and by["acme/m1"]["estimatedCostUsd"] == pytest.approx(7.0)
    assert by["other/x9"]["unpricedTurns"] == 1 and by["other/x9"]["estimatedCostUsd"] == 0
    assert report["total"]["totalTokens"] == 3_105_500
    assert len(report["series"]) == 2 and all(p["start"] % HOUR == 0 for p in report["series"])


def test_usage_by_session_names_the_sessions(used_state):
    proc = cli("usage", "--since", "2026-01-01", "--by", "session", state=used_state)
    assert proc.returncode == 0, proc.stderr
    assert "agent:main:discord:group:dev" in proc.stdout and "agent:ops:main" in proc.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--since", "lately"), "--since: not a duration or a date: 'lately'"),
        (("--since", "2999-01-01"), "--since: '2999-01-01' is still to come"),
        (("--by", "colour"), "invalid choice: 'colour'"),
    ],
)
def test_bad_input_exits_2_with_one_line(used_state, args, said):
    proc = cli("usage", *args, state=used_state)
    assert proc.returncode == 2 and said in proc.stderr and proc.stdout == ""


def test_an_empty_state_has_no_usage(tmp_path):
    proc = cli("usage", state=tmp_path / "empty")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith(": 0 turns, 0 tokens, estimated cost $0.00")


def test_usage_over_remote_is_the_servers_report(used_state, capsys):
    from server_support import TOKEN, served
    from sessions_tui.backend.local.backend import open_local
    from sessions_tui.cli import main

    args = ["usage", "--since", "30d", "--by", "model", "--json"]
    here = json.loads(cli(*args, state=used_state).stdout)
    with served(open_local(used_state, used_state / "config.json5")) as url:
        code = main(["--remote", url, "--token", TOKEN, *args])
    there = json.loads(capsys.readouterr().out)
    assert code == 0
    assert (there["groups"], there["total"], there["series"]) == (here["groups"], here["total"], here["series"])


def test_a_backends_note_is_said_under_the_header_and_in_the_json():
    from sessions_tui.backend.values.usage import UsageReport
    from sessions_tui.cli.commands.usage import report_json, report_lines

    report = UsageReport(since=0, by="agent", every="day", note="an OpenClaw gateway counts whole days (UTC)")
    assert report_lines(report, str)[1] == "  (an OpenClaw gateway counts whole days (UTC))"
    assert report_json(report, str)["note"] == report.note
    assert "note" not in report_json(UsageReport(since=0, by="agent", every="day"), str)
