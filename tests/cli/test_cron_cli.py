"""`sessions-tui cron add|list|edit|rm|enable|disable|run|runs` on a state directory: one line each (or
`--json`, OpenClaw's job shape), exit 2 for bad input, 1 for a refusal."""

from __future__ import annotations

import json

from cli_support import cli, one_error_line
from conftest import FAST_DEMO
from scenes import merge
from server_support import local_backend


def _state(tmp_path, config=None):
    state = tmp_path / "s"
    local_backend(state, merge(FAST_DEMO, config or {})).close()  # its config.json5
    return state


def test_a_job_from_add_to_its_runs(tmp_path):
    state = _state(tmp_path)
    done = cli("cron", "add", "--name", "Brief", "--id", "brief", "--cron", "0 7 * * *", "--tz", "Europe/Vienna",
               "--message", "Summarize", "--model", "demo/demo", "--thinking", "low", state=state)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("added brief  Brief  cron 0 7 * * * (Europe/Vienna)  next ")
    assert done.stdout.endswith(" · never run · isolated\n")
    job = json.loads(cli("cron", "list", "--json", state=state).stdout)["jobs"][0]
    assert job["schedule"] == {"kind": "cron", "expr": "0 7 * * *", "tz": "Europe/Vienna"}
    assert job["payload"] == {"kind": "agentTurn", "message": "Summarize", "model": "demo/demo", "thinking": "low"}
    assert (job["sessionTarget"], job["enabled"], job["source"]) == ("isolated", True, "cli")
    assert job["state"]["nextRunAtMs"] > job["createdAtMs"]
    ran = cli("cron", "run", "brief", state=state)
    assert ran.returncode == 0, ran.stderr
    assert "  ok  " in ran.stdout and "tokens  manual  agent:main:cron:brief" in ran.stdout
    [run] = json.loads(cli("cron", "runs", "brief", "--json", state=state).stdout)["runs"]
    assert (run["status"], run["trigger"], run["sessionKey"]) == ("ok", "manual", "agent:main:cron:brief")
    assert run["tokens"] > 0 and run["endedAtMs"] >= run["startedAtMs"]
    listed = json.loads(cli("tool", "sessions_list", "{}", state=state).stdout)
    assert [s["key"] for s in listed["sessions"]] == ["cron:brief"]  # a cron session, in sessions_list
    edited = cli("cron", "edit", "brief", "--every", "10m", "--clear-model", "--json", state=state)
    job = json.loads(edited.stdout)
    assert job["schedule"] == {"kind": "every", "everyMs": 600_000} and "model" not in job["payload"]
    assert cli("cron", "disable", "brief", state=state).stdout.endswith("(disabled)\n")
    assert cli("cron", "list", state=state).stdout == "no enabled cron jobs (--all: the disabled ones too)\n"
    assert cli("cron", "list", "--all", state=state).stdout.startswith("brief  Brief  every 10m  next - · last ok ")
    assert cli("cron", "enable", "brief", state=state).returncode == 0
    assert cli("cron", "rm", "brief", state=state).stdout == "removed brief (Brief)\n"
    assert cli("cron", "runs", "brief", state=state).stdout.count("\n") == 1  # the history stays


def test_bad_input_exits_2_and_refusals_exit_1(tmp_path):
    declared = {"cron": {"jobs": [{"name": "Declared", "schedule": {"kind": "every", "everyMs": 60000},
                                   "payload": {"kind": "agentTurn", "message": "hi"}}]}}  # fmt: skip
    state = _state(tmp_path, declared)
    assert (
        cli("cron", "add", "--name", "x", "--id", "x", "--every", "1m", "--message", "m", state=state).returncode == 0
    )
    for args, code, line in [
        (("add", "--name", "x", "--cron", "61 * * * *", "--message", "m"), 2, "cron expression '61 * * * *': minute: "),
        (("add", "--name", "x", "--cron", "0 7 * * *", "--tz", "Mars/Base", "--message", "m"), 2, "not a time zone"),
        (("add", "--name", "x", "--every", "soon", "--message", "m"), 2, "--every: not a duration: 'soon'"),
        (("add", "--name", "x", "--at", "whenever", "--message", "m"), 2, "--at: not a time: 'whenever'"),
        (("add", "--name", "x", "--every", "1m", "--message", "m", "--session", "a b"), 2, "--session: isolated, main"),
        (("add", "--name", "x", "--every", "1m", "--message", "m", "--webhook", "ftp://x"), 2, "webhook delivery"),
        (("add", "--name", "x", "--id", "x", "--every", "1m", "--message", "m"), 1, "a job with id x exists already"),
        (("edit", "nope", "--name", "y"), 2, "No cron job found: nope"),
        (("edit", "x"), 2, "edit: give what to change"),
        (("rm", "declared"), 1, "cron job declared is declared in the config file: change it there"),
        (("edit", "declared", "--name", "y"), 1, "declared in the config file"),
    ]:
        done = cli("cron", *args, state=state)
        assert done.returncode == code, (args, done.stdout, done.stderr)
        assert line in one_error_line(done.stderr), (args, done.stderr)
    listed = cli("cron", "list", state=state).stdout.splitlines()
    assert [line.split()[0] for line in listed] == ["declared", "x"] and listed[0].endswith("[config]")


def test_a_declaration_that_does_not_check_out_is_named_and_left_out(tmp_path):
    jobs = [
        {
            "name": "Good",
            "schedule": {"kind": "every", "everyMs": 60000},
            "payload": {"kind": "agentTurn", "message": "hi"},
        },
        {
            "name": "Bad",
            "schedule": {"kind": "cron", "expr": "0 25 * * *"},
            "payload": {"kind": "agentTurn", "message": "hi"},
        },
    ]
    done = cli("cron", "list", state=_state(tmp_path, {"cron": {"jobs": jobs}}))
    assert done.returncode == 0 and done.stdout.startswith("good  Good  every 1m  next ")
    assert done.stderr == (
        "warning: cron.jobs[1]: cron expression '0 25 * * *': hour: 25 is out of range (0-23); that job is left out\n"
    )
