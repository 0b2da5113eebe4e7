"""The dashboard's backend on a real OpenClaw gateway's WebSocket: how soon events show, and what idling costs.

One gateway (`scripts/openclaw-gateway.sh start`, seeded from the fixture's legacy store, token auth),
measured in one run:

1. Event latency. A bare protocol client (`backend.gateway.connection.GatewayClient`: frames parsed
   and dispatched, nothing else) and `sessions-tui --remote ws://… watch --json` (a subprocess, as
   a script runs it) follow the same gateway. The bare client sends `chat.send` into the group session
   `SENDS` times, `GAP_S` apart (each run fails at once for want of a model provider, which makes the
   gateway send its events all the same). For every `sessions.changed` event that carries the
   gateway's `ts` (the time it built the event, on this machine's clock), the latency is when the line
   or frame arrived here minus that `ts`: the bare client's is the floor, `watch`'s is ours.
2. A message sent through the gateway's own CLI (`openclaw gateway call sessions.send`), to when
   `watch` prints it, from when the CLI call returned (`CLI_SENDS` times).
3. Idle: `watch` connected to the gateway for `IDLE_S` seconds with nothing happening: the requests
   it sends (counted by the gateway's own log of its methods is not possible from outside, so the
   socket backend runs in this process with a frame tap: requests sent while idle) and the CPU of
   the `watch` process (share of one core).

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

from sessions_tui.backend.gateway.connection import GatewayClient, GatewayOptions
from sessions_tui.backend.gateway.frames import EventFrame

TOKEN = "gateway-live-bench-" + secrets.token_hex(6)
GROUP = "agent:main:discord:group:123"
MAIN = "agent:main:main"
SENDS, GAP_S = 30, 0.4
CLI_SENDS = 8
IDLE_S = 60.0


def now_ms() -> float:
    return time.time() * 1000


def environment(config_home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
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
        threading.Thread(target=self._read, daemon=True).start()

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
            _, err = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return err.decode(errors="replace")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def p50(samples: list[float]) -> float:
    return statistics.median(samples) if samples else float("nan")


async def floor_and_watch(url: str, config_home: Path) -> tuple[list[float], list[float]]:
    """Latencies (ms) of the `sessions.changed` events with a `ts`: the bare client's, then watch's."""
    floor: dict[tuple[str, int], float] = {}

    def on_changed(frame: EventFrame) -> None:
        payload = frame.payload if isinstance(frame.payload, dict) else {}
        ts, key = payload.get("ts"), payload.get("sessionKey")
        if isinstance(ts, int) and isinstance(key, str):
            floor.setdefault((key, ts), now_ms() - ts)

    client = GatewayClient(GatewayOptions(url=url, token=TOKEN, identity_dir=config_home / "bare"))
    client.subscribe("sessions.changed", on_changed)
    await client.start()
    await client.request("sessions.subscribe", {"limit": 50, "sortBy": "activity"})
    watch = Watch(url, config_home)
    try:
        if await asyncio.to_thread(watch.wait_for, lambda line: True, 60) is None:
            raise SystemExit(f"FAIL: watch printed nothing in 60 s: {watch.stop()[-800:]}")
        for n in range(SENDS):
            await client.request(
                "chat.send", {"sessionKey": GROUP, "message": f"bench {n}", "idempotencyKey": secrets.token_hex(8)}
            )
            await asyncio.sleep(GAP_S)
        await asyncio.sleep(2.0)  # the last runs' events
    finally:
        err = watch.stop()
        await client.close()
    ours: dict[tuple[str, int], float] = {}
    for at, line in watch.lines:
        ts, key = line.get("ts"), line.get("key") or line.get("session")
        if line.get("type") == "session_changed" and isinstance(ts, int) and isinstance(key, str):
            ours.setdefault((key, ts), at - ts)
    shared = sorted(set(floor) & set(ours))
    if not shared:
        raise SystemExit(f"FAIL: no event seen by both (floor {len(floor)}, watch {len(ours)}): {err[-800:]}")
    return [floor[k] for k in shared], [ours[k] for k in shared]


def cli_sends(url: str, state: Path, config_home: Path) -> list[float]:
    """From `openclaw gateway call sessions.send` returning to `watch` printing the message (ms)."""
    watch = Watch(url, config_home)
    out: list[float] = []
    try:
        if watch.wait_for(lambda line: True, 60) is None:
            raise SystemExit(f"FAIL: watch printed nothing in 60 s: {watch.stop()[-800:]}")
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
    """Requests the socket backend sends while idle, which, and the `watch` process's CPU share (%)."""
    from sessions_tui.cli.remote import connect

    sent: list[str] = []
    watch = Watch(url, config_home)
    backend = await asyncio.to_thread(connect, url.replace("http://", "ws://"), TOKEN)
    try:
        tap = getattr(backend, "tap_requests", None)
        if tap is None:
            raise SystemExit("FAIL: the socket backend has no request tap (tap_requests)")
        tap(sent.append)
        if await asyncio.to_thread(watch.wait_for, lambda line: True, 60) is None:
            raise SystemExit(f"FAIL: watch printed nothing in 60 s: {watch.stop()[-800:]}")
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
            f"event latency (sessions.changed, n={len(ours)}): bare client p50 {p50(floor):6.1f} ms,"
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
