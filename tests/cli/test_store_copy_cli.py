"""`sessions-tui store copy`: the demo's store to PostgreSQL and back into a new directory, each table's count
printed and equal; a target holding sessions refused naming it, a password in a URL refused, bad input one line
(exit 2). It runs while the other commands still refuse PostgreSQL."""

import json
import re

import pytest

from cli_support import cli, one_error_line
from sessions_tui.engine.store.copy import TABLES

SECRET = "hunter2-s3cret"


def _demo(tmp_path):
    state = tmp_path / "demo"
    done = cli("demo", state=state)
    assert done.returncode == 0, done.stderr
    return state


def test_the_demo_goes_to_postgresql_and_back_with_every_count_equal(tmp_path, pg_url):
    state = _demo(tmp_path)
    there = cli("store", "copy", "--from", str(state), "--to", pg_url, "--json")
    assert there.returncode == 0, there.stderr
    tables = json.loads(there.stdout)["tables"]
    assert [t["table"] for t in tables] == list(TABLES) and json.loads(there.stdout)["equal"] is True
    counts = {t["table"]: t["source"] for t in tables}
    assert counts["sessions"] > 0 and counts["transcript"] > 0 and counts["runs"] > 0
    back = cli("store", "copy", "--from", pg_url, "--to", str(tmp_path / "back"))
    assert back.returncode == 0, back.stderr
    assert back.stdout.rstrip().endswith("every count equal")
    n = counts["sessions"]
    assert re.search(rf"^sessions +{n} +{n}$", back.stdout, re.MULTILINE), back.stdout
    config = str(state / "config.json5")
    history = [
        cli("--config", config, "tool", "sessions_history", '{"sessionKey": "main", "limit": 50}', state=where)
        for where in (state, tmp_path / "back")
    ]
    assert history[0].returncode == 0 and '"messages"' in history[0].stdout
    assert history[0].stdout == history[1].stdout


def test_a_target_holding_sessions_is_refused_naming_it(tmp_path, pg_url):
    state = _demo(tmp_path)
    assert cli("store", "copy", "--from", str(state), "--to", pg_url).returncode == 0
    again = cli("store", "copy", "--from", str(state), "--to", pg_url)
    assert again.returncode == 2
    line = one_error_line(again.stderr)
    assert line.startswith(f"--to: {pg_url}: it already holds ") and "sessions" in line
    into_dir = cli("store", "copy", "--from", pg_url, "--to", str(state))
    assert into_dir.returncode == 2
    assert one_error_line(into_dir.stderr).startswith(f"--to: {state}: it already holds ")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--to", f"postgresql://me:{SECRET}@db.example/s"], "--to: the URL holds a password"),
        (["--to", "mysql://h/db"], "store copy: give one state DIR and one postgresql://"),
        (["--to", "DIR2"], "store copy: give one state DIR and one postgresql://"),
    ],
)
def test_bad_locations_are_one_line(tmp_path, args, said):
    done = cli("store", "copy", "--from", str(tmp_path), *args)
    assert done.returncode == 2 and SECRET not in done.stderr + done.stdout
    assert one_error_line(done.stderr).startswith(said)


def test_a_source_directory_without_a_store_is_named(tmp_path):
    done = cli("store", "copy", "--from", str(tmp_path / "none"), "--to", "postgresql://h/db")
    assert done.returncode == 2
    assert one_error_line(done.stderr).startswith(f"--from: {tmp_path / 'none'} holds no sessions-tui store")


def test_an_unreachable_database_is_one_line(tmp_path):
    state = _demo(tmp_path)
    done = cli("store", "copy", "--from", str(state), "--to", "postgresql://127.0.0.1:1/nothing?connect_timeout=2")
    assert done.returncode == 2
    assert one_error_line(done.stderr).startswith("--to: postgresql://127.0.0.1:1/nothing")


def test_a_count_that_differs_exits_1_naming_the_table(monkeypatch, capsys):
    from sessions_tui.backend.toolkit.store_copy import CopyReport, TableCount
    from sessions_tui.cli import main
    from sessions_tui.cli.commands import store

    report = CopyReport((TableCount("sessions", 3, 3), TableCount("transcript", 9, 8)))
    monkeypatch.setattr(store, "copy_between", lambda source, target: report)
    assert main(["store", "copy", "--from", "a", "--to", "postgresql://h/db"]) == 1
    out, err = capsys.readouterr()
    assert err == "sessions-tui: store copy: the counts differ in transcript\n"
    assert "transcript          9          8  DIFFERS" in out
