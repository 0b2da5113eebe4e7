"""The Usage view (`U`): tokens and estimated cost over time, by agent, model or session, and the open
session's spawn tree rolled up, as the acting-as requester may see them (the operator: everything).

A full screen over the dashboard, `escape` back. A chart of the tokens per hour or day (textual-plotext,
loaded only here) with the numbers beside it: each group's turns, tokens and estimated cost, most
costly first; under them the open session's sub-agents, each with its own tokens and its subtree's
(`UsageReport.tree`). `e` toggles per hour / per day, `b` cycles by agent / model / session, `s` the
span (24h, 7d, 30d), `r` reads again. A cost is what a provider reported, else the config's price of
the model: estimated, and said so; turns of a model with neither are counted, their cost left out (`+?`).
Read off the loop (an async worker); a backend without usage says its line instead.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable, Capability, Requester
from sessions_tui.backend.toolkit.operator import OPERATOR
from sessions_tui.backend.values.usage import UsageBucket, UsageGrouping, UsageQuery, UsageReport, UsageTotals
from sessions_tui.ui.text import literal, one_line, short_number, span

if TYPE_CHECKING:
    from sessions_tui.ui.screens.usage.chart import UsageChart

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
SPANS: tuple[tuple[str, int], ...] = (("24h", DAY_MS), ("7d", 7 * DAY_MS), ("30d", 30 * DAY_MS))
"""The spans `s` steps through: a name and how far back."""
GROUPINGS: tuple[UsageGrouping, ...] = ("agent", "model", "session")
BUCKETS: tuple[UsageBucket, ...] = ("day", "hour")
BUCKET_MS: dict[UsageBucket, int] = {"hour": HOUR_MS, "day": DAY_MS}
HINT = "esc back   e hour/day   b by agent/model/session   s since 24h/7d/30d   r refresh"
NAME_WIDTH = 28


def cost_text(totals: UsageTotals) -> str:
    """`$1.23`, `$1.23+?` when some turns had no price, `?` when none had one; `—` for no turns."""
    if not totals.turns:
        return "—"
    if totals.unpriced_turns and totals.unpriced_turns == totals.turns:
        return "?"
    amount = f"${totals.cost_usd:,.2f}" if totals.cost_usd >= 0.01 or not totals.cost_usd else f"${totals.cost_usd:.4f}"
    return amount + ("+?" if totals.unpriced_turns else "")


def chart_points(report: UsageReport, now: int) -> list[tuple[int, int]]:
    """Every hour's or day's start from the report's `since` to `now` (UTC), with its tokens (0 for
    none): the chart's bars, gaps included."""
    step = BUCKET_MS[report.every]
    tokens = {p.start: p.totals.total_tokens for p in report.series}
    first, last = report.since // step * step, now // step * step
    return [(start, tokens.get(start, 0)) for start in range(first, last + 1, step)]


