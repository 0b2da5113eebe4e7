"""The Usage view's chart: tokens per hour or day as bars (a line when there are many), drawn by
textual-plotext. Loaded only when the Usage view opens (its import is plotext's)."""

from __future__ import annotations

from datetime import UTC, datetime

from textual.events import Resize
from textual_plotext import PlotextPlot

from sessions_tui.backend.values.usage import UsageBucket
from sessions_tui.ui.text import short_number

MAX_BARS = 48  # more buckets than this are drawn as a line, not bars


def bucket_label(start: int, every: UsageBucket) -> str:
    """A bucket as the x axis names it (UTC): `04-13` a day, `13 09h` an hour."""
    moment = datetime.fromtimestamp(start / 1000, UTC)
    return moment.strftime("%m-%d") if every == "day" else moment.strftime("%d %Hh")


class UsageChart(PlotextPlot):
    """Tokens over time: `show` the points (each bucket's start and tokens, oldest first); drawn again
    for each width, its labels chosen to fit it (never plotext's own, which keep an earlier size's)."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self.points: list[tuple[int, int]] = []
        self.every: UsageBucket = "day"
        self.shown = False
        self.drawn_width = 0

    def show(self, points: list[tuple[int, int]], every: UsageBucket) -> None:
        self.points, self.every, self.shown = points, every, True
        self._draw()

    def clear(self) -> None:
        self.points, self.shown = [], False
        self._draw()

    def on_resize(self, _: Resize) -> None:
        if self.size.width != self.drawn_width:
            self._draw()

    def _draw(self) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        self.drawn_width = self.size.width
        if self.shown:
            points, every = self.points, self.every
            values = [tokens for _, tokens in points]
            plt.title(f"tokens per {every} (cost estimated)")
            xs = [float(n) for n in range(len(points))]
            if len(points) <= MAX_BARS:
                plt.bar(xs, values, marker="hd")
            else:
                plt.plot(xs, values, marker="braille")
            room = max(1, (self.size.width - 8) // (len(bucket_label(0, every)) + 3))
            ticks = list(range(0, len(points), max(1, -(-len(points) // room))))
            plt.xticks([xs[n] for n in ticks], [bucket_label(points[n][0], every) for n in ticks])
            top = max(values, default=0)
            steps = [top * n // 4 for n in range(5)] if top else [0, 1]
            plt.yticks([float(v) for v in steps], [short_number(v) or "0" for v in steps])
        self.refresh()
