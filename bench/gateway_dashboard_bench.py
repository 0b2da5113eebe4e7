"""The dashboard on real OpenClaw gateways' WebSockets: first paint over five, a CLI-sent message, idling.

The real dashboard (`python -m sessions_tui --remote ws://… [--remote ws://…]`) runs in a
pseudo-terminal (TERM xterm-256color, COLUMNS x ROWS) as a person starts it; what it draws is read
from the terminal, escape sequences taken out.

1. Five gateways (`scripts/openclaw-gateway.sh start`, each seeded from the fixture's legacy store,
   started side by side): from when the last of them is ready, the dashboard is started on all five
   at once; first paint is when its table shows a session of every one of them (each key is marked
   with its gateway's host:port). Beside it, started at the same moment, the floor: a bare protocol
   client in a process of its own connecting to all five and subscribing (a gateway just ready
   answers its first clients slowly; both pay that). Then, once the gateways' start-up is over
   (their processes under 10 % of a core over a second: on 2 cores, five gateways still spend
   1.3-1.4 cores for ~3 s after the last /readyz), the same again: what a person starting the
   dashboard on gateways already running sees.
2. One gateway, its main session the newest (so the dashboard opens on it): a message sent through
   the gateway's own CLI (`openclaw gateway call sessions.send`), from when the call returns to when
   the dashboard draws its text (`CLI_SENDS` times).
3. Then idle for `IDLE_S` seconds: the dashboard's CPU (utime + stime, `/proc/<pid>/stat`) as a share
   of one core.

Requirements: first paint under 2 s after the last gateway is ready; a CLI-sent message drawn under
300 ms p50 after the call returns; under 1 % of a core idle. Without the gateway installed the
verdict is FAIL (not run).

Run: .venv/bin/python bench/gateway_dashboard_bench.py
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import pty
import re
import secrets
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import ROOT, verdicts
from _gateway import gateway_call, gateway_installed, start_gateway, stop_gateway

TOKEN = "gateway-dashboard-bench-" + secrets.token_hex(6)
MAIN = "agent:main:main"
GATEWAYS = 5
CLI_SENDS = 8
IDLE_S = 60.0
COLUMNS, ROWS = 200, 50
ESCAPES = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x1b\][^\x07]*\x07")


def environment(config_home: Path) -> dict[str, str]:
    # As an installed program runs: with its `.pyc` files (as startup_bench.py), whatever
    # PYTHONDONTWRITEBYTECODE says here (compiling every module afresh costs a start ~0.2 s of CPU).
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        PYTHONPATH=str(ROOT / "src"),
        TERM="xterm-256color",
        COLUMNS=str(COLUMNS),
        LINES=str(ROWS),
        XDG_CONFIG_HOME=str(config_home),
        SESSIONS_TUI_TOKEN=TOKEN,
    )
    return env


class Dashboard:
    """The dashboard in a pseudo-terminal; what it drew, as text."""

    def __init__(self, urls: list[str], config_home: Path) -> None:
        args = [sys.executable, "-m", "sessions_tui"]
        for url in urls:
            args += ["--remote", url.replace("http://", "ws://")]
        self.started = time.monotonic()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe(sys.executable, args, environment(config_home))
        import fcntl
        import termios

        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        self.text = b""

    def read(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    return
                self.text += ESCAPES.sub(b"", chunk)

    def until(self, wanted: list[bytes], timeout: float, since: int = 0) -> float | None:
        """When (monotonic) all of `wanted` were drawn past offset `since`, or None."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if all(w in self.text[since:] for w in wanted):
                return time.monotonic()
            self.read(0.005)
        return None

    def stop(self) -> None:
        with_suppress(os.kill, self.pid, signal.SIGTERM)
        self.read(1.0)
        with_suppress(os.waitpid, self.pid, 0)
        os.close(self.fd)


def with_suppress(fn: Callable[..., object], *args: object) -> None:
    with contextlib.suppress(OSError, ChildProcessError):
        fn(*args)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


FLOOR = """
import asyncio, sys, time
from pathlib import Path
t0 = time.monotonic()
from sessions_tui.backend.gateway.link.connection import GatewayClient, GatewayOptions

async def one(url):
    client = GatewayClient(GatewayOptions(url=url, token=sys.argv[1], identity_dir=Path(sys.argv[2])))
    await client.start(fail_fast=True)
    await client.request("sessions.subscribe", {"limit": 200})
    await client.close()

async def every():
    await asyncio.gather(*(one(url) for url in sys.argv[3:]))

asyncio.run(every())
print(time.monotonic() - t0)
"""
"""The floor: a bare protocol client in a process of its own, started with the dashboard, connecting
to every gateway at once and subscribing to its roster (a gateway just ready answers its first
clients slowly: that wait is the gateways', and both pay it)."""