class UsageScreen(Screen[None]):
    """Usage as `requester` may see it (None: the operator, everything); `tree_of`, the open session,
    whose spawn tree is rolled up under the groups."""

    CSS_PATH = Path(__file__).parent / "usage.tcss"
    BINDINGS = [
        Binding("escape", "close", "back", id="usage_back", tooltip="back to the sessions"),
        Binding("e", "toggle_every", "hour/day", id="usage_every", tooltip="tokens per hour or per day"),
        Binding("b", "cycle_by", "by", id="usage_by", tooltip="group by agent, model or session"),
        Binding("s", "cycle_since", "since", id="usage_since", tooltip="since 24 hours, 7 days or 30 days ago"),
        Binding("r", "reload", "refresh", id="usage_refresh", tooltip="read the usage again"),
    ]

    class Loaded(Message):
        def __init__(self, report: UsageReport | None, generation: int, problem: str | None = None) -> None:
            super().__init__()
            self.report = report
            self.generation = generation
            self.problem = problem  # why there is no usage to show (a backend without it)

    def __init__(
        self,
        backend: Backend,
        display: Callable[[str], str],
        requester: Requester | None = None,
        tree_of: str | None = None,
    ) -> None:
        super().__init__()
        self.backend = backend
        self.display_key = display
        self.requester = requester
        self.tree_of = tree_of
        self.since = 1  # SPANS' index: 7 days
        self.by: UsageGrouping = "agent"
        self.every: UsageBucket = "day"
        self.report: UsageReport | None = None
        self.problem: str | None = None
        self.generation = 0
        self.painted = 0  # the generation whose chart is drawn (a test, the bench wait for it)

    def compose(self) -> ComposeResult:
        from sessions_tui.ui.screens.usage.chart import UsageChart  # plotext: loaded only by this view

        with Vertical(id="usage-view"):
            yield Static(id="usage-title")
            yield Static(id="usage-total")
            with Horizontal(id="usage-body"):
                yield UsageChart(id="usage-chart")
                with Vertical(id="usage-numbers"):
                    yield DataTable(id="usage-groups", cursor_type="row", zebra_stripes=True)
                    yield DataTable(id="usage-tree", cursor_type="row")
            yield Static(HINT, id="usage-hint")

    def on_mount(self) -> None:
        groups = self.query_one("#usage-groups", DataTable)
        for title, width in (("name", NAME_WIDTH), ("turns", 6), ("tokens", 6), ("est. cost", 10)):
            groups.add_column(title, width=width, key=title)
        tree = self.query_one("#usage-tree", DataTable)
        for title, width in (("sub-agent", NAME_WIDTH), ("own", 6), ("tree", 6), ("est. cost", 10)):
            tree.add_column(title, width=width, key=title)
        tree.display = self.tree_of is not None
        groups.focus()
        self._title()
        self.reload()

    # -- reading --------------------------------------------------------------------------------

    def usage_query(self) -> UsageQuery:
        """What the view asks for now."""
        requester = self.requester
        return UsageQuery(
            since=self.backend.now() - SPANS[self.since][1],
            by=self.by,
            every=self.every,
            tree_of=self.tree_of,
            requester=requester.key if requester is not None else None,
            sandboxed=requester.sandboxed if requester is not None else False,
        )

    def reload(self) -> None:
        self.generation += 1
        if Capability.USAGE not in self.backend.capabilities:
            self.post_message(self.Loaded(None, self.generation, self.backend.not_offered(Capability.USAGE)))
            return
        self._load(self.generation, self.usage_query())

    @work(exclusive=True, group="usage", exit_on_error=False)
    async def _load(self, generation: int, query: UsageQuery) -> None:
        try:
            report = await self.backend.usage(query)
        except BackendUnavailable as exc:
            self.post_message(self.Loaded(None, generation, str(exc)))
            return
        self.post_message(self.Loaded(report, generation))

    def on_usage_screen_loaded(self, event: Loaded) -> None:
        if event.generation != self.generation:
            return
        self.report, self.problem = event.report, event.problem
        self._show()
        self.painted = event.generation

    # -- showing --------------------------------------------------------------------------------

    def _who(self) -> str:
        """The acting-as session as the header names it (the default agent's view of its key), or the operator."""
        if self.requester is None:
            return OPERATOR
        return self.backend.redact(self.backend.display(self.requester.key or self.backend.main_session_key()))

    def _title(self) -> None:
        words = f"Usage as {self._who()} · since {SPANS[self.since][0]} · per {self.every} · by {self.by}"
        self.query_one("#usage-title", Static).update(literal(one_line(words, 400), "bold"))

    def _show(self) -> None:
        self._title()
        report = self.report
        total = self.query_one("#usage-total", Static)
        if report is None:
            total.update(literal(self.problem or "", "$warning"))
            self._chart(None)
            self._groups(None)
            self._tree(None)
            return
        line = Text()
        line.append_text(span(f"{report.total.turns:,} turns  ", "bold"))
        line.append_text(span(f"{short_number(report.total.total_tokens) or '0'} tokens  ", "bold"))
        line.append_text(span(f"estimated cost {cost_text(report.total)}", "bold"))
        if report.total.unpriced_turns:
            line.append_text(span(f"  ({report.total.unpriced_turns:,} turns without a price left out)", "dim"))
        if report.note:
            line.append_text(literal(f"  {one_line(report.note, 300)}", "dim"))
        total.update(line)
        self._chart(report)
        self._groups(report)
        self._tree(report)

    def _chart(self, report: UsageReport | None) -> None:
        chart: UsageChart = self.query_one("#usage-chart")  # type: ignore[assignment]
        if report is None:
            chart.clear()
        else:
            chart.show(chart_points(report, self.backend.now()), report.every)

    def _groups(self, report: UsageReport | None) -> None:
        table = self.query_one("#usage-groups", DataTable)
        table.clear()
        if report is None:
            return
        table.columns[next(iter(table.columns))].label = Text(report.by)
        for group in report.groups:
            name = self.display_key(group.name) if report.by == "session" else group.name
            table.add_row(*self._cells(name, group.totals, group.totals.turns), key=group.name)

    def _tree(self, report: UsageReport | None) -> None:
        table = self.query_one("#usage-tree", DataTable)
        table.clear()
        if report is None or self.tree_of is None:
            return
        title = f"sub-agents of {self.display_key(self.tree_of)}"
        table.columns[next(iter(table.columns))].label = Text(one_line(title, NAME_WIDTH))
        for node in report.tree:
            name = "  " * (node.depth - 1) + self.display_key(node.key)
            own = short_number(node.own.total_tokens) or "0"
            table.add_row(*self._cells(name, node.tree, own), key=node.key)
        if not report.tree:
            table.add_row(literal("no sub-agents", "dim"), "", "", "")

    @staticmethod
    def _cells(name: str, totals: UsageTotals, second: int | str) -> tuple[Text, Text, Text, Text]:
        return (
            literal(one_line(name, NAME_WIDTH)),
            span(str(second) if isinstance(second, str) else f"{second:,}"),
            span(short_number(totals.total_tokens) or "0"),
            span(cost_text(totals)),
        )

    # -- actions --------------------------------------------------------------------------------

    def action_toggle_every(self) -> None:
        """`e`: per hour, per day."""
        self.every = BUCKETS[(BUCKETS.index(self.every) + 1) % len(BUCKETS)]
        self.reload()

    def action_cycle_by(self) -> None:
        """`b`: by agent, model, session."""
        self.by = GROUPINGS[(GROUPINGS.index(self.by) + 1) % len(GROUPINGS)]
        self.reload()

    def action_cycle_since(self) -> None:
        """`s`: since 24 hours, 7 days, 30 days ago."""
        self.since = (self.since + 1) % len(SPANS)
        self.reload()

    def action_reload(self) -> None:
        self.reload()

    def action_close(self) -> None:
        self.dismiss(None)
