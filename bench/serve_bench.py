"""`sessions-tui serve` side by side with the real OpenClaw gateway, on the same sessions.

Both serve the sessions of the OpenClaw fixture (tests/fixtures/openclaw-2026.9.6/legacy-state):
the gateway seeded from it by `scripts/openclaw-gateway.sh start --seed-from`, ours imported from
it by `sessions-tui import-openclaw`. Measured, in one run:

1. Start to ready: from spawning the server to its first `200` on `GET /readyz`.
2. Latency over one loopback keep-alive connection (the standard library's `http.client`, light
   on this side, so the figures are the servers'): `sessions_list {"limit": 200}` and
   `sessions_history {"sessionKey": <the longest transcript>, "limit": 200}`, 20 warm-up calls,
   then 200 timed calls of each, ours and the gateway's interleaved call by call.
3. Throughput (issue 26), one after the other, with the client kind of the load: one keep-alive
   connection written to and read with asyncio's streams alone (`RawClient`: a prepared request,
   the answer's status and `"ok": true` checked; tens of microseconds a call, where an `httpx`
   client cost as much CPU per call as the server and, on two cores, measured itself), sending
   `sessions_list {"limit": 200}` and waiting for each answer, on ours started afresh as
   `serve --workers 2` (one client keeps one Python process most of the way busy: a second core
   serves only from a second process). (a) One client, 400 calls in a row, on ours: its calls
   per second. (b) 50 such clients at once x 200 calls on ours: errors, p50/p99, calls per
   second, and each worker's peak RSS (VmHWM) over its whole run. (c) The same 50-client load on
   the gateway. Each with the CPU it cost per call, the server's (with its children) and the
   clients' (this process). Start to ready and the latencies are those of `serve` with one worker.

Requirements: p50 at least 5x the gateway's for both tools; 0 errors under load; start to ready
under 1 s; RSS under 150 MB a process; (b) at least 1.6x (a)'s calls per second (the server serves
concurrent clients, not one after the other) and at least 5x (c)'s. Without the gateway installed
(`scripts/openclaw-gateway.sh install`, ~650 MB) the comparisons with it are reported as not run,
and the verdict is FAIL.

Run: .venv/bin/python bench/serve_bench.py
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from _common import ROOT, verdicts
from _gateway import LEGACY, free_port, gateway_installed, start_gateway, stop_gateway

TOKEN = "serve-bench-token-3f9c"
WARMUP, RUNS = 20, 200
CLIENTS, CALLS = 50, 200
ONE_CLIENT_CALLS = 400
WORKERS = 2
"""`serve --workers` of the throughput loads: one process per core of a two-core machine."""
LIST = {"tool": "sessions_list", "args": {"limit": 200}}


def wait_ready(url: str, deadline_s: float, proc: subprocess.Popen[bytes] | None = None) -> float:
    start = time.perf_counter()
    while time.perf_counter() - start < deadline_s:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"FAIL: the server at {url} exited ({proc.returncode})")
        try:
            if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                return time.perf_counter() - start
        except httpx.HTTPError:
            pass
        time.sleep(0.005)
    raise SystemExit(f"FAIL: {url} not ready within {deadline_s} s")


def environment(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    env["PYTHONPATH"] = str(ROOT / "src")
    env.update(extra)
    return env


def start_ours(tmp: Path, workers: int = 1) -> tuple[subprocess.Popen[bytes], str, float]:
    """Ours on the fixture's sessions (imported by the first call), with `workers` processes."""
    state = tmp / "ours"
    cli = [sys.executable, "-m", "sessions_tui", "--state", str(state)]
    if not state.exists():
        subprocess.run([*cli, "import-openclaw", str(LEGACY)], check=True, capture_output=True, env=environment({}))
    port = free_port()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [*cli, "serve", "--port", str(port), "--workers", str(workers)],
        env=environment({"SESSIONS_TUI_TOKEN": TOKEN}),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    wait_ready(url, 30, proc)
    return proc, url, time.perf_counter() - t0


def start_gateway_here(tmp: Path) -> tuple[Path, str, float, int]:
    state = tmp / "gateway"
    url, ready_s, pid = start_gateway(state, TOKEN)
    return state, url, ready_s, pid


class KeepAlive:
    """One loopback keep-alive connection (the standard library's HTTP client, which costs this
    side little: the figures are the servers')."""

    def __init__(self, url: str) -> None:
        host, port = url.removeprefix("http://").rsplit(":", 1)
        self.conn = http.client.HTTPConnection(host, int(port), timeout=60)
        self.headers = {"authorization": f"Bearer {TOKEN}", "content-type": "application/json"}

    def post(self, body: dict[str, Any]) -> tuple[int, bytes]:
        self.conn.request("POST", "/tools/invoke", body=json.dumps(body), headers=self.headers)
        response = self.conn.getresponse()
        return response.status, response.read()

    def close(self) -> None:
        self.conn.close()


