"""The dashboard's backend on a real OpenClaw gateway's WebSocket: how soon events show, and what idling costs.

One gateway (`scripts/openclaw-gateway.sh start`, seeded from the fixture's legacy store, token auth),
measured in one run:

1. Event latency. A bare protocol client (`backend.gateway.link.connection.GatewayClient`: frames parsed
   and dispatched, nothing else) and `sessions-tui --remote ws://… watch --json --session <group>`
   (a subprocess, as a script runs it) follow the same gateway. The bare client sends `chat.send`
   into the group session `SENDS` times, `GAP_S` apart (each run fails at once for want of a model
   provider; the message is in the transcript all the same). For each message, the latency is when
   its `session.message` event (the bare client) or its `message_appended` line (`watch`) arrived
   here minus the message's own `timestamp` (the gateway's clock, this machine's): the bare client's
   is the floor, `watch`'s is ours.
2. A message sent through the gateway's own CLI (`openclaw gateway call sessions.send`), to when
   `watch` prints it, from when the CLI call returned (`CLI_SENDS` times).
3. Idle for `IDLE_S` seconds with nothing happening: the requests the socket backend sends (one
   in this process, its roster subscribed and a transcript open, every frame tapped) and the CPU of
   the `watch` process beside it (share of one core).

Requirements: event latency p50 at most 1.2x the floor's and under 150 ms; a CLI-sent message shown
under 300 ms p50 after the call returns; no request beyond the keep-alive over 60 s idle; under 1 %
of a core idle. Without the gateway installed the verdict is FAIL (not run).

Run: .venv/bin/python bench/gateway_live_bench.py
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _common import ROOT, verdicts
from _gateway import gateway_call, gateway_installed, start_gateway, stop_gateway

from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.gateway.link.connection import GatewayClient, GatewayOptions
from sessions_tui.backend.gateway.link.frames import EventFrame

TOKEN = "gateway-live-bench-" + secrets.token_hex(6)
GROUP = "agent:main:discord:group:123"
MAIN = "agent:main:main"
SENDS, GAP_S = 20, 1.5  # a run ends (fails) within the gap: a message sent during one would steer it
CLI_SENDS = 8
IDLE_S = 60.0


def now_ms() -> float:
    return time.time() * 1000


def environment(config_home: Path) -> dict[str, str]:
    # As an installed program runs: with its `.pyc` files (as startup_bench.py), whatever
    # PYTHONDONTWRITEBYTECODE says here (compiling every module afresh costs a start ~0.2 s of CPU).
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(ROOT / "src"), XDG_CONFIG_HOME=str(config_home), SESSIONS_TUI_TOKEN=TOKEN)
    return env


class Watch:
    """`sessions-tui --remote URL watch --json` in a subprocess; each line with when it arrived."""

    def __init__(self, url: str, config_home: Path, *extra: str) -> None:
        ws = url.replace("http://", "ws://")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "sessions_tui", "--remote", ws, "watch", "--json", *extra],
            env=environment(config_home),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: list[tuple[float, dict[str, Any]]] = []
        self.changed = threading.Condition()
        self.watching = threading.Event()
        self.said: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace")
            self.said.append(line)
            if line.startswith("watching "):
                self.watching.set()

    def started(self, timeout: float) -> bool:
        """Whether it said it is watching (connected, subscribed) within `timeout` seconds."""
        return self.watching.wait(timeout)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            at = now_ms()
            with contextlib.suppress(ValueError):
                line = json.loads(raw)
                with self.changed:
                    self.lines.append((at, line))
                    self.changed.notify_all()

    def wait_for(self, predicate: Any, timeout: float) -> tuple[float, dict[str, Any]] | None:
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for at, line in self.lines:
                    if predicate(line):
                        return at, line
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.changed.wait(left)

    def stop(self) -> str:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return "".join(self.said)


def message_text(content: Any) -> str | None:
    """A transcript message's text: string content, or its text blocks joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return None


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def p50(samples: list[float]) -> float:
    return statistics.median(samples) if samples else float("nan")


async def floor_and_watch(url: str, config_home: Path) -> tuple[list[float], list[float]]:
    """Latencies (ms) of each sent message's `session.message` event, from the message's own
    `timestamp` (the gateway's clock, which is this machine's) to its arrival: the bare client's,
    then `watch`'s (its `message_appended` line carries the same timestamp)."""
    floor: dict[str, float] = {}

    def on_message(frame: EventFrame) -> None:
        payload = frame.payload if isinstance(frame.payload, dict) else {}
        message = payload.get("message") if isinstance(payload.get("message"), dict) else {}
        text, ts = message_text(message.get("content")), message.get("timestamp")
        if isinstance(text, str) and text.startswith("bench ") and isinstance(ts, int):
            floor.setdefault(text, now_ms() - ts)

    client = GatewayClient(GatewayOptions(url=url, token=TOKEN, identity_dir=config_home / "bare"))
    client.subscribe("session.message", on_message)
    await client.start()
    await client.request("sessions.subscribe", {"limit": 50, "sortBy": "activity"})
    await client.request("sessions.messages.subscribe", {"key": GROUP})
    watch = Watch(url, config_home, "--session", GROUP)
    try:
        if not await asyncio.to_thread(watch.started, 60):
            raise SystemExit(f"FAIL: watch did not start in 60 s: {watch.stop()[-800:]}")
        for n in range(SENDS):
            await client.request(
                "chat.send", {"sessionKey": GROUP, "message": f"bench {n}", "idempotencyKey": secrets.token_hex(8)}
            )
            await asyncio.sleep(GAP_S)
        await asyncio.to_thread(watch.wait_for, lambda line: line.get("text") == f"bench {SENDS - 1}", 10)
    finally:
        err = watch.stop()
        await client.close()
    ours: dict[str, float] = {}
    for at, line in watch.lines:
        text, ts = line.get("text"), line.get("ts")
        if line.get("type") == "message_appended" and isinstance(text, str) and isinstance(ts, int):
            ours.setdefault(text, at - ts)
    shared = sorted(set(floor) & set(ours))
    if len(shared) < SENDS // 2:
        raise SystemExit(
            f"FAIL: {len(shared)} messages seen by both (floor {len(floor)}, watch {len(ours)}): {err[-800:]}"
        )
    return [floor[k] for k in shared], [ours[k] for k in shared]


