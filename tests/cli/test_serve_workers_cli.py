"""`serve --workers N` on the command line: a value that is no number of processes, and a port in
use with several workers, are each one line and exit 2, with nothing served; the help says what
differs with more than one worker."""

from __future__ import annotations

import socket

import pytest

from cli_support import cli, one_error_line


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5", "", " ", "２"])
def test_a_bad_number_of_workers_is_one_line(tmp_path, value):
    proc = cli("serve", "--port", "0", "--workers", value, state=tmp_path / "s")
    assert proc.returncode == 2 and proc.stdout == ""
    line = one_error_line(proc.stderr)
    assert line.startswith("serve: --workers ") and line.endswith(
        "not a number of processes (a whole number, 1 or more)"
    )
    assert not (tmp_path / "s").exists()  # refused before the state directory is opened


def test_a_port_in_use_with_several_workers_is_one_line(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = cli("serve", "--port", str(port), "--workers", "2", state=tmp_path / "s")
    assert proc.returncode == 2 and proc.stdout == ""
    assert one_error_line(proc.stderr).startswith(f"serve: cannot listen on 127.0.0.1:{port}: Address already in use")


def test_the_help_says_what_differs_with_several_workers(tmp_path):
    proc = cli("serve", "--help")
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    assert "--workers N" in text and "reach the /events readers connected to that worker" in text
    assert "The token lockout counts per worker" in text
