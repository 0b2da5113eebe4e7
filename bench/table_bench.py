"""The session table at 100,000 sessions: keystrokes, sorts, deep pages and the first paint.

Requirements (100,000 sessions of every kind over four agents, those of list_bench.py):
- a filter keystroke -> the table painted with the filtered page: every one <= 50 ms (words of
  `TYPED`, each typed and erased: one- and two-letter prefixes of common and of rare needles);
- a sort by each sortable column, both directions -> the table painted: every one <= 50 ms;
- page 500 (rows 49,901-50,000, read by keyset after page 499) as fast as page 1: median ratio <= 1.5;
- process start -> the table's first paint with rows <= 0.8 s (median of 5 fresh processes after a
  warm-up one), counted from the moment the parent spawns the process, so Python's start and every
  import are in it (bytecode cached, as for an installed program: the warm-up run writes it under
  the temporary directory).

Keystrokes and sorts run in one process on the dashboard headless (`App.run_test`, 160x48), measured
as ui_bench.py does: from the key event (or the sort call) to `render_lines` of the table after the
new page is shown. Pages are timed through the backend (`LocalBackend.browse`, as the table reads
them: keyset, not counted), page 1 and page 500 interleaved; page 500 by OFFSET is reported too.
The first-paint process opens the state directory as the command line does (`Engine.open` with a
config file) and exits once the table paints rows.

Run: .venv/bin/python bench/table_bench.py
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
COUNT = 100_000
KEY_LIMIT_S = 0.050
SORT_LIMIT_S = 0.050
DEEP_PAGE = 500
DEEP_RATIO = 1.5
START_LIMIT_S = 0.8
STARTS = 5
TYPED = ["roomtask", "xylo", "qa", "job-4", "7f"]
"""Typed one key at a time, then erased: common first keys and prefixes (r, ro, 7, 7f), rare ones
(x, xy, q, qa, j: too short for the trigram index and in no or few sessions: the letter index
narrows them), and needles the trigram index narrows (roo..., job-4, xyl...)."""


def first_paint_child(state: str, config: str, spawned_at: float) -> None:
    """Open the dashboard headless on `state` and print how long after `spawned_at` (the parent's
    clock, epoch seconds) the table first painted rows."""
    import asyncio

    from sessions_tui.backend.local.backend import LocalBackend
    from sessions_tui.engine.engine import Engine
    from sessions_tui.ui.app import SessionsApp
    from sessions_tui.ui.widgets.session_table import SessionTable

    painted: list[float] = []
    render_lines = SessionTable.render_lines

    def noting(self, crop):  # type: ignore[no-untyped-def]
        if self.row_count and not painted:
            painted.append(time.time())
        return render_lines(self, crop)

    SessionTable.render_lines = noting  # measurement only

    async def run() -> None:
        engine, _ = Engine.open(Path(state), Path(config))
        async with SessionsApp(LocalBackend(engine)).run_test(size=(160, 48)):
            while not painted:
                await asyncio.sleep(0.001)

    asyncio.run(run())
    print(json.dumps({"first_paint_s": painted[0] - spawned_at}), flush=True)
    os._exit(0)  # the paint is what is measured, not the teardown


def ui_child(state: str, config: str) -> None:
    """Keystrokes and sorts on the dashboard headless; prints the samples as JSON."""
    import asyncio

    sys.path.insert(0, str(HERE))
    from textual import events
    from ui_bench import LOADS, PAINTS, wait_for  # noqa: E402 - also notes paints and loaded pages

    from sessions_tui.backend.local.backend import LocalBackend
    from sessions_tui.engine.engine import Engine
    from sessions_tui.ui.app import SessionsApp
    from sessions_tui.ui.screens.main.sorting import SORTS

    async def painted_after(screen, loaded: int, t0: float) -> float:  # type: ignore[no-untyped-def]
        await wait_for(lambda: screen.pages_loaded > loaded)
        shown = LOADS[-1]
        await wait_for(lambda: PAINTS[-1] >= shown)
        return PAINTS[-1] - t0

    async def run() -> dict[str, object]:
        engine, _ = Engine.open(Path(state), Path(config))
        app = SessionsApp(LocalBackend(engine), watch_store=False, steady=True)
        async with app.run_test(size=(160, 48)) as pilot:
            screen = app.main_screen

            async def press(key: str) -> float:
                loaded, t0 = screen.pages_loaded, time.perf_counter()
                event = events.Key({"-": "minus"}.get(key, key), key if len(key) == 1 else None)
                event.set_sender(app)
                app._driver.send_message(event)  # as the terminal driver delivers a key
                return await painted_after(screen, loaded, t0)

            await wait_for(lambda: screen.pages_loaded > 0 and screen.counted)
            total = screen.total
            await pilot.press("slash")
            await pilot.pause(0.3)
            keys = []
            for word in TYPED:
                for key in [*word] + ["backspace"] * len(word):
                    keys.append(await press(key))
                    await asyncio.sleep(0.05)  # a typist's pace
            await pilot.press("escape")
            await wait_for(lambda: screen.counted)
            sorts = {}
            for order_by in SORTS:
                for descending in (True, False):
                    loaded, t0 = screen.pages_loaded, time.perf_counter()
                    screen.set_sort(order_by, descending)
                    sorts[f"{order_by} {'desc' if descending else 'asc'}"] = await painted_after(screen, loaded, t0)
                    await wait_for(lambda: screen.counted)
            screen.set_sort("updated", True)
            await wait_for(lambda: screen.counted and screen.query_state.order_by == "updated")
            await pilot.pause(0.2)
            next_page = await press("right_square_bracket")
        return {"total": total, "keys": keys, "sorts": sorts, "next_page": next_page}

    print(json.dumps(asyncio.run(run())), flush=True)


def pages(engine) -> dict[str, list[float]]:  # type: ignore[no-untyped-def]
    """Page 1 and page 500 as the table reads them (keyset, not counted), interleaved; page 500 by
    OFFSET for reference. Seconds per call."""
    import asyncio

    from sessions_tui.backend.contract.types import Requester
    from sessions_tui.backend.local.backend import LocalBackend
    from sessions_tui.backend.values.views import BrowseQuery

    backend = LocalBackend(engine)
    query, who, loop = BrowseQuery(), Requester(), asyncio.new_event_loop()

    def browse(**kw):  # type: ignore[no-untyped-def]
        return loop.run_until_complete(backend.browse(who, query, limit=100, count=False, **kw))

    page, before_deep = browse(offset=0), None
    for number in range(2, DEEP_PAGE + 1):
        before_deep = page.last
        page = browse(offset=(number - 1) * 100, after=page.last)
    by_offset = browse(offset=(DEEP_PAGE - 1) * 100)
    assert [r["_key"] for r in page.rows] == [r["_key"] for r in by_offset.rows], "keyset page 500 == OFFSET page"
    samples: dict[str, list[float]] = {"page 1": [], f"page {DEEP_PAGE}": [], f"page {DEEP_PAGE} by OFFSET": []}
    calls = {
        "page 1": lambda: browse(offset=0),
        f"page {DEEP_PAGE}": lambda: browse(offset=(DEEP_PAGE - 1) * 100, after=before_deep),
        f"page {DEEP_PAGE} by OFFSET": lambda: browse(offset=(DEEP_PAGE - 1) * 100),
    }
    for round_ in range(35):
        for name, call in calls.items():
            t0 = time.perf_counter()
            call()
            if round_ >= 5:
                samples[name].append(time.perf_counter() - t0)
    loop.close()
    return samples


def child_json(args: list[str], env: dict[str, str] | None = None) -> dict:  # type: ignore[type-arg]
    proc = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, timeout=900, env=env)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def bench(tmp: Path) -> int:
    sys.path.insert(0, str(HERE))
    from _common import check, describe, verdict
    from list_bench import CONFIG, build

    t0 = time.perf_counter()
    engine, _ = build(tmp / "state", COUNT, seed=COUNT)
    print(f"setup: {COUNT:,} sessions in {time.perf_counter() - t0:.1f} s")
    check(engine.store.sessions.count(include_archived=True) == COUNT, "the store holds 100,000 sessions")
    config = tmp / "config.json"
    config.write_text(json.dumps(CONFIG))
    paged = pages(engine)
    engine.close()
    state = str(tmp / "state")

    # As an installed program starts: with its bytecode cached (written by the warm-up run, under
    # the temporary directory, whatever PYTHONDONTWRITEBYTECODE says here).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    starts = []
    for run in range(STARTS + 1):
        spawned_at = time.time()
        r = child_json(["--first-paint", state, str(config), repr(spawned_at)], env)
        if run:
            starts.append(r["first_paint_s"])
    ui = child_json(["--ui", state, str(config)])

    keys, sorts = ui["keys"], ui["sorts"]
    print(f"{COUNT:,} sessions, {ui['total']:,} visible to main")
    print(f"filter keystroke -> paint   {describe(keys)}")
    at = 0
    for word in TYPED:
        each = keys[at : at + 2 * len(word)]
        at += len(each)
        print(f"  {word!r} typed, then erased: {', '.join(f'{k * 1000:.0f}' for k in each)} ms")
    for name, value in sorts.items():
        print(f"sort {name:<14} -> paint {value * 1000:7.1f} ms")
    print(f"next page (]) -> paint     {ui['next_page'] * 1000:7.1f} ms")
    for name, values in paged.items():
        print(f"{name:<22} {describe(values)}")
    print(f"process start -> first paint: {', '.join(f'{s * 1000:.0f}' for s in starts)} ms")
    ratio = statistics.median(paged[f"page {DEEP_PAGE}"]) / statistics.median(paged["page 1"])
    start = statistics.median(starts)
    results = [
        (max(keys) <= KEY_LIMIT_S, f"keystroke max {max(keys) * 1000:.1f} ms <= {KEY_LIMIT_S * 1000:.0f}"),
        (
            max(sorts.values()) <= SORT_LIMIT_S,
            f"sort max {max(sorts.values()) * 1000:.1f} ms <= {SORT_LIMIT_S * 1000:.0f}",
        ),
        (ratio <= DEEP_RATIO, f"page {DEEP_PAGE} / page 1 {ratio:.2f} <= {DEEP_RATIO}"),
        (start <= START_LIMIT_S, f"start -> first paint median {start * 1000:.0f} ms <= {START_LIMIT_S * 1000:.0f}"),
    ]
    for ok, text in results:
        print(("ok    " if ok else "FAILS ") + text)
    return verdict(all(ok for ok, _ in results), "; ".join(text for _, text in results))


def main() -> int:
    if len(sys.argv) == 5 and sys.argv[1] == "--first-paint":
        first_paint_child(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    if len(sys.argv) == 4 and sys.argv[1] == "--ui":
        ui_child(sys.argv[2], sys.argv[3])
        return 0
    sys.path.insert(0, str(HERE))
    from _common import in_temp_dir

    return in_temp_dir("table-bench-", bench)


if __name__ == "__main__":
    sys.exit(main())
