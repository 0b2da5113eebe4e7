"""sessions-tui against the REAL OpenClaw gateway (npm `openclaw`, 2026.9.6 by default).

`make test-openclaw` runs these; the default run leaves them out (marker `openclaw`). The gateway
is installed by `scripts/openclaw-gateway.sh install` (node 24 + openclaw from the npm registry,
~650 MB on first use, reused after that), then started once for this module on a free loopback
port, with a fresh state directory seeded from the recorded legacy store in
tests/fixtures/openclaw-2026.9.6/legacy-state (converted by `openclaw doctor`).

No model provider is configured: an operator `sessions.send` appends the user message to the
session's transcript, the run fails, and the gateway appends a `run-failed-before-reply`
custom message ~1–2 s later. That is the traffic followed here: by the `Follower` in this
process, by the dashboard, and by `sessions-tui import-openclaw --follow`.

Waiting is always for an observable condition with a deadline, never a bare sleep: the gateway
is another process and writes when it writes.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import queue
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import run_tool
from scenes import until as on_screen
from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.engine.config import parse_config
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.openclaw.follow import Follower
from sessions_tui.engine.openclaw.importer import import_openclaw
from sessions_tui.ui.app import SessionsApp
from sessions_tui.ui.widgets.transcript import MessageView
from ui_support import ordered_keys, text_of

pytestmark = pytest.mark.openclaw

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "openclaw-gateway.sh"
LEGACY = ROOT / "tests" / "fixtures" / "openclaw-2026.9.6" / "legacy-state"
GROUP = "agent:main:discord:group:123"
RUN_FAILED = "run-failed-before-reply"
DEADLINE_SECONDS = 30.0
INSTALL_TIMEOUT = 1800  # first use downloads ~650 MB
START_TIMEOUT = 240  # start-up takes 15–30 s here


def _script(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout)


def _check(done: subprocess.CompletedProcess[str], what: str) -> str:
    if done.returncode != 0:
        raise AssertionError(f"{what} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def text_of_message(message: dict[str, Any]) -> str:
    """A transcript message's text: string content, or its text blocks joined."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def wait_until(condition: Callable[[], Any], what: str, interval: float = 0.25) -> Any:
    """Poll `condition` every `interval` s until it is truthy; fail after DEADLINE_SECONDS."""
    end = time.monotonic() + DEADLINE_SECONDS
    while not (value := condition()):
        if time.monotonic() >= end:
            raise AssertionError(f"not within {DEADLINE_SECONDS:.0f} s: {what}")
        time.sleep(interval)
    return value


