"""How fast a `sessions-tui tool …` call starts and exits, and what its imports cost.

`sessions-tui tool sessions_list` on an empty state directory (the first warm-up run creates its
database), as a fresh process each time (what a script or an agent calling the command line pays):
3 warm-up runs (the OS page cache, and the bytecode cache they write under the temporary directory,
as an installed program has its `.pyc` files whatever PYTHONDONTWRITEBYTECODE says here), then 15
timed runs, wall clock from spawn to exit.

Timed alongside, interleaved run by run so that load on the machine hits all alike: the floor any
such command stands on here — the interpreter importing asyncio, sqlite3 and pydantic and
validating one small model (what checking a tool's arguments costs at the least) — and the floor
of pydantic alone (the interpreter, pydantic, one model; with pydantic's plugin scan off, as the
command has it): a `tool` path on this stack cannot start faster than that. Also printed:
the modules whose imports cost most in one run (`python -X importtime`, cumulative), so a
regression names its cause.

Requirement (issue 26): median **≤ 1.5 ×** the median of the floor of pydantic alone, measured in
the same run. The floor with asyncio and sqlite3 is printed for reference: the command needs both,
so what is left above that floor is sessions-tui's own start.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, verdict

LIMIT_RATIO = 1.5
WARMUP, RUNS = 3, 15


def command(state: Path) -> list[str]:
    return [sys.executable, "-m", "sessions_tui", "--state", str(state), "tool", "sessions_list"]


FLOOR = [
    sys.executable,
    "-c",
    "import asyncio, sqlite3, pydantic\nclass Args(pydantic.BaseModel):\n    limit: int = 0\nArgs(limit=1)",
]


PYDANTIC_FLOOR = [
    sys.executable,
    "-c",
    "import pydantic\nclass Args(pydantic.BaseModel):\n    limit: int = 0\nArgs(limit=1)",
]


def environment(pycache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_") and k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT / "src")
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def run_once(argv: list[str], env: dict[str, str], *, tool: bool = True) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0 or (tool and '"sessions"' not in proc.stdout):
        raise SystemExit(f"FAIL: the command failed (exit {proc.returncode}): {proc.stderr.strip()[:400]}")
    return elapsed


def import_costs(state: Path, env: dict[str, str], top: int = 20) -> list[tuple[int, str]]:
    """(cumulative µs, module indented by depth) of the costliest imports of one run, to depth 4."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *command(state)[1:]], capture_output=True, text=True, env=env, timeout=60
    )
    costs = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        depth = (len(name) - len(name.lstrip()) - 1) // 2
        if depth <= 4:  # deep ones are counted in their importers' cumulative cost
            costs.append((int(cumulative), "  " * depth + name.strip()))
    return sorted(costs, reverse=True)[:top]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "state"
        env = environment(Path(tmp) / "pycache")
        bare = {**env, "PYDANTIC_DISABLE_PLUGINS": "__all__"}
        for _ in range(WARMUP):
            run_once(command(state), env)
            run_once(FLOOR, env, tool=False)
            run_once(PYDANTIC_FLOOR, bare, tool=False)
        samples, floor, pydantic_floor = [], [], []
        for _ in range(RUNS):
            samples.append(run_once(command(state), env))
            floor.append(run_once(FLOOR, env, tool=False))
            pydantic_floor.append(run_once(PYDANTIC_FLOOR, bare, tool=False))
        costs = import_costs(state, env)
    median = statistics.median(samples)
    bare_median = statistics.median(pydantic_floor)
    ratio = median / bare_median
    print(
        f"sessions-tui tool sessions_list, empty state, {RUNS} runs: median {median * 1000:.0f} ms, "
        f"min {min(samples) * 1000:.0f} ms, max {max(samples) * 1000:.0f} ms"
    )
    print(
        f"floor (python: import asyncio, sqlite3, pydantic; validate one model): median "
        f"{statistics.median(floor) * 1000:.0f} ms, min {min(floor) * 1000:.0f} ms"
    )
    print(
        f"floor of pydantic alone (python: import pydantic; validate one model): median "
        f"{statistics.median(pydantic_floor) * 1000:.0f} ms, min {min(pydantic_floor) * 1000:.0f} ms"
    )
    print("costliest imports (cumulative):")
    for micros, name in costs:
        print(f"  {micros / 1000:7.1f} ms  {name}")
    print(f"above the floor with asyncio and sqlite3: {(median - statistics.median(floor)) * 1000:.0f} ms")
    return verdict(
        ratio <= LIMIT_RATIO,
        f"median {median * 1000:.0f} ms = {ratio:.2f} x the floor of pydantic alone "
        f"({bare_median * 1000:.0f} ms; limit {LIMIT_RATIO} x)",
    )


if __name__ == "__main__":
    sys.exit(main())