def cli_sends(url: str, state: Path, config_home: Path) -> list[float]:
    """From `openclaw gateway call sessions.send` returning to `watch` printing the message (ms)."""
    watch = Watch(url, config_home)
    out: list[float] = []
    try:
        if not watch.started(60):
            raise SystemExit(f"FAIL: watch did not start in 60 s: {watch.stop()[-800:]}")
        for n in range(CLI_SENDS):
            text = f"from the gateway's own CLI {n} {secrets.token_hex(3)}"
            gateway_call(state, "sessions.send", json.dumps({"key": MAIN, "message": text}))
            returned = now_ms()
            seen = watch.wait_for(lambda line, t=text: t in json.dumps(line), 10)
            if seen is None:
                raise SystemExit(f"FAIL: watch never printed {text!r}: {watch.stop()[-800:]}")
            out.append(max(0.0, seen[0] - returned))
    finally:
        watch.stop()
    return out


async def idle(url: str, config_home: Path) -> tuple[int, list[str], float]:
    """Requests the socket backend sends while idle (a backend in this process, its frames
    tapped), which, and the CPU share (%) of a `watch` process beside it."""
    from sessions_tui.backend.gateway.live import GatewaySocketBackend

    sent: list[str] = []

    def tap(direction: str, text: str) -> None:
        if direction == ">":
            frame = json.loads(text)
            if frame.get("type") == "req":
                sent.append(str(frame.get("method")))

    watch = Watch(url, config_home)
    backend = GatewaySocketBackend(
        url.replace("http://", "ws://"), TOKEN, identity_dir=config_home / "idle-id", tap=tap
    )
    try:
        await backend.connect()
        await backend.call_tool("sessions_history", {"sessionKey": MAIN}, Requester())  # a transcript open
        if not await asyncio.to_thread(watch.started, 60):
            raise SystemExit(f"FAIL: watch did not start in 60 s: {watch.stop()[-800:]}")
        await asyncio.sleep(3.0)  # settled
        sent.clear()
        cpu0, t0 = cpu_seconds(watch.proc.pid), time.monotonic()
        await asyncio.sleep(IDLE_S)
        cpu1, t1 = cpu_seconds(watch.proc.pid), time.monotonic()
    finally:
        watch.stop()
        await backend.aclose()
    return len(sent), sent, 100 * (cpu1 - cpu0) / (t1 - t0)


def main() -> int:
    if not gateway_installed():
        print("gateway not installed (scripts/openclaw-gateway.sh install): not run")
        return verdicts([(False, "the real gateway is installed")])
    tmp = Path(tempfile.mkdtemp(prefix="gateway-live-bench-"))
    state = tmp / "gateway"
    try:
        url, ready_s, _ = start_gateway(state, TOKEN)
        print(f"gateway: ready {ready_s:.1f} s after spawn ({url})")
        floor, ours = asyncio.run(floor_and_watch(url, tmp / "config"))
        print(
            f"event latency (session.message, n={len(ours)}): bare client p50 {p50(floor):6.1f} ms,"
            f" watch p50 {p50(ours):6.1f} ms ({p50(ours) / p50(floor):.2f}x)"
        )
        cli = cli_sends(url, state, tmp / "config")
        print(f"CLI-sent message to watch (n={len(cli)}): p50 {p50(cli):6.1f} ms, max {max(cli):6.1f} ms")
        count, which, cpu = asyncio.run(idle(url, tmp / "config"))
        print(f"idle {IDLE_S:.0f} s: {count} requests {sorted(set(which))}, watch CPU {cpu:.2f} % of a core")
    finally:
        stop_gateway(state)
    return verdicts(
        [
            (
                p50(ours) <= 1.2 * p50(floor),
                f"event latency p50 {p50(ours):.1f} ms <= 1.2x the floor's {p50(floor):.1f} ms",
            ),
            (p50(ours) < 150, f"event latency p50 {p50(ours):.1f} ms < 150 ms"),
            (p50(cli) < 300, f"a CLI-sent message shown p50 {p50(cli):.1f} ms < 300 ms"),
            (count == 0, f"{count} requests over {IDLE_S:.0f} s idle (none)"),
            (cpu < 1.0, f"idle CPU {cpu:.2f} % < 1 %"),
        ]
    )


if __name__ == "__main__":
    raise SystemExit(main())
