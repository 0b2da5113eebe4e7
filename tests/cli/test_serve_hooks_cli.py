"""End to end: `sessions-tui serve` with `hooks.enabled`, a hook posted from another program (httpx, as
`curl` would), and the run it started seen from outside: on the server's event stream as it
arrives, and in `sessions_list` from a separate `sessions-tui tool` process on the same state."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from cli_support import GUARD
from conftest import FAST_DEMO
from server_support import TOKEN

HOOK_TOKEN = "hook-secret-42"


@contextmanager
def serving(state: Path, config: dict[str, object]) -> Iterator[str]:
    """`sessions-tui serve --port 0` on `state` with `config`, once ready; its base URL."""
    state.mkdir(parents=True)
    (state / "config.json5").write_text(json.dumps(config))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    env |= {"SESSIONS_TUI_TOKEN": TOKEN, "SESSIONS_TUI_CONFIG": str(state / "config.json5")}
    argv = [sys.executable, "-m", "sessions_tui", "--state", str(state), "serve", "--port", "0"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    guard = threading.Timer(GUARD, proc.kill)  # only there so a regression fails instead of hanging
    guard.start()
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("sessions-tui serve: http://127.0.0.1:"), (line, proc.stderr and proc.stderr.read())
        url = line.split()[2]
        assert line.rstrip().endswith(f"; hooks at {url}/hooks/agent and /wake)"), line  # where to post
        yield url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.wait(GUARD)
        guard.cancel()


def _events(url: str) -> Iterator[dict[str, object]]:
    """The server's event stream, subscribed to before this returns."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    conn = socket.create_connection((host, int(port)), timeout=GUARD)
    conn.sendall(f"GET /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n\r\n".encode())
    reader = conn.makefile("rb")
    assert reader.readline().split()[1] == b"200"
    while reader.readline() not in (b"\r\n", b""):  # the rest of the head: the stream is open
        pass
    return (json.loads(line.removeprefix(b"data: ")) for line in reader if line.startswith(b"data: "))


def test_a_posted_hook_runs_and_shows_up_in_sessions_list(tmp_path):
    state = tmp_path / "state"
    config = {**FAST_DEMO, "hooks": {"enabled": True, "token": HOOK_TOKEN}}
    with serving(state, config) as url:
        stream = _events(url)
        with httpx.Client(base_url=url, timeout=GUARD) as client:
            refused = client.post("/hooks/agent", json={"message": "x"}, headers={"authorization": f"Bearer {TOKEN}"})
            assert refused.status_code == 401  # the gateway's token is not the hooks'
            answer = client.post(
                "/hooks/agent",
                json={"message": "The nightly import completed.", "name": "Nightly import", "waitForCompletion": True},
                headers={"authorization": f"Bearer {HOOK_TOKEN}", "idempotency-key": "nightly-2026-04-13"},
            )
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["ok"] is True and body["completion"] == {"status": "ok", "replyDisposition": "visible"}
        received = next(e for e in stream if e.get("type") == "hook_received")
        assert received["name"] == "Nightly import" and received["run_id"] == body["runId"]
        key = received["session_key"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    listed = subprocess.run(
        [sys.executable, "-m", "sessions_tui", "--state", str(state), "tool", "sessions_list"],
        capture_output=True,
        text=True,
        env=env,
        timeout=GUARD,
    )
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)["sessions"]
    [row] = [r for r in rows if r["key"] == key.removeprefix("agent:main:")]
    assert row["kind"] == "hook" and row["displayName"] == "Nightly import"


def test_watch_says_a_hook_arriving_in_one_line():
    from sessions_tui.backend.values.vocabulary import HookReceived
    from sessions_tui.cli.watching.lines import event_record

    def shown(key: str) -> str:
        return key.removeprefix("agent:main:")

    event = HookReceived(ts=0, session_key="agent:main:hook:1", name="Nightly sk-secret", run_id="0123456789ab")
    record = event_record(event, shown=shown, redact=lambda text: text.replace("sk-secret", "***"), now=0)
    assert record.text_line() == "00:00:00.000  hook      hook:1  Nightly *** received, run 01234567"
    wake = HookReceived(ts=0, session_key="agent:main:main", name="Wake", kind="wake")
    assert event_record(wake, shown=shown, redact=str, now=0).text_line().endswith("main  Wake received (a wake)")