def invoke(client: KeepAlive, body: dict[str, Any]) -> dict[str, Any]:
    status, raw = client.post(body)
    if status != 200:
        raise SystemExit(f"FAIL: {body['tool']} answered {status}: {raw[:200]!r}")
    details: dict[str, Any] = json.loads(raw)["result"]["details"]
    return details


def longest_session(client: KeepAlive) -> str:
    sessions = invoke(client, LIST)["sessions"]
    sizes = {}
    for row in sessions:
        details = invoke(client, {"tool": "sessions_history", "args": {"sessionKey": row["key"], "limit": 200}})
        sizes[row["key"]] = len(details.get("messages") or [])
    return max(sizes, key=lambda k: sizes[k])


def latencies(clients: dict[str, KeepAlive], body: dict[str, Any]) -> dict[str, list[float]]:
    for _ in range(WARMUP):
        for client in clients.values():
            invoke(client, body)
    out: dict[str, list[float]] = {name: [] for name in clients}
    for _ in range(RUNS):
        for name, client in clients.items():
            t0 = time.perf_counter()
            status, _ = client.post(body)  # the whole answer read; parsing it is this side's cost
            out[name].append(time.perf_counter() - t0)
            if status != 200:
                raise SystemExit(f"FAIL: {name} answered {status} to {body['tool']}")
    return out


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


OK = re.compile(rb'"ok"\s*:\s*true')


class RawClient:
    """One keep-alive HTTP/1.1 connection that sends one prepared request and reads its answer with
    asyncio's streams alone: a load generator cheap enough (tens of microseconds a call) that on a
    machine of two cores the figures are the server's, not the client's."""

    def __init__(self, url: str, body: dict[str, Any]) -> None:
        self.host, port = url.removeprefix("http://").rsplit(":", 1)
        self.port = int(port)
        payload = json.dumps(body).encode()
        self.request = (
            f"POST /tools/invoke HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nAuthorization: Bearer {TOKEN}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
        ).encode() + payload

    async def __aenter__(self) -> RawClient:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        return self

    async def __aexit__(self, *_: object) -> None:
        self.writer.close()
        with contextlib.suppress(OSError):
            await self.writer.wait_closed()

    async def call(self) -> tuple[int, bytes]:
        self.writer.write(self.request)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        lowered = head.lower()
        at = lowered.find(b"content-length:")
        if at >= 0:
            length = int(lowered[at + 15 : lowered.index(b"\r\n", at)])
            return status, await self.reader.readexactly(length)
        body = b""  # chunked
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
            chunk = await self.reader.readexactly(size + 2)
            if size == 0:
                return status, body
            body += chunk[:-2]


async def load(url: str, clients: int = CLIENTS, calls: int = CALLS) -> tuple[int, list[float], float]:
    """`clients` keep-alive clients at once (`RawClient`), each sending `calls` `sessions_list` one
    after the other: (errors, each call's time, wall clock of the whole)."""
    errors = 0
    times: list[float] = []

    async def one_client() -> None:
        nonlocal errors
        async with RawClient(url, LIST) as client:
            for _ in range(calls):
                t0 = time.perf_counter()
                try:
                    status, body = await client.call()
                    if status != 200 or not OK.search(body):
                        errors += 1
                except (OSError, asyncio.IncompleteReadError, ValueError):
                    errors += 1
                    return
                times.append(time.perf_counter() - t0)

    t0 = time.perf_counter()
    await asyncio.gather(*(one_client() for _ in range(clients)))
    return errors, times, time.perf_counter() - t0


