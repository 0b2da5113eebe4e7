"""`--store` (and `$SESSIONS_TUI_STORE`): a PostgreSQL URL with a password, or a bad one, is refused with
one line (exit 2) that never repeats the password; a good one that cannot be reached says so in one line; one that
can runs the command on PostgreSQL."""

import json
from pathlib import Path

import pytest

from cli_support import cli, one_error_line

SECRET = "hunter2-s3cret"


def refusal(tmp_path, *args: str, env: dict[str, str] | None = None) -> str:
    done = cli(*args, "tool", "sessions_list", state=tmp_path, env_extra=env)
    assert done.returncode == 2, done.stderr
    assert SECRET not in done.stderr + done.stdout
    return one_error_line(done.stderr)


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://me:{SECRET}@db.example/sessions",
        f"postgresql://db.example/sessions?password={SECRET}",
        f"postgres://me:{SECRET}@db.example:5432/sessions?sslmode=require",
    ],
)
def test_a_url_holding_a_password_is_refused_without_repeating_it(tmp_path, url):
    line = refusal(tmp_path, "--store", url)
    assert line.startswith("--store: the URL holds a password; give it in PGPASSWORD or a password file")


def test_the_environment_s_location_is_named_as_where_it_came_from(tmp_path):
    line = refusal(tmp_path, env={"SESSIONS_TUI_STORE": f"postgresql://me:{SECRET}@h/db"})
    assert line.startswith("$SESSIONS_TUI_STORE: the URL holds a password")


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("mysql://h/db", "not a store location"),
        ("postgresql://h:99999/db", "its port is not a number from 1 to 65535"),
        ("postgresql://h:x/db", "its port is not a number"),
        ("postgresql://h", "names no database"),
        ("postgresql://h/a/b", "database name holds a '/'"),
    ],
)
def test_a_bad_url_is_refused_naming_what_is_wrong(tmp_path, url, said):
    assert said in refusal(tmp_path, "--store", url)


def test_a_database_that_cannot_be_reached_is_one_line_naming_it(tmp_path):
    line = refusal(tmp_path, "--store", "postgresql://me@127.0.0.1:9/sessions")
    assert line.startswith("postgresql://127.0.0.1:9/sessions: cannot open the PostgreSQL store: ")
    assert "me@" not in line
    assert not (tmp_path / "sessions.sqlite3").exists()


def test_a_command_runs_on_postgresql_and_leaves_no_sqlite_file(tmp_path, pg_url):
    made = cli("--store", pg_url, "session", "new", "agent:main:ops", state=tmp_path)
    assert made.returncode == 0, made.stderr
    listed = cli("--store", pg_url, "tool", "sessions_list", state=tmp_path / "another-host")
    assert listed.returncode == 0, listed.stderr
    assert "agent:main:ops" in listed.stdout
    assert not (tmp_path / "sessions.sqlite3").exists()


def test_sqlite_is_the_default_and_can_be_named(tmp_path):
    done = cli("--store", "sqlite", "tool", "sessions_list", state=tmp_path)
    assert done.returncode == 0, done.stderr


def configured(state: Path, location: str) -> Path:
    state.mkdir(parents=True, exist_ok=True)
    (state / "config.json5").write_text(json.dumps({"store": {"location": location}}))
    return state


def test_the_config_s_store_location_is_used_when_no_flag_or_variable_says(tmp_path, pg_url):
    made = cli("--store", pg_url, "session", "new", "agent:main:ops", state=tmp_path / "one")
    assert made.returncode == 0, made.stderr
    listed = cli("tool", "sessions_list", state=configured(tmp_path / "two", pg_url))
    assert listed.returncode == 0, listed.stderr
    assert "agent:main:ops" in listed.stdout
    local = cli("--store", "sqlite", "tool", "sessions_list", state=tmp_path / "two")  # named: the config yields
    assert local.returncode == 0, local.stderr
    assert "agent:main:ops" not in local.stdout


def test_a_config_location_holding_a_password_is_one_line_naming_the_file(tmp_path):
    state = configured(tmp_path, f"postgresql://me:{SECRET}@db.example/sessions")
    line = refusal(tmp_path)
    assert line.startswith(f"{state / 'config.json5'}: store.location: the URL holds a password")
