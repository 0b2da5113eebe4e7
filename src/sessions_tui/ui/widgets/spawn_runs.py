"""The spawn panel's runs list: the requester's spawn tree, a row each, with the columns that fit.

A child's grandchildren stand indented under it; TOKENS and COST are rolled up over each subtree.

A status is never cut: its column is as wide as the longest status it shows (`⏱ timed out` at
least, `▶ waiting on 2 children` while a finished parent's descendants still run, as the
`subagents` tool says), and columns drop by `RUN_DROP` (AGENT, COST, TOKENS, ELAPSED) when the
panel is narrow. A row opens on enter or a single click (`RunsTable.Chosen`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.events import Click, Resize
from textual.message import Message
from textual.widgets import DataTable

from sessions_tui.backend.values.views import ChildView
from sessions_tui.ui.text import STATUS_ICONS, span
from sessions_tui.ui.widgets.column_fit import fit_widths

STATUS_WORDS = {"running": "running", "done": "done", "failed": "failed", "killed": "killed", "timeout": "timed out"}
STATUS_WIDTH = max(len(f"{STATUS_ICONS.get(s, '·')} {w}") for s, w in STATUS_WORDS.items())


def waiting_on(children: Sequence[ChildView]) -> dict[str, int]:
    """Each run's descendants still running (child key → count), over a spawn tree flattened parent
    first (`parent_key` names each row's parent), as the `subagents` tool counts `pendingDescendants`."""
    parent_of = {child.child_key: child.parent_key for child in children}
    waiting = dict.fromkeys(parent_of, 0)
    for child in children:
        if child.status != "running":
            continue
        seen = {child.child_key}
        ancestor = child.parent_key
        while ancestor in waiting and ancestor not in seen:
            seen.add(ancestor)
            waiting[ancestor] += 1
            ancestor = parent_of[ancestor]
    return waiting


def status_cell(status: str, waiting: int = 0) -> Text:
    """`▶ running`, `⏱ timed out`…; a running or done run with descendants still running is
    `▶ waiting on 1 child` (the `subagents` tool's words). An unknown status word too long for the
    narrowest column shows as its icon alone."""
    if waiting and status in ("running", "done"):
        return span(f"{STATUS_ICONS['running']} waiting on {waiting} {'child' if waiting == 1 else 'children'}", "bold")
    icon = STATUS_ICONS.get(status, "·")
    word = STATUS_WORDS.get(status, status)
    shown = f"{icon} {word}" if len(word) + 2 <= STATUS_WIDTH else icon
    return span(shown, style="bold" if status == "running" else "")


@dataclass(frozen=True)
class RunColumn:
    key: str
    title: str
    width: int


RUN_COLUMNS = [
    RunColumn("label", "LABEL", 10),
    RunColumn("agent", "AGENT", 7),
    RunColumn("status", "STATUS", STATUS_WIDTH),
    RunColumn("elapsed", "ELAPSED", 7),
    RunColumn("tokens", "TOKENS", 6),
    RunColumn("cost", "COST", 7),
]
RUN_DROP = ["agent", "cost", "tokens", "elapsed"]


def tree_label(label: str, depth: int) -> str:
    """A run's label indented under its parent (`depth` 1: the requester's own child)."""
    return label if depth <= 1 else "  " * (depth - 2) + "└ " + label


def cost_text(cost: float | None) -> str:
    """`$0.0123` (cents and below to four places), `n/a` when some part of it has no price."""
    if cost is None:
        return "n/a"
    return f"${cost:.2f}" if cost >= 1 else f"${cost:.4f}"


LABEL_MAX = 24
PADDING = 1  # DataTable's cell padding, each side


def fit_run_columns(width: int, status_width: int = STATUS_WIDTH) -> dict[str, int]:
    """The runs columns shown in `width` cells and their widths (STATUS `status_width` wide, its
    longest); LABEL takes what is left, up to LABEL_MAX."""
    widths = {c.key: max(c.width, status_width) if c.key == "status" else c.width for c in RUN_COLUMNS}
    return fit_widths(widths, RUN_DROP, width, flexible="label", flexible_max=LABEL_MAX, per_column=2 * PADDING)


class RunsTable(DataTable[Text]):
    """Rows keyed by run id; `show` applies row diffs. Each row knows its child's session key.
    `x` kills the highlighted sub-agent and its subtree, `e` steers it (`Control`)."""

    BINDINGS = [
        Binding("x", "control('kill')", "kill", id="spawn_kill", tooltip="kill the sub-agent and its subtree"),
        Binding("e", "control('steer')", "steer", id="spawn_steer", tooltip="steer the running sub-agent"),
    ]

    class Chosen(Message):
        def __init__(self, run_id: str) -> None:
            super().__init__()
            self.run_id = run_id

    class Control(Message):
        """Kill or steer the highlighted run's sub-agent."""

        def __init__(self, run_id: str, action: str) -> None:
            super().__init__()
            self.run_id = run_id
            self.action = action

    def action_control(self, action: str) -> None:
        if self.row_count:
            key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
            if key is not None:
                self.post_message(self.Control(key, action))

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, cell_padding=PADDING, **kwargs)
        self.values: dict[str, dict[str, Text]] = {}
        self.widths: dict[str, int] = {}

    def on_resize(self, _: Resize) -> None:
        self._fit()

    def _fit(self) -> bool:
        """Fit the columns to the width and the longest status shown; whether they changed (then
        every row was added again)."""
        status_width = max((self.values[run_id]["status"].cell_len for run_id in self.values), default=0)
        widths = fit_run_columns(self.scrollable_content_region.width, status_width)
        if widths != self.widths:
            current = self.coordinate_to_cell_key(self.cursor_coordinate).row_key if self.row_count else None
            self.widths = widths
            self.clear(columns=True)
            for column in RUN_COLUMNS:
                if column.key in widths:
                    self.add_column(column.title, key=column.key, width=widths[column.key])
            for run_id, values in self.values.items():
                self.add_row(*self._cells(values), key=run_id)
            if current is not None and current.value in self.values:
                self.move_cursor(row=self.get_row_index(current), animate=False)
            return True
        return False

    def _cells(self, values: dict[str, Text]) -> list[Text]:
        out = []
        for column in RUN_COLUMNS:
            if column.key in self.widths:
                cell = values[column.key].copy()
                cell.truncate(self.widths[column.key], overflow="ellipsis")
                out.append(cell)
        return out

    def show(self, wanted: dict[str, dict[str, Text]]) -> None:
        """The rows to show in order (run id → column → text): changed cells change in place; a new
        or departed run re-lists the rows in `wanted`'s order (newest first), keeping the cursor's run."""
        before, self.values = self.values, dict(wanted)
        if not self.widths:
            return  # not laid out yet: on_resize adds the rows
        if self._fit():
            return  # a status wider or narrower than the column was: laid out again, every row added
        if list(before) != list(wanted):
            current = self.coordinate_to_cell_key(self.cursor_coordinate).row_key if self.row_count else None
            self.clear()
            for run_id, values in wanted.items():
                self.add_row(*self._cells(values), key=run_id)
            if current is not None and current.value in wanted:
                self.move_cursor(row=self.get_row_index(current), animate=False)
            return
        shown = [c.key for c in RUN_COLUMNS if c.key in self.widths]
        for run_id, values in wanted.items():
            if before[run_id] != values:
                for column, cell in zip(shown, self._cells(values), strict=True):
                    self.update_cell(run_id, column, cell)

    def on_click(self, event: Click) -> None:
        """A click on a row chooses it at once (DataTable alone would only move the cursor there)."""
        row = event.style.meta.get("row")
        if isinstance(row, int) and 0 <= row < self.row_count and row != self.cursor_row:
            event.prevent_default()
            self.move_cursor(row=row)
            self.action_select_cursor()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Chosen(event.row_key.value))
