"""The Usage view over 1,000,000 messages: the time from `U` to its chart painted.

The state of `bench/usage_bench.py` (2,000 sessions of 500 messages, every assistant message with its
`usage`, over 5 agents, 3 models and the last 30 days), opened by the dashboard (a local backend, its
clock frozen at the data's "now"). Each round presses `U` as the terminal driver delivers a key, waits
for the chart to be rendered with the report's numbers (its `render`, which Textual paints from), then
`escape`s back. The view reads its default report: since 7 days, by agent, per day, the open session's
spawn tree; then the same after `e` (per hour) and `s` (since 30 days), each a read and a redraw.

Loading textual-plotext, once per process on the first open, is timed apart (`import`).

Requirement: the view opens (key to chart painted) in under 300 ms (median of 10 opens after 2 warm-up).

Run: .venv/bin/python bench/usage_view_bench.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import describe, in_temp_dir, verdicts  # noqa: E402
from textual import events  # noqa: E402
from usage_bench import CONFIG, MESSAGES, NOW_MS, SESSIONS, build  # noqa: E402

from sessions_tui.backend.local.backend import LocalBackend  # noqa: E402
from sessions_tui.engine.clock import FrozenClock  # noqa: E402
from sessions_tui.engine.config import parse_config  # noqa: E402
from sessions_tui.engine.engine import Engine  # noqa: E402
from sessions_tui.ui.app import SessionsApp  # noqa: E402

LIMIT_MS = 300.0
WARMUP = 2
RUNS = 10
PAINTS: list[float] = []


async def wait_for(predicate, timeout: float = 60.0) -> None:
    deadline = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > deadline:
            raise TimeoutError("the dashboard did not get there in time")
        await asyncio.sleep(0.001)


def press(app: SessionsApp, key: str) -> float:
    """`key` as the terminal driver delivers it; the time it was sent."""
    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    t0 = time.perf_counter()
    app._driver.send_message(event)
    return t0


async def rounds(app: SessionsApp, count: int) -> list[float]:
    from sessions_tui.ui.screens.usage.usage import UsageScreen

    samples = []
    for _ in range(count):
        painted = len(PAINTS)
        t0 = press(app, "U")
        await wait_for(lambda painted=painted: len(PAINTS) > painted)
        samples.append(PAINTS[-1] - t0)
        assert isinstance(app.screen, UsageScreen) and app.screen.report is not None
        press(app, "escape")
        await wait_for(lambda: not isinstance(app.screen, UsageScreen))
        await asyncio.sleep(0.05)
    return samples


async def changes(app: SessionsApp, key: str, count: int) -> list[float]:
    """`key` pressed in the open view `count` times (a read and a redraw each)."""
    samples = []
    for _ in range(count):
        painted = len(PAINTS)
        t0 = press(app, key)
        await wait_for(lambda painted=painted: len(PAINTS) > painted)
        samples.append(PAINTS[-1] - t0)
        await asyncio.sleep(0.05)
    return samples


async def measure(engine: Engine) -> tuple[float, list[float], list[float], list[float], int]:
    t = time.perf_counter()
    from sessions_tui.ui.screens.usage.chart import UsageChart  # textual-plotext: loaded once per process

    imported = time.perf_counter() - t
    render = UsageChart.render

    def noting_render(self: UsageChart):  # type: ignore[no-untyped-def]
        out = render(self)
        if self.shown and self.points:
            PAINTS.append(time.perf_counter())
        return out

    UsageChart.render = noting_render  # type: ignore[method-assign] # measurement only
    app = SessionsApp(LocalBackend(engine), watch_store=False, steady=True)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.main_screen
        await wait_for(lambda: screen.pages_loaded > 0)
        await pilot.pause(0.5)
        await rounds(app, WARMUP)
        opened = await rounds(app, RUNS)
        press(app, "U")
        await wait_for(lambda: type(app.screen).__name__ == "UsageScreen" and app.screen.painted > 0)
        await asyncio.sleep(0.1)
        hourly = await changes(app, "e", RUNS)  # per hour, per day, …
        spans = await changes(app, "s", RUNS)  # 30 days, 24 hours, 7 days, …
        groups = len(app.screen.report.groups) if app.screen.report else 0
    return imported, opened, hourly, spans, groups


def bench(tmp: Path) -> int:
    t0 = time.perf_counter()
    build(tmp / "state", scatter=False).close()
    took = time.perf_counter() - t0
    print(f"setup: {SESSIONS:,} sessions x {MESSAGES} messages ({SESSIONS * MESSAGES:,}) in {took:.1f} s")
    config, _ = parse_config(CONFIG)
    engine = Engine(tmp / "state", config, clock=FrozenClock(NOW_MS))
    try:
        imported, opened, toggled, spans, groups = asyncio.run(measure(engine))
    finally:
        engine.close()
    print(f"import textual-plotext (first open only): {imported * 1000:.1f} ms")
    print(f"U to the chart painted (since 7d, by agent, per day; {groups} groups): {describe(opened)}")
    print(f"e (per hour / per day) to the chart painted again: {describe(toggled)}")
    print(f"s (since 30d / 24h / 7d) to the chart painted again: {describe(spans)}")
    median = statistics.median(opened) * 1000
    print(f"requirement: the Usage view opens in < {LIMIT_MS:.0f} ms")
    return verdicts([(median < LIMIT_MS, f"U to the chart painted: median {median:.1f} ms")])


def main() -> int:
    return in_temp_dir("usage-view-bench-", bench)


if __name__ == "__main__":
    sys.exit(main())
