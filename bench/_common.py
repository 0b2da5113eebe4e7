"""Shared helpers of the benchmark scripts (not a benchmark itself)."""

from __future__ import annotations

import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from sessions_tui.tools.calling.base import ToolCall  # noqa: E402
from sessions_tui.tools.calling.registry import invoke  # noqa: E402


class ToolRunner:
    """Calls a tool through the real registry (`invoke`) on one event loop."""

    def __init__(self, as_key: str | None = None, sandboxed: bool = False) -> None:
        self.loop = asyncio.new_event_loop()
        self.as_key, self.sandboxed = as_key, sandboxed

    def __call__(self, engine: Any, name: str, params: dict[str, Any]) -> dict[str, Any]:
        call = ToolCall(engine=engine, agent_session_key=self.as_key, sandboxed=self.sandboxed)
        return self.loop.run_until_complete(invoke(call, name, params))

    def close(self) -> None:
        self.loop.close()


def time_interleaved(calls: dict[str, Callable[[], Any]], *, warmup: int, runs: int) -> dict[str, list[float]]:
    """Time each callable `runs` times (after `warmup` untimed calls), alternating between them
    so that drift (CPU frequency, other load) hits every variant alike. Seconds per call."""
    for _ in range(warmup):
        for fn in calls.values():
            fn()
    out: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(runs):
        for name, fn in calls.items():
            t0 = time.perf_counter()
            fn()
            out[name].append(time.perf_counter() - t0)
    return out


def describe(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    q = statistics.quantiles(ms, n=10)
    return (
        f"median {statistics.median(ms):8.3f} ms   min {ms[0]:8.3f}   p10 {q[0]:8.3f}   "
        f"p90 {q[-1]:8.3f}   max {ms[-1]:8.3f}   (n={len(ms)})"
    )


def verdict(ok: bool, text: str) -> int:
    print(("PASS: " if ok else "FAIL: ") + text)
    return 0 if ok else 1


def verdicts(checks: list[tuple[bool, str]]) -> int:
    """Each requirement on a line (`ok` or `MISS`), then the verdict over them all."""
    for ok, text in checks:
        print(("  ok   " if ok else "  MISS ") + text)
    return verdict(all(ok for ok, _ in checks), "; ".join(text for _, text in checks))


def check(ok: bool, what: str) -> None:
    """A sanity check of the benchmark's data or results: FAIL (exit 1) when it does not hold."""
    if not ok:
        print(f"FAIL: sanity check: {what}")
        raise SystemExit(1)


def in_temp_dir(prefix: str, bench: Callable[[Path], int]) -> int:
    """Run a benchmark in a fresh temporary directory, removed afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        return bench(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
