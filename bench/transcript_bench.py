"""Opening a big transcript in the dashboard, headless.

Requirement (issue 10, the transcript pane): the newest message of a 450-message session is on
screen under 0.3 s after the session is opened.

The app runs headless (`App.run_test`, 160x48) on the demo plus two 450-message sessions
(users asking, the assistant thinking and answering in a few paragraphs, now and then with a
tool call, as a real agent's transcript reads). Each open starts from a short session; the time
runs from `TranscriptPane.open` to the moment the newest message's text is painted
(its `render_lines` runs, which Textual does only for what is visible). Then the same, each
open starting from another 450-message session (its 200 messages to remove first). Also
reported: when the whole page (200 messages) is in the pane, and the longest stretch the event
loop was blocked until then (what a key pressed meanwhile would wait). 2 warm-up opens, then 9
timed, median.

Run: .venv/bin/python bench/transcript_bench.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the scenes
from _common import check, in_temp_dir, verdict  # noqa: E402
from textual.geometry import Region  # noqa: E402
from textual.strip import Strip  # noqa: E402

from scenes import demo_app, settle  # type: ignore[import-not-found]  # noqa: E402
from sessions_tui.ui.widgets.message_view import MessageView  # noqa: E402
from sessions_tui.ui.widgets.transcript import TranscriptPane  # noqa: E402

BIG = "agent:main:discord:group:big"
OTHER_BIG = "agent:main:discord:group:other-big"
SHORT = "agent:main:cron:nightly-report"
MESSAGES = 450
PAGE = 200
WARMUP, RUNS = 2, 9
LIMIT_S = 0.3
NEWEST = f"the newest answer, number {MESSAGES - 1}"

PAINTED: list[float] = []
_render_lines = MessageView.render_lines


def _noting_render_lines(self: MessageView, crop: Region) -> list[Strip]:
    if not PAINTED and NEWEST in self.plain:
        PAINTED.append(time.perf_counter())
    return _render_lines(self, crop)


MessageView.render_lines = _noting_render_lines  # type: ignore[method-assign,assignment]  # measurement only


def _message(i: int, now: int) -> dict[str, Any]:
    ts = now - (MESSAGES - i) * 60_000
    if i == MESSAGES - 1:
        return {"role": "assistant", "content": [{"type": "text", "text": NEWEST}], "timestamp": ts}
    if i % 2 == 0:
        return {"role": "user", "content": f"question {i}: how do the deploys look on host-{i % 7}?", "timestamp": ts}
    content: list[dict[str, Any]] = [{"type": "thinking", "thinking": f"Let me look at host-{i % 7}. " * 3}]
    if i % 10 == 1:
        content.append({"type": "toolCall", "id": f"c{i}", "name": "sessions_list", "arguments": {"limit": 5}})
    paragraphs = [f"Answer {i}, part {p}: the deploy went through, latency is steady." for p in range(3)]
    content.append({"type": "text", "text": "\n\n".join(paragraphs)})
    return {"role": "assistant", "content": content, "timestamp": ts}


async def _open_once(app: Any, pilot: Any, start: str) -> tuple[float, float, float]:
    pane = app.main_screen.query_one(TranscriptPane)
    pane.open(start)
    await settle(pilot)
    PAINTED.clear()
    gaps: list[float] = []
    t0 = last = time.perf_counter()
    pane.open(BIG)
    full = 0.0
    deadline = t0 + 30
    while time.perf_counter() < deadline:
        await asyncio.sleep(0)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
        if PAINTED and not full and len(pane.query(MessageView)) >= PAGE:
            full = now
        if PAINTED and full:
            break
    check(bool(PAINTED) and bool(full), "the newest message painted and the whole page mounted")
    await settle(pilot)
    views = list(pane.query(MessageView))
    check(NEWEST in str(views[-1].message.get("content")), "the last message is the newest")
    return PAINTED[0] - t0, full - t0, max(gaps)


async def _run(state: Path) -> int:
    app = demo_app(state)
    now = app.engine.now()
    for key in (BIG, OTHER_BIG):
        app.engine.store.sessions.create(key, {"updatedAt": now})
        for i in range(MESSAGES):
            app.engine.store.transcripts.append(key, _message(i, now), touch=False)
    medians = []
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        for start, what in ((SHORT, "a short session"), (OTHER_BIG, f"another {MESSAGES}-message session")):
            newest, whole, blocked = [], [], []
            for n in range(WARMUP + RUNS):
                shown, full, gap = await _open_once(app, pilot, start)
                if n >= WARMUP:
                    newest.append(shown)
                    whole.append(full)
                    blocked.append(gap)
            medians.append(statistics.median(newest))
            print(f"{MESSAGES}-message session opened from {what}, {RUNS} opens after {WARMUP} warm-up:")
            print(
                f"  newest message painted: median {medians[-1] * 1000:7.1f} ms   (min {min(newest) * 1000:.1f}, "
                f"max {max(newest) * 1000:.1f})"
            )
            print(f"  whole page ({PAGE}) in the pane: median {statistics.median(whole) * 1000:7.1f} ms")
            print(f"  longest event-loop block until then: median {statistics.median(blocked) * 1000:7.1f} ms")
    worst = max(medians)
    return verdict(
        worst < LIMIT_S,
        f"newest message on screen {worst * 1000:.0f} ms after opening, worse median "
        f"of the two (< {LIMIT_S * 1000:.0f} ms)",
    )


def main() -> int:
    return in_temp_dir("transcript-bench-", lambda tmp: asyncio.run(_run(tmp / "state")))


if __name__ == "__main__":
    raise SystemExit(main())