def descendants_cpu(roots: list[int]) -> float:
    """CPU seconds (user + system) of the processes `roots` and all their descendants now alive."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parent[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    family, grew = set(roots), True
    while grew:
        more = {pid for pid, ppid in parent.items() if ppid in family} - family
        family |= more
        grew = bool(more)
    total = 0.0
    for pid in family:
        with contextlib.suppress(OSError, IndexError, ValueError):
            total += cpu_seconds(pid)
    return total


def settle(roots: list[int], limit_s: float = 60.0) -> float:
    """Wait until the gateways' processes use under 10 % of a core over a second (their start-up
    is over); the seconds waited."""
    t0 = time.monotonic()
    before = descendants_cpu(roots)
    while time.monotonic() - t0 < limit_s:
        time.sleep(1.0)
        now = descendants_cpu(roots)
        if now - before < 0.10:
            break
        before = now
    return time.monotonic() - t0


def paint_and_floor(urls: list[str], tmp: Path) -> tuple[float, float]:
    """The dashboard's first paint on every gateway, and the floor's time started with it, in seconds."""
    ws = [url.replace("http://", "ws://") for url in urls]
    floor = subprocess.Popen(
        [sys.executable, "-c", FLOOR, TOKEN, str(tmp / "floor-id"), *ws],
        env=environment(tmp / "config"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    dashboard = Dashboard(urls, tmp / "config")
    try:
        labels = [url.removeprefix("http://").encode() for url in urls]
        painted = dashboard.until(labels, 60)
        if painted is None:
            raise SystemExit(f"FAIL: the dashboard did not show all {GATEWAYS} gateways in 60 s")
        out, err = floor.communicate(timeout=60)
        if floor.returncode != 0:
            raise SystemExit(f"FAIL: the floor's client failed: {err[-800:]}")
        return painted - dashboard.started, float(out.strip())
    finally:
        dashboard.stop()


def five(tmp: Path) -> tuple[tuple[float, float], tuple[float, float], float]:
    """First paint over five gateways just ready and the floor's time; the same once their start-up
    is over (each has answered a client by then); how long that took, in seconds."""
    states = [tmp / f"gateway{n}" for n in range(GATEWAYS)]
    try:
        with concurrent.futures.ThreadPoolExecutor(GATEWAYS) as pool:
            started = list(pool.map(lambda s: start_gateway(s, TOKEN), states))
        urls = [url for url, _, _ in started]
        print(f"{GATEWAYS} gateways ready: {', '.join(f'{r:.0f} s' for _, r, _ in started)} after spawn")
        at_ready = paint_and_floor(urls, tmp)
        waited = settle([pid for _, _, pid in started])
        return at_ready, paint_and_floor(urls, tmp), waited
    finally:
        for state in states:
            stop_gateway(state)


def one(tmp: Path) -> tuple[list[float], float]:
    state = tmp / "gateway-one"
    url, _, _ = start_gateway(state, TOKEN)
    try:
        gateway_call(state, "sessions.send", json.dumps({"key": MAIN, "message": "the newest session"}))
        time.sleep(3)  # the run of that send fails for want of a model; the session is quiet again
        dashboard = Dashboard([url], tmp / "config")
        try:
            if dashboard.until([b"the newest session"], 60) is None:
                raise SystemExit("FAIL: the dashboard did not open on the main session in 60 s")
            dashboard.read(3.0)
            shown: list[float] = []
            for n in range(CLI_SENDS):
                text = f"cli bench {n} {secrets.token_hex(3)}"
                since = len(dashboard.text)
                gateway_call(state, "sessions.send", json.dumps({"key": MAIN, "message": text}))
                returned = time.monotonic()
                drawn = dashboard.until([text.encode()], 10, since)
                if drawn is None:
                    raise SystemExit(f"FAIL: the dashboard never drew {text!r}")
                shown.append(max(0.0, drawn - returned) * 1000)
                dashboard.read(2.0)
            dashboard.read(5.0)
            cpu0, t0 = cpu_seconds(dashboard.pid), time.monotonic()
            dashboard.read(IDLE_S)
            cpu = 100 * (cpu_seconds(dashboard.pid) - cpu0) / (time.monotonic() - t0)
            return shown, cpu
        finally:
            dashboard.stop()
    finally:
        stop_gateway(state)


def main() -> int:
    if not gateway_installed():
        print("gateway not installed (scripts/openclaw-gateway.sh install): not run")
        return verdicts([(False, "the real gateway is installed")])
    tmp = Path(tempfile.mkdtemp(prefix="gateway-dashboard-bench-"))
    try:
        shown, cpu = one(tmp)
        print(
            f"CLI-sent message drawn (n={len(shown)}): p50 {statistics.median(shown):.0f} ms, max {max(shown):.0f} ms"
        )
        print(f"idle {IDLE_S:.0f} s on one gateway: {cpu:.2f} % of a core")
        (paint, floor), (settled, settled_floor), waited = five(tmp)
        print(
            f"first paint over {GATEWAYS} gateways: {paint:.2f} s after the last was ready"
            f" (the floor, a bare client connecting to all five at the same moment: {floor:.2f} s)"
        )
        print(
            f"once their start-up was over ({waited:.0f} s later, under 10 % of a core): first paint {settled:.2f} s"
            f" (the floor: {settled_floor:.2f} s)"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return verdicts(
        [
            (paint < 2.0, f"first paint over {GATEWAYS} gateways {paint:.2f} s < 2 s"),
            (
                statistics.median(shown) < 300,
                f"a CLI-sent message drawn p50 {statistics.median(shown):.0f} ms < 300 ms",
            ),
            (cpu < 1.0, f"idle CPU {cpu:.2f} % < 1 %"),
        ]
    )


if __name__ == "__main__":
    raise SystemExit(main())
