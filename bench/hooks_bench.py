"""`POST /hooks/agent` on `sessions-tui serve`: how fast a hook is admitted, and a burst taken whole.

`sessions-tui serve` is started in its own process on a fresh state directory (hooks enabled, the
demo model with no latency), then:

1. Admission: 20 warm-up and 200 timed hooks in a row over one keep-alive connection (the
   standard library's `http.client`, light on this side), each a new message (`deliver: false`):
   the time from sending to the `200 {ok, runId}`.
2. A burst: 200 different hooks, each with an `Idempotency-Key` of its own, every one posted twice,
   the 400 requests at once in a shuffled order, each on a connection of its own written and read
   with asyncio's streams alone (cheap: the figures are the server's, not the client's); then
   the 200 posted a third time with `waitForCompletion`, at once, which answers when each run has
   ended. Every answer must be 200, both posts of a hook must have the same `runId` and the third
   too (the replay rule), and the 200 `runId`s must differ.
3. The state directory, read after the server stopped (sqlite3): exactly 200 hook runs, each ended
   `ok` once; each hook's message in exactly one transcript line (none lost, none run twice).

Requirements: admission p50 < 20 ms; the burst: every hook run exactly once, none lost, none
duplicated (replays included), 0 errors.

Run: .venv/bin/python bench/hooks_bench.py
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import ROOT, check, in_temp_dir, verdicts

from sessions_tui.engine.store.schema import DB_NAME

TOKEN = "hooks-bench-serve-token"
HOOK_TOKEN = "hooks-bench-hook-token"
WARMUP, RUNS = 20, 200
BURST = 200


def start_server(state: Path) -> tuple[subprocess.Popen[str], str]:
    state.mkdir(parents=True)
    config = {
        "models": {"demo": {"latencyMs": 0, "chunkMs": 0}},
        "hooks": {"enabled": True, "token": HOOK_TOKEN},
    }
    (state / "config.json5").write_text(json.dumps(config))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    env |= {
        "PYTHONPATH": str(ROOT / "src"),
        "SESSIONS_TUI_TOKEN": TOKEN,
        "SESSIONS_TUI_CONFIG": str(state / "config.json5"),
    }
    argv = [sys.executable, "-m", "sessions_tui", "--state", str(state), "serve", "--port", "0"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline() if proc.stdout else ""
    check(line.startswith("sessions-tui serve: http://"), f"serve started ({line!r})")
    return proc, line.split()[2]


def stop_server(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(60)
    # uvicorn stops gracefully, then raises the signal again: the default action ends the process
    check(proc.returncode in (0, -signal.SIGTERM), f"serve stopped ({proc.returncode})")


def hook_body(marker: str, **extra: Any) -> dict[str, Any]:
    return {"message": f"Summarize event {marker}.", "name": "bench", "deliver": False, **extra}


def admission_latencies(url: str) -> list[float]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    headers = {"Authorization": f"Bearer {HOOK_TOKEN}", "Content-Type": "application/json"}
    samples: list[float] = []
    for n in range(WARMUP + RUNS):
        payload = json.dumps(hook_body(f"seq-{n:04d}")).encode()
        t0 = time.perf_counter()
        conn.request("POST", "/hooks/agent", payload, headers)
        response = conn.getresponse()
        body = json.loads(response.read())
        elapsed = time.perf_counter() - t0
        check(response.status == 200 and body.get("ok") is True, f"hook admitted ({response.status} {body})")
        if n >= WARMUP:
            samples.append(elapsed)
    conn.close()
    return samples


async def raw_post(host: str, port: int, body: dict[str, Any], key: str) -> tuple[int, dict[str, Any], float]:
    """One `POST /hooks/agent` on a connection of its own, written and read with asyncio's streams
    alone (an `httpx` client costs several times the server's CPU here, and would measure itself):
    (status, body, seconds from connecting to the whole answer)."""
    payload = json.dumps(body).encode()
    head = (
        f"POST /hooks/agent HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {HOOK_TOKEN}\r\n"
        f"Idempotency-Key: {key}\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    t0 = time.perf_counter()
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(head + payload)
    answer = await reader.read()
    elapsed = time.perf_counter() - t0
    writer.close()
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), json.loads(rest.partition(b"\r\n\r\n")[2]), elapsed


async def burst(url: str) -> tuple[list[int], list[float]]:
    """(the statuses of every post, the admission times of the 400 posted at once)."""
    host, port_text = url.removeprefix("http://").rsplit(":", 1)
    port = int(port_text)
    markers = [f"burst-{n:04d}" for n in range(BURST)]
    plan = [m for m in markers for _ in range(2)]
    random.Random(30).shuffle(plan)
    posted = await asyncio.gather(*(raw_post(host, port, hook_body(m), f"key-{m}") for m in plan))
    waited = await asyncio.gather(
        *(raw_post(host, port, hook_body(m, waitForCompletion=True), f"key-{m}") for m in markers)
    )
    by_marker: dict[str, set[str]] = {}
    for marker, (status, body, _) in [*zip(plan, posted, strict=True), *zip(markers, waited, strict=True)]:
        check(status == 200 and body.get("ok") is True, f"a burst hook answered 200 ({status} {body})")
        by_marker.setdefault(marker, set()).add(body["runId"])
    check(all(body.get("completion", {}).get("status") == "ok" for _, body, _ in waited), "every run ended ok")
    check(all(len(ids) == 1 for ids in by_marker.values()), "each hook's posts and replay share one runId")
    check(len({next(iter(ids)) for ids in by_marker.values()}) == BURST, "200 different runIds")
    return [status for status, _, _ in [*posted, *waited]], [t for _, _, t in posted]


def audit(state: Path) -> dict[str, int]:
    """What the state directory holds of the burst: runs, their ends, the messages' lines."""
    db = sqlite3.connect(f"file:{state / DB_NAME}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT status, count(*) FROM runs WHERE lane = 'hook' GROUP BY status").fetchall()
        statuses = dict(rows)
        lines = db.execute("SELECT line FROM transcript WHERE line LIKE '%Summarize event burst-%'").fetchall()
    finally:
        db.close()
    seen: dict[str, int] = {}
    for (line,) in lines:
        message = json.loads(line)
        text = message.get("message", message).get("content")
        for n in range(BURST):
            if isinstance(text, str) and f"Summarize event burst-{n:04d}." in text:
                seen[f"burst-{n:04d}"] = seen.get(f"burst-{n:04d}", 0) + 1
    return {
        "hook runs": sum(statuses.values()),
        "hook runs ok": statuses.get("ok", 0),
        "burst messages seen once": sum(1 for count in seen.values() if count == 1),
        "burst messages seen more than once": sum(1 for count in seen.values() if count > 1),
        "burst messages missing": BURST - len(seen),
    }


def cpu_s(pid: int) -> float:
    """A process's CPU time so far (user + system, its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def ms(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def bench(tmp: Path) -> int:
    state = tmp / "state"
    proc, url = start_server(state)
    try:
        latencies = admission_latencies(url)
        t0, server0, client0 = time.perf_counter(), cpu_s(proc.pid), time.process_time()
        statuses, burst_times = asyncio.run(burst(url))
        burst_s = time.perf_counter() - t0
        server_cpu, client_cpu = cpu_s(proc.pid) - server0, time.process_time() - client0
    finally:
        stop_server(proc)
    counts = audit(state)
    p50 = statistics.median(latencies) * 1000
    print(f"admission, {RUNS} in a row: p50 {p50:.2f} ms  p90 {ms(latencies, 0.9):.2f}  p99 {ms(latencies, 0.99):.2f}")
    print(
        f"burst: {2 * BURST} posts at once ({BURST} hooks x 2), then {BURST} waited replays, "
        f"{sum(1 for s in statuses if s != 200)} errors: "
        f"{burst_s:.2f} s in all; a post's answer p50 {statistics.median(burst_times) * 1000:.1f} ms, "
        f"max {max(burst_times) * 1000:.1f} ms; CPU: the server {server_cpu:.2f} s, the client {client_cpu:.2f} s"
    )
    for name, value in counts.items():
        print(f"  {name}: {value}")
    # The sequential ones are runs too: 220 of them before the burst.
    expected_runs = WARMUP + RUNS + BURST
    return verdicts(
        [
            (p50 < 20, f"admission p50 {p50:.2f} ms < 20 ms"),
            (
                counts["hook runs"] == counts["hook runs ok"] == expected_runs,
                f"{counts['hook runs']} hook runs, {counts['hook runs ok']} ended ok (expected {expected_runs})",
            ),
            (
                counts["burst messages seen once"] == BURST
                and counts["burst messages missing"] == counts["burst messages seen more than once"] == 0,
                f"each of the {BURST} burst hooks run exactly once (none lost, none duplicated, replays included)",
            ),
        ]
    )


if __name__ == "__main__":
    raise SystemExit(in_temp_dir("hooks-bench-", bench))