@dataclass
class Gateway:
    state: Path
    port: int
    token: str

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def send(self, key: str, message: str) -> str:
        """An operator `sessions.send` through the gateway's own CLI; returns the run id."""
        params = json.dumps({"key": key, "message": message})
        out = _check(
            _script(
                "call",
                "--state",
                str(self.state),
                "--port",
                str(self.port),
                "--token",
                self.token,
                "sessions.send",
                params,
                timeout=120,
            ),
            "sessions.send",
        )
        answer = json.loads(out)
        assert answer.get("status") == "started", answer
        return answer["runId"]

    def cli(self, *args: str) -> str:
        """OpenClaw's own CLI against this gateway (`openclaw-gateway.sh cli`), e.g. `devices approve ID`."""
        common = ("--state", str(self.state), "--port", str(self.port), "--token", self.token)
        return _check(_script("cli", *common, *args, timeout=120), f"openclaw {' '.join(args)}")

    def stop(self) -> None:
        _check(_script("stop", "--state", str(self.state), timeout=120), "openclaw-gateway.sh stop")

    def start_again(self) -> None:
        """The same gateway started again on its state directory and port (a restart, after `stop`)."""
        common = ("--state", str(self.state), "--port", str(self.port), "--token", self.token)
        _check(
            _script("start", *common, "--timeout", str(START_TIMEOUT - 30), timeout=START_TIMEOUT),
            "openclaw-gateway.sh start (again)",
        )

    def invoke(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """`POST /tools/invoke`: the tool's result details (what its text content holds as JSON)."""
        response = httpx.post(
            f"{self.url}/tools/invoke",
            json={"tool": tool, "args": args},
            headers={"Authorization": f"Bearer {self.token}"},
            timeout=30,
        )
        response.raise_for_status()
        body = response.json()
        assert body.get("ok") is True, body
        return json.loads(body["result"]["content"][0]["text"])

    def history(self, key: str) -> list[dict[str, Any]]:
        return self.invoke("sessions_history", {"sessionKey": key})["messages"]

    def wait_run_failed(self, key: str, run_id: str) -> None:
        """Until the gateway has written the run's `run-failed-before-reply`: the session is quiet again."""
        wait_until(
            lambda: any(_ends_run(m, run_id) for m in self.history(key)), f"the gateway's {RUN_FAILED} for run {run_id}"
        )


def _ends_run(message: dict[str, Any], run_id: str) -> bool:
    return (
        message.get("role") == "custom"
        and message.get("customType") == RUN_FAILED
        and (message.get("__openclaw") or {}).get("runId") == run_id
    )


@contextmanager
def started_gateway(tmp_path_factory: pytest.TempPathFactory, config: dict[str, Any] | None) -> Iterator[Gateway]:
    """A real gateway on a fresh state seeded from LEGACY (with `config` as its openclaw.json)."""
    _check(_script("install", timeout=INSTALL_TIMEOUT), "openclaw-gateway.sh install")
    base = tmp_path_factory.mktemp("openclaw")
    state = base / "state"
    port, token = _free_port(), f"interop-{secrets.token_hex(8)}"
    extra: list[str] = []
    if config is not None:
        path = base / "openclaw.json"
        path.write_text(json.dumps(config))
        extra = ["--config", str(path)]
    pid: int | None = None
    try:
        out = _check(
            _script(
                "start",
                "--state",
                str(state),
                "--port",
                str(port),
                "--token",
                token,
                "--seed-from",
                str(LEGACY),
                *extra,
                "--timeout",
                str(START_TIMEOUT - 30),
                timeout=START_TIMEOUT,
            ),
            "openclaw-gateway.sh start",
        )
        lines = out.strip().splitlines()
        assert lines[-2].startswith(f"ready http://127.0.0.1:{port} "), out
        pid = int(lines[-1])
        yield Gateway(state=state, port=port, token=token)
    finally:
        stopped = _script("stop", "--state", str(state), timeout=120)
        assert stopped.returncode == 0 or not state.exists(), stopped.stderr
    assert pid is None or not Path(f"/proc/{pid}").exists(), f"gateway pid {pid} still there after stop"


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    """The real gateway on a fresh, seeded state directory; stopped at teardown, whatever happened."""
    with started_gateway(tmp_path_factory, None) as started:
        yield started


def seeded_keys(engine: Engine) -> set[str]:
    """The canonical keys of the seeded legacy store (its `cron:job2` is stored bare)."""
    store = json.loads((LEGACY / "agents" / "main" / "sessions" / "sessions.json").read_text())
    return {engine.canonical(key) for key in store}


def new_engine(path: Path) -> Engine:
    return Engine(path, parse_config({})[0])


# -- a. following the gateway's store ---------------------------------------------------------------


def test_follower_brings_in_an_operator_send_and_the_failed_run(gateway: Gateway, make_engine) -> None:
    engine = make_engine()
    follower = Follower(engine.store, engine.canonical, gateway.state)
    try:
        first = follower.tick()
        assert first.first and first.failures == []
        assert set(first.report.changed) == seeded_keys(engine) and len(first.report.changed) == 10

        text = "hello from sessions-tui interop"
        run_id = gateway.send(GROUP, text)

        def tail() -> list[dict[str, Any]]:
            return run_tool(engine, "sessions_history", {"sessionKey": GROUP})["messages"]

        def followed(predicate: Callable[[list[dict[str, Any]]], bool]) -> Callable[[], bool]:
            def check() -> bool:
                tick = follower.tick()
                assert tick.failures == []
                return predicate(tail())

            return check

        wait_until(followed(lambda ms: any(text_of_message(m) == text for m in ms)), "the user message in the mirror")
        wait_until(followed(lambda ms: any(_ends_run(m, run_id) for m in ms)), f"the {RUN_FAILED} in the mirror")
    finally:
        follower.close()

    user, custom = tail()[-2:]
    assert user["role"] == "user" and text_of_message(user) == text
    assert custom["role"] == "custom" and custom["customType"] == RUN_FAILED
    assert custom["__openclaw"]["runId"] == run_id

    theirs = gateway.history(GROUP)[-2:]
    assert [(m["role"], text_of_message(m), m["__openclaw"]["id"]) for m in theirs] == [
        (m["role"], text_of_message(m), m["__openclaw"]["id"]) for m in (user, custom)
    ]
    assert theirs[1].get("customType") == RUN_FAILED


# -- b. sessions_list: the mirror and the gateway agree -----------------------------------------------


def test_sessions_list_matches_the_gateways(gateway: Gateway, tmp_path: Path) -> None:
    engine = new_engine(tmp_path / "mirror")
    try:
        report = import_openclaw(engine.store, engine.canonical, gateway.state)
        assert report.problems == []
        ours = run_tool(engine, "sessions_list", {"limit": 50})["sessions"]
        canonical = {engine.canonical(row["key"]): row for row in ours}
    finally:
        engine.close()
    theirs = {row["key"]: row for row in gateway.invoke("sessions_list", {"limit": 50})["sessions"]}

    assert set(canonical) == set(theirs)
    assert len(theirs) >= 10
    for key, row in theirs.items():
        assert (canonical[key]["kind"], canonical[key]["channel"]) == (row["kind"], row["channel"]), key
    # agent main's own sessions are shown the way the project shows them: `main`, bare cron/hook keys.
    shown = {row["key"] for row in ours}
    assert {"main", "cron:job1", "cron:job2", "hook:plain", GROUP} <= shown


# -- c. the dashboard ---------------------------------------------------------------------------------


async def test_dashboard_follows_the_gateway(gateway: Gateway, tmp_path: Path) -> None:
    engine = new_engine(tmp_path / "mirror")
    app = SessionsApp(LocalBackend(engine), openclaw=gateway.state)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.main_screen
        header = screen.query_one("#status-header")
        pane = screen.query_one("#transcript")

        until = functools.partial(on_screen, pilot, timeout=DEADLINE_SECONDS)

        await until(lambda: header.follow_root and GROUP in ordered_keys(app), "following, with the group shown")
        assert header.follow_root == str(gateway.state) and header.follow_failure == ""
        assert f"⇄ OpenClaw {gateway.state}" in text_of(header)

        # Not scenes.select(): its settle() waits for every worker, and the follow worker runs on.
        table = screen.query_one("#sessions")
        table.move_cursor(row=table.get_row_index(GROUP))
        await until(lambda: pane.key == GROUP and pane.query(MessageView), "the group's transcript open")
        shown = lambda: "\n".join(view.plain for view in pane.query(MessageView))  # noqa: E731
        assert "pong" in shown()

        text = f"hello dashboard {secrets.token_hex(4)}"
        run_id = await asyncio.to_thread(gateway.send, GROUP, text)
        await until(lambda: text in shown(), "the sent text in the transcript pane")
        assert pane.key == GROUP and not header.follow_failure
        await asyncio.to_thread(gateway.wait_run_failed, GROUP, run_id)


# -- d. the command line ------------------------------------------------------------------------------


def test_import_openclaw_follow_prints_the_new_lines(gateway: Gateway, tmp_path: Path) -> None:
    cli = Path(sys.executable).with_name("sessions-tui")  # the venv's console script
    entry = [str(cli)] if cli.exists() else [sys.executable, "-m", "sessions_tui"]
    command = [*entry, "import-openclaw", str(gateway.state), "--follow", "--state", str(tmp_path / "mirror")]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    seen: list[str] = []

    def next_line_matching(predicate: Callable[[str], bool], what: str) -> str:
        end = time.monotonic() + DEADLINE_SECONDS
        while True:
            try:
                line = lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"not within {DEADLINE_SECONDS:.0f} s: {what}; stdout so far: {seen}") from None
            if line is None:
                raise AssertionError(
                    f"sessions-tui exited ({proc.wait()}) before {what}; stdout: {seen}; "
                    f"stderr: {proc.stderr.read() if proc.stderr else ''}"
                )
            seen.append(line)
            if predicate(line):
                return line

    try:
        summary = next_line_matching(lambda line: line.startswith("imported "), "the import summary")
        assert summary.startswith("imported 10 sessions"), summary

        run_id = gateway.send(GROUP, f"hello follower {secrets.token_hex(4)}")
        # `+1 line` or `+3 lines`: counted as the follow line counts them (sessions_tui/counting.py)
        change = next_line_matching(lambda line: GROUP in line and bool(re.search(r" \+\d+ lines?$", line)), GROUP)
        assert change.split()[-2].startswith("+") and int(change.split()[-2][1:]) >= 1, change

        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
        reader.join(timeout=10)
        assert code == 0, proc.stderr.read() if proc.stderr else ""
        rest = []
        while (line := lines.get(timeout=5)) is not None:
            rest.append(line)
        assert rest[-1:] == ["stopped"], rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    gateway.wait_run_failed(GROUP, run_id)
