"""What cron jobs cost and how punctual they are, in a real `sessions-tui serve`.

(a) Due to start. A `serve` (the demo model without latency, so a run's own work is small) on a
    state directory whose config declares `JOBS` one-shot jobs (`at`), due at known times 0.25 s
    apart, the first `LEAD_S` after the bench writes the config. When all have run, the store's run
    history gives for each: the claim (`cron_runs.started_at`: the scheduler took the due run) and
    the agent run's start (`runs.started_at`: the turn began in the job's cron: session), each
    minus the job's due time (`scheduled_at`). p50 and max of both.
(b) Idle cost. A `serve` whose config declares 1,000 jobs (cron expressions and intervals, none
    due within the sample) runs `SETTLE_S` to take them up, then its CPU time (utime + stime of all
    its threads, /proc/<pid>/stat) is read at the start and end of a `SAMPLE_S` sample; the share
    of a core is their difference over the wall time between the reads. The same without jobs is
    the baseline (what `serve` costs idle anyway: its store watcher, uvicorn's timers).

Requirements: every due job starts (agent run began) within **1 s** of its time; with 1,000 jobs
the idle `serve` uses under **1 %** of a core.

    .venv/bin/python bench/cron_bench.py            # both; --latency or --idle for one
"""

from __future__ import annotations

import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
from _common import ROOT, check, in_temp_dir, verdicts
from _gateway import free_port

JOBS = 40
SPACING_S = 0.25
LEAD_S = 8.0
IDLE_JOBS = 1000
SETTLE_S = 10.0
SAMPLE_S = 60.0
LIMIT_S = 1.0
LIMIT_PERCENT = 1.0
FAST_DEMO = {"models": {"demo": {"latencyMs": 0, "chunkMs": 0}}}


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    env["PYTHONPATH"] = str(ROOT / "src")
    return env


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def serve(state: Path, config: dict[str, object]) -> tuple[subprocess.Popen[bytes], str]:
    state.mkdir(parents=True)
    (state / "config.json5").write_text(json.dumps(config))
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sessions_tui", "--state", str(state), "--config", str(state / "config.json5"),
         "serve", "--port", str(port)],
        env=environment(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"FAIL: serve exited ({proc.returncode})")
        try:
            if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise SystemExit("FAIL: serve not ready within 30 s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def cpu_seconds(pid: int) -> float:
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def quantiles(values: list[float]) -> str:
    return f"p50 {statistics.median(values):7.1f} ms   max {max(values):7.1f} ms   (n={len(values)})"


def latency(tmp: Path) -> list[tuple[bool, str]]:
    first_ms = int((time.time() + LEAD_S) * 1000)
    due = [first_ms + int(i * SPACING_S * 1000) for i in range(JOBS)]
    jobs = [
        {"id": f"at-{i}", "name": f"at {i}", "schedule": {"kind": "at", "at": iso(ms)},
         "payload": {"kind": "agentTurn", "message": f"job {i}"}, "deleteAfterRun": False}
        for i, ms in enumerate(due)
    ]  # fmt: skip
    state = tmp / "latency"
    proc, _ = serve(state, {**FAST_DEMO, "cron": {"jobs": jobs}})
    try:
        database = state / "sessions.sqlite3"
        deadline = time.time() + LEAD_S + JOBS * SPACING_S + 30
        rows: list[tuple[int, int, int | None]] = []
        while time.time() < deadline:
            time.sleep(0.5)
            with sqlite3.connect(database) as conn:
                rows = conn.execute(
                    "SELECT c.scheduled_at, c.started_at, r.started_at FROM cron_runs AS c"
                    " LEFT JOIN runs AS r ON r.run_id = c.run_id WHERE c.ended_at IS NOT NULL"
                ).fetchall()
            if len(rows) == JOBS:
                break
    finally:
        stop(proc)
    if len(rows) != JOBS:
        return [(False, f"{len(rows)} of {JOBS} jobs ran")]
    claimed = [float(started - scheduled) for scheduled, started, _ in rows]
    began = [float(run - scheduled) for scheduled, _, run in rows if run is not None]
    print(f"(a) {JOBS} jobs due {SPACING_S:g} s apart, in serve:")
    print(f"    due -> claimed:          {quantiles(claimed)}")
    print(f"    due -> agent run began:  {quantiles(began)}")
    punctual = len(began) == JOBS and max(began) < LIMIT_S * 1000
    return [
        (punctual, f"every due job started within {LIMIT_S:g} s (max {max(began):.1f} ms)"),
        (min(claimed) >= 0, "none started before its time"),
    ]


def idle_share(tmp: Path, name: str, jobs: list[dict[str, object]]) -> float:
    proc, _ = serve(tmp / name, {**FAST_DEMO, "cron": {"jobs": jobs}})
    try:
        time.sleep(SETTLE_S)
        began, cpu_began = time.monotonic(), cpu_seconds(proc.pid)
        time.sleep(SAMPLE_S)
        wall, cpu = time.monotonic() - began, cpu_seconds(proc.pid) - cpu_began
    finally:
        stop(proc)
    with sqlite3.connect(tmp / name / "sessions.sqlite3") as conn:
        taken = conn.execute("SELECT count(*) FROM cron_jobs WHERE next_run_at IS NOT NULL").fetchone()[0]
    check(taken == len(jobs), f"serve took up {len(jobs)} jobs, each with its next run (it has {taken})")
    percent = 100 * cpu / wall
    print(f"    {name:>13}: {cpu:.3f} s of CPU in {wall:.1f} s = {percent:.3f} % of a core")
    return percent


def idle(tmp: Path) -> list[tuple[bool, str]]:
    jobs: list[dict[str, object]] = []
    for i in range(IDLE_JOBS):
        schedule: dict[str, object] = (
            {"kind": "cron", "expr": f"{i % 60} {3 + i % 3} * * *", "tz": "Europe/Vienna"} if i % 2
            else {"kind": "every", "everyMs": 86_400_000 + i * 1000}
        )  # fmt: skip
        jobs.append(
            {
                "id": f"job-{i}",
                "name": f"job {i}",
                "schedule": schedule,
                "payload": {"kind": "agentTurn", "message": "x"},
            }
        )
    print(f"(b) idle serve, CPU over {SAMPLE_S:g} s after {SETTLE_S:g} s to settle:")
    baseline = idle_share(tmp, "no jobs", [])
    loaded = idle_share(tmp, f"{IDLE_JOBS} jobs", jobs)
    print(f"    the jobs' own share: {loaded - baseline:+.3f} %")
    return [
        (loaded < LIMIT_PERCENT, f"idle serve with {IDLE_JOBS} jobs {loaded:.3f} % < {LIMIT_PERCENT:g} % of a core")
    ]


def bench(tmp: Path) -> int:
    which = set(sys.argv[1:]) or {"--latency", "--idle"}
    checks: list[tuple[bool, str]] = []
    if "--latency" in which:
        checks += latency(tmp)
    if "--idle" in which:
        checks += idle(tmp)
    return verdicts(checks)


if __name__ == "__main__":
    raise SystemExit(in_temp_dir("sessions-tui-cron-", bench))
