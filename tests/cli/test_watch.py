"""`sessions-tui watch`: what other processes do to a state directory (or a server's), as it happens,
one line each; `--session` keeps one session's; texts redacted and control characters neutralised;
Ctrl+C, SIGTERM and a reader that goes away end it with exit 0. Each test synchronises on the lines
watch prints (its stderr says when it watches), never on a sleep."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from cli_support import GUARD
from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.local.backend import open_local
from sessions_tui.backend.values.vocabulary import RunEnded, RunStarted, RunStreamed, SendProgress
from sessions_tui.cli.commands.watch import Watcher
from sessions_tui.cli.watching.lines import Record

DEV = "agent:main:discord:group:dev"
SECRET = "sk-abcdefghijklmnopqrstuvwxyz123456"
TOKEN = "watch-token-5c1e"
FAST = "{ models: { demo: { latencyMs: 0, chunkMs: 0 } }, gateway: { tools: { allow: ['sessions_send'] } } }"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    env["SESSIONS_TUI_TOKEN"] = TOKEN
    return env


def sessions_tui(*args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "sessions_tui", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=_env(), timeout=GUARD)


@pytest.fixture
def state(tmp_path: Path) -> Path:
    """A demo state directory on the zero-latency demo model."""
    state = tmp_path / "state"
    state.mkdir()
    (state / "config.json5").write_text(FAST)
    assert sessions_tui("--state", str(state), "demo").returncode == 0
    return state


class Watching:
    """A `watch` process and the lines it prints, read by a thread of their own."""

    def __init__(self, proc: subprocess.Popen[str], *, read: bool) -> None:
        self.proc = proc
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        if read:
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def until(self, done: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
        """The JSON lines printed, read until `done` says they are enough."""
        records: list[dict[str, Any]] = []
        while not done(records):
            line = self.lines.get(timeout=GUARD)
            assert line is not None, f"watch ended: {self.seen} {self.proc.stderr and self.proc.stderr.read()}"
            self.seen.append(line)
            records.append(json.loads(line))
        return records

    def stop(self, signum: int = signal.SIGINT) -> tuple[int, str]:
        self.proc.send_signal(signum)
        _, err = self.proc.communicate(timeout=GUARD)
        return self.proc.returncode, err


@contextmanager
def watching(*args: str, read: bool = True) -> Iterator[Watching]:
    """`sessions-tui ARGS… watch …` running, once it says it watches, its lines read as they come
    (`read`); killed at the end if still there."""
    argv = [sys.executable, "-m", "sessions_tui", *args]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    guard = threading.Timer(GUARD, proc.kill)  # only there so a regression fails instead of hanging
    guard.start()
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        assert first.startswith("watching "), first + proc.stderr.read()
        yield Watching(proc, read=read)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(GUARD)
        guard.cancel()


def ended(key: str) -> Callable[[list[dict[str, Any]]], bool]:
    """Enough once the session's run ended and its reply was read."""

    def done(records: list[dict[str, Any]]) -> bool:
        mine = [r for r in records if r["session"] == key]
        return any(r["type"] == "run_ended" for r in mine) and any(
            r["type"] == "message_appended" and r["role"] == "assistant" for r in mine
        )

    return done


def test_watch_prints_another_process_s_send_redacted_and_exits_0_on_ctrl_c(state):
    message = f"deploy now {SECRET} \x1b]0;owned\x07 \u202e done"
    with watching("--state", str(state), "watch", "--json") as watch:
        sent = sessions_tui("--state", str(state), "send", DEV, message)
        assert sent.returncode == 0, sent.stderr
        records = watch.until(ended(DEV))
        status, err = watch.stop(signal.SIGINT)
    assert status == 0 and "Traceback" not in err
    raw = "".join(watch.seen)
    assert SECRET not in raw and "sk-abc…3456" in raw
    assert "\x1b" not in raw and "\x07" not in raw and "\u202e" not in raw  # escaped: \u001b, \u202e
    assert all(set(r) >= {"ts", "type", "session"} and isinstance(r["ts"], int) for r in records)
    user = next(r for r in records if r["type"] == "message_appended" and r["role"] == "user")
    assert user["text"] == "deploy now sk-abc…3456 \x1b]0;owned\x07 \u202e done"  # the value, parsed back
    assert any(r["type"] == "session_changed" and "status" in r["changes"] for r in records)
    assert next(r for r in records if r["type"] == "run_ended")["status"] == "done"