def tree_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used so far by a process and its children (the gateway runs workers)."""
    total = 0
    pids = [pid]
    while pids:
        current = pids.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rpartition(")")[2].split()
            total += int(fields[11]) + int(fields[12])
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        pids.extend(int(c) for c in children)
    return total / os.sysconf("SC_CLK_TCK")


def run_load(who: str, url: str, server_pid: int, clients: int, calls: int) -> tuple[int, int, float]:
    """`load`, printed with the CPU it cost on each side: the clients run in this process, and on a
    machine of few cores they compete with the server for them. (errors, calls, calls/s)."""
    client_cpu, server_cpu = time.process_time(), tree_cpu_s(server_pid)
    errors, times, elapsed = asyncio.run(load(url, clients, calls))
    client_cpu, server_cpu = time.process_time() - client_cpu, tree_cpu_s(server_pid) - server_cpu
    print(
        f"{who}: {clients} client{'s' if clients > 1 else ''} x {calls} sessions_list: {errors} errors, "
        f"p50 {pct(times, 0.5):.1f} ms, p99 {pct(times, 0.99):.1f} ms, {len(times) / elapsed:.0f} calls/s; "
        f"CPU per call: server {server_cpu / len(times) * 1000:.2f} ms, clients {client_cpu / len(times) * 1000:.2f} ms"
    )
    return errors, len(times), len(times) / elapsed


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def children(pid: int) -> list[int]:
    return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def tree_rss_mb(pid: int) -> float:
    """RSS of a process and its children (the gateway runs workers)."""
    total = 0
    pids = [pid]
    while pids:
        current = pids.pop()
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        pids.extend(int(c) for c in children)
    return total / 1024


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="serve-bench-"))
    gateway_state: Path | None = None
    ours, url, ours_ready = start_ours(tmp)
    try:
        print(f"ours: ready {ours_ready * 1000:.0f} ms after spawn ({url})")
        clients = {"ours": KeepAlive(url)}
        if gateway_installed():
            gateway_state, gateway_url, gateway_ready, gateway_pid = start_gateway_here(tmp)
            rss_gateway = tree_rss_mb(gateway_pid)
            print(f"gateway: ready {gateway_ready:.1f} s after spawn ({gateway_url}), RSS {rss_gateway:.0f} MB")
            clients["gateway"] = KeepAlive(gateway_url)
        else:
            print("gateway: not installed (bash scripts/openclaw-gateway.sh install): no comparison")
        key = longest_session(clients["ours"])
        ratios = []
        for name, body in (
            ("sessions_list limit 200", LIST),
            ("sessions_history limit 200", {"tool": "sessions_history", "args": {"sessionKey": key, "limit": 200}}),
        ):
            times = latencies(clients, body)
            line = "   ".join(f"{who} p50 {pct(t, 0.5):7.2f} ms p99 {pct(t, 0.99):7.2f} ms" for who, t in times.items())
            print(f"{name:28} {line}")
            if "gateway" in times:
                ratio = statistics.median(times["gateway"]) / statistics.median(times["ours"])
                ratios.append(ratio)
                print(f"{'':28} ours is {ratio:.1f}x the gateway's p50")
        for client in clients.values():
            client.close()
        ours.terminate()  # the throughput loads run on a server of WORKERS processes
        ours.wait(30)
        ours, url, _ = start_ours(tmp, WORKERS)
        who = f"ours x{WORKERS}"
        print(f"{who}: {WORKERS} workers ({url})")
        one_errors, _, one_rate = run_load(who, url, ours.pid, 1, ONE_CLIENT_CALLS)
        many_errors, _, many_rate = run_load(who, url, ours.pid, CLIENTS, CALLS)
        peaks = [peak_rss_mb(pid) for pid in children(ours.pid)]
        rss = max(peaks)
        print(
            f"{who}: peak RSS per worker {', '.join(f'{p:.0f}' for p in peaks)} MB "
            f"(parent {peak_rss_mb(ours.pid):.0f} MB)"
        )
        gateway_rate: float | None = None
        if gateway_state is not None:
            _, _, gateway_rate = run_load("gateway", gateway_url, gateway_pid, CLIENTS, CALLS)
            stop_gateway(gateway_state)
            gateway_state = None
        errors = one_errors + many_errors
        scaling = many_rate / one_rate
        print(f"{'':28} {CLIENTS} clients get {scaling:.2f}x one client's calls/s on ours x{WORKERS}")
        if gateway_rate is not None:
            print(f"{'':28} ours under {CLIENTS} clients is {many_rate / gateway_rate:.1f}x the gateway's calls/s")
        checks = [
            (
                bool(ratios) and min(ratios) >= 5,
                f"p50 >= 5x the gateway's ({', '.join(f'{r:.1f}x' for r in ratios) or 'not run'})",
            ),
            (errors == 0, f"{errors} errors under load"),
            (ours_ready < 1.0, f"start to ready {ours_ready * 1000:.0f} ms < 1 s"),
            (rss < 150, f"peak RSS {rss:.0f} MB a worker < 150 MB"),
            (scaling >= 1.6, f"{CLIENTS} clients' calls/s {scaling:.2f}x one client's (>= 1.6x)"),
            (
                gateway_rate is not None and many_rate >= 5 * gateway_rate,
                f"{CLIENTS} clients' calls/s "
                + (f"{many_rate / gateway_rate:.1f}x" if gateway_rate is not None else "not run against")
                + " the gateway's (>= 5x)",
            ),
        ]
        return verdicts(checks)
    finally:
        if gateway_state is not None:
            stop_gateway(gateway_state)
        ours.terminate()
        ours.wait(30)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
