"""The dashboard with many sessions, headless.

Requirements (issue: the dashboard):
- 10,000 sessions: first paint of the table under 0.5 s; a filter keystroke -> table updated
  under 100 ms.
- 100,000 sessions stay usable (the table pages, 100 rows at a time); RSS under 300 MB.

"First paint" runs from constructing the app to the table painting its first page; a
keystroke runs from the key event reaching the app to the table painting the filtered page
(measured by noting when the table's `render_lines` runs; Pilot's own per-key settling, ~90 ms
of waiting for idle, is not the dashboard's latency, so keys are posted as events). Each size
runs in its own process, so its peak RSS is its own.

Run: .venv/bin/python bench/ui_bench.py
"""

from __future__ import annotations

import asyncio
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import in_temp_dir, verdict  # noqa: E402
from list_bench import build  # noqa: E402 - realistic sessions of every kind, four agents
from textual import events  # noqa: E402

from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.ui.app import SessionsApp  # noqa: E402
from sessions_tui.ui.screens.main.main import MainScreen  # noqa: E402
from sessions_tui.ui.widgets.session_table import SessionTable  # noqa: E402

PAINTS: list[float] = []
_render_lines = SessionTable.render_lines


FIRST_ROWS: list[float] = []


def _noting_render_lines(self, crop):  # type: ignore[no-untyped-def]
    PAINTS.append(time.perf_counter())
    if self.row_count and not FIRST_ROWS:
        FIRST_ROWS.append(PAINTS[-1])
    return _render_lines(self, crop)


SessionTable.render_lines = _noting_render_lines  # measurement only

LOADS: list[float] = []
_page_loaded = MainScreen.on_main_screen_page_loaded


def _noting_page_loaded(self, event):  # type: ignore[no-untyped-def]
    _page_loaded(self, event)
    LOADS.append(time.perf_counter())


MainScreen.on_main_screen_page_loaded = _noting_page_loaded  # measurement only

KEYSTROKES = "roomtask"  # typed one by one into the filter, then erased
FIRST_PAINT_LIMIT = 0.5
KEYSTROKE_LIMIT = 0.100
RSS_LIMIT_MB = 300


async def wait_for(predicate, timeout: float = 30.0) -> None:
    deadline = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > deadline:
            raise TimeoutError("the dashboard did not get there in time")
        await asyncio.sleep(0.001)


async def measure(count: int, tmp: Path) -> dict:
    engine, _ = build(tmp / "state", count, seed=count)
    start = time.perf_counter()
    app = SessionsApp(LocalBackend(engine), watch_store=False, steady=True)
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_for(lambda: bool(FIRST_ROWS))
        first_paint = FIRST_ROWS[0] - start
        screen = app.main_screen
        await wait_for(lambda: screen.counted)  # the count comes after the first page
        total = screen.total
        await pilot.press("slash")
        await pilot.pause(0.3)
        samples = []
        for key in list(KEYSTROKES) + ["backspace"] * len(KEYSTROKES):
            loaded = screen.pages_loaded
            t0 = time.perf_counter()
            event = events.Key(key, key if len(key) == 1 else None)
            event.set_sender(app)
            app._driver.send_message(event)  # as the terminal driver delivers a key
            await wait_for(lambda loaded=loaded: screen.pages_loaded > loaded)
            shown = LOADS[-1]
            await wait_for(lambda shown=shown: PAINTS[-1] >= shown)
            samples.append(PAINTS[-1] - t0)
            await asyncio.sleep(0.05)  # a typist's pace, not a burst
        await wait_for(lambda: screen.counted)
        narrowed = screen.total
        await pilot.press("escape")  # back to the table
        await pilot.press("right_square_bracket")  # page 2 of the whole set
        await wait_for(lambda: screen.page_offset > 0)
    return {
        "count": count,
        "total_visible": total,
        "first_paint_s": first_paint,
        "keystroke_median_s": statistics.median(samples),
        "keystroke_max_s": max(samples),
        "keystroke_p90_s": sorted(samples)[int(0.9 * (len(samples) - 1))],
        "keystrokes_ms": [round(x * 1000, 1) for x in samples],
        "filtered_total": narrowed,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def run_child(count: int) -> dict:
    proc = subprocess.run(
        [sys.executable, __file__, "--child", str(count)], capture_output=True, text=True, timeout=600
    )
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        count = int(sys.argv[2])

        def child(tmp: Path) -> int:
            print(json.dumps(asyncio.run(measure(count, tmp))))
            return 0

        return in_temp_dir(f"ui-bench-{count}-", child)
    ok = True
    for count in (10_000, 100_000):
        r = run_child(count)
        print(
            f"{count:,} sessions ({r['total_visible']:,} visible): first paint {r['first_paint_s'] * 1000:.0f} ms; "
            f"filter keystroke median {r['keystroke_median_s'] * 1000:.1f} ms, max "
            f"{r['keystroke_max_s'] * 1000:.1f} ms; peak RSS {r['rss_mb']:.0f} MB"
        )
        if count == 10_000:
            ok &= r["first_paint_s"] < FIRST_PAINT_LIMIT and r["keystroke_max_s"] < KEYSTROKE_LIMIT
        else:
            ok &= r["rss_mb"] < RSS_LIMIT_MB
    return verdict(
        ok,
        f"10k: first paint < {FIRST_PAINT_LIMIT * 1000:.0f} ms and every keystroke < "
        f"{KEYSTROKE_LIMIT * 1000:.0f} ms; 100k: usable (paged) with RSS < {RSS_LIMIT_MB} MB",
    )


if __name__ == "__main__":
    sys.exit(main())