def test_watch_session_keeps_one_session_s_lines_as_text_and_ends_on_sigterm(state):
    with watching("--state", str(state), "watch", "--session", "main") as watch:
        assert sessions_tui("--state", str(state), "send", DEV, "not for main").returncode == 0
        assert sessions_tui("--state", str(state), "send", "main", "for main \x1b[2J\u200b").returncode == 0
        lines: list[str] = []
        while not any("  main  ended: " in line for line in lines):
            line = watch.lines.get(timeout=GUARD)
            assert line is not None, lines
            lines.append(line)
        status, err = watch.stop(signal.SIGTERM)
    assert status == 0 and "Traceback" not in err
    assert lines and all("  main  " in line for line in lines), lines
    assert not any("dev" in line for line in lines)
    said = next(line for line in lines if "user: for main" in line)
    assert "for main ␛[2J⟨U+200B⟩" in said and "\x1b" not in said


def test_a_reader_that_goes_away_ends_watch_quietly(state):
    with watching("--state", str(state), "watch", "--json", read=False) as watch:
        assert sessions_tui("--state", str(state), "send", "main", "one").returncode == 0
        assert watch.proc.stdout is not None
        assert watch.proc.stdout.readline()
        watch.proc.stdout.close()  # `watch | head -1`: the reader has had its line
        assert sessions_tui("--state", str(state), "send", "main", "two").returncode == 0
        assert watch.proc.wait(GUARD) == 0
        assert watch.proc.stderr is not None
        assert "Traceback" not in watch.proc.stderr.read()


def test_watch_over_remote_prints_the_server_s_events(state):
    argv = [sys.executable, "-m", "sessions_tui", "--state", str(state), "serve", "--port", "0"]
    server = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    guard = threading.Timer(GUARD, server.kill)
    guard.start()
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert line.startswith("sessions-tui serve: http://127.0.0.1:"), line
        url = line.split()[2]
        with watching("--remote", url, "watch", "--json", "--session", DEV) as watch:
            sent = sessions_tui("--remote", url, "send", DEV, f"over the wire {SECRET}")
            assert sent.returncode == 0, sent.stderr
            records = watch.until(ended(DEV))
            status, _ = watch.stop()
        assert status == 0
        assert SECRET not in "".join(watch.seen)
        started = next(r for r in records if r["type"] == "run_started")
        assert started["run_id"]  # the server's own event, not a store change
        assert all(r["session"] == DEV for r in records)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(GUARD)
        guard.cancel()


async def test_streamed_text_is_printed_only_as_its_redaction_shows_it(tmp_path):
    (tmp_path / "config.json5").write_text("{}")
    backend = open_local(tmp_path / "state", tmp_path / "config.json5")
    try:
        out: list[str] = []

        class Out:
            def write(self, text: str) -> None:
                out.append(text)

            def flush(self) -> None:
                pass

            def isatty(self) -> bool:
                return False

        watcher = Watcher(backend, Requester(), None, Out(), as_json=True)  # type: ignore[arg-type]
        run = {"run_id": "r1", "session_key": DEV}
        events = [
            RunStarted(ts=1, **run),
            RunStreamed(ts=2, delta="the key is " + SECRET[:10], **run),
            RunStreamed(ts=3, delta=SECRET[10:] + " \x1b[31mred ", **run),
            SendProgress(ts=4, run_id="r1", target_key=DEV, phase="reply", text=f"said {SECRET}"),
            RunEnded(ts=5, status="ok", **run),
        ]
        watcher.streamed.every_s = 0  # type: ignore[union-attr]  # every delta redacted as it comes
        records: list[Record] = []
        for event in events:
            records += await watcher.records_of(event)
        for record in records:
            watcher.emit(record)
    finally:
        await backend.aclose()
    assert [r.type for r in records] == ["run_started", "run_streamed", "run_streamed", "send_progress", "run_ended"]
    shown = "".join(r.fields["delta"] for r in records if r.type == "run_streamed")
    assert shown == "the key is sk-abc…3456 \x1b[31mred "
    assert SECRET not in "".join(out) and "\x1b" not in "".join(out)
    assert records[3].fields["text"] == "said sk-abc…3456" and records[3].session == DEV


def test_watch_openclaw_follows_it_and_prints_what_it_writes(tmp_path):
    root = tmp_path / "openclaw"
    shutil.copytree(Path(__file__).parent.parent / "fixtures" / "openclaw-2026.9.6" / "legacy-state", root)
    transcript = root / "agents" / "main" / "sessions" / "11111111-1111-4111-8111-111111111111.jsonl"
    with watching("--openclaw", str(root), "--state", str(tmp_path / "mirror"), "watch", "--json") as watch:
        assert watch.until(lambda records: bool(records))[0]["type"] == "follow_status"
        line = {
            "type": "message",
            "id": "w1",
            "parentId": "1111000c",
            "timestamp": "2026-11-21T23:00:00.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": f"later {SECRET}"}], "timestamp": 2**41},
        }
        with transcript.open("a") as file:
            file.write(json.dumps(line) + "\n")
        records = watch.until(lambda records: any(r["type"] == "message_appended" for r in records))
        assert watch.stop()[0] == 0
    message = records[-1]
    assert message["session"] == "main" and message["text"] == "later sk-abc…3456"
