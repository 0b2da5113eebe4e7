"""Running the command line as a real process, and reading the one line a refusal prints (the
command line's tests and the store's damage tests share them)."""

from __future__ import annotations

import hashlib
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

GUARD = 60  # seconds: only there so a regression fails instead of hanging the suite
FAST = "{ models: { demo: { latencyMs: 0, chunkMs: 0 } } }"


def cli(
    *args: str,
    state: Path | None = None,
    input: str | bytes | None = None,
    env_extra: dict[str, str] | None = None,
    terminal: bool = False,
) -> subprocess.CompletedProcess[str]:
    """`sessions-tui ARGS` in a process of its own; `terminal`: its stdin and stdout a pseudo-terminal
    (what the dashboard needs before it does anything), its stderr captured."""
    env = {k: v for k, v in os.environ.items() if k not in ("SESSIONS_TUI_HOME", "SESSIONS_TUI_CONFIG")}
    env.update(env_extra or {})
    argv = [sys.executable, "-m", "sessions_tui", *(["--state", str(state)] if state else []), *args]
    if terminal:
        leader, follower = pty.openpty()
        try:
            proc = subprocess.run(argv, stdin=follower, stdout=follower, stderr=subprocess.PIPE, env=env, timeout=GUARD)
        finally:
            os.close(follower)
            os.close(leader)
        return subprocess.CompletedProcess(proc.args, proc.returncode, "", proc.stderr.decode())
    if isinstance(input, bytes):
        proc = subprocess.run(argv, capture_output=True, input=input, env=env, timeout=GUARD)
        return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())
    return subprocess.run(argv, capture_output=True, text=True, input=input, env=env, timeout=GUARD)


def one_error_line(stderr: str) -> str:
    """The single line a refusal prints, checked to be a line of ours and no traceback."""
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr
    assert stderr.startswith("sessions-tui: ") and "Traceback" not in stderr
    return stderr.removeprefix("sessions-tui: ").rstrip("\n")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def as_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the dashboard command in this process as if on a terminal (pytest's stdin and stdout are
    none): for the tests that replace `SessionsApp.run` and look at what the command did around it."""
    from sessions_tui.cli.commands import dashboard

    monkeypatch.setattr(dashboard, "on_a_terminal", lambda: True)
