"""The session table: one row per visible session, updated in place as sessions change.

Each row is composed once into a single line of fixed-width columns, so the table renders one
cell per row instead of one per column (nine times fewer renders: a filter keystroke repaints in
a few milliseconds). The column titles live in `TableHeader`, whose titles sort on click.

The columns that fit the table's width are shown; the others drop in `DROP_ORDER` (MODEL first:
the same for most sessions; CHANNEL next: usually spelled in the key; SEND: a `deny` also shows
as `⊘` beside the key; then TOKENS, KIND, LABEL, UPDATED). KEY and ST always stay, and KEY takes
the width left over, up to `KEY_MAX`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.style import Style
from rich.text import Text
from textual._two_way_dict import TwoWayDict
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.css.styles import RenderStyles
from textual.events import Click, Resize
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widgets import DataTable, Static
from textual.widgets.data_table import ColumnKey, RowDoesNotExist

from sessions_tui.ui.text import (
    STATUS_ICONS,
    literal,
    relative_time,
    short_number,
    span,
)


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    sort: str | None  # sort key of tools.browse, or None
    width: int
    right: bool = False


COLUMNS = [
    Column("key", "KEY", "key", 24),
    Column("kind", "KIND", "kind", 5),
    Column("channel", "CHANNEL", "channel", 8),
    Column("label", "LABEL", "label", 14),
    Column("updated", "UPDATED", "updated", 7),
    Column("model", "MODEL", "model", 8),
    Column("tokens", "TOKENS", "tokens", 6, right=True),
    Column("status", "ST", "status", 2),
    Column("send", "SEND", None, 6),  # "allow*" / "deny*": the override mark always shows
]
DROP_ORDER = ["model", "channel", "send", "tokens", "kind", "label", "updated"]
KEY_MAX = 48
GAP = "  "
LINE = "line"
COMPOSED_KEPT = 4096  # composed lines kept for the rows shown lately


def fit_columns(width: int) -> dict[str, int]:
    """The columns shown in `width` cells (in table order) and each one's width.

    Columns drop in `DROP_ORDER` until the rest fit; KEY then takes what is left, up to `KEY_MAX`.
    """
    shown = [c.key for c in COLUMNS]

    def total(keys: list[str]) -> int:
        return sum(c.width for c in COLUMNS if c.key in keys) + len(GAP) * (len(keys) - 1)

    for column in DROP_ORDER:
        if total(shown) <= width:
            break
        shown.remove(column)
    widths = {c.key: c.width for c in COLUMNS if c.key in shown}
    widths["key"] = max(widths["key"], min(KEY_MAX, widths["key"] + width - total(shown)))
    return widths


def line_width(widths: dict[str, int]) -> int:
    return sum(widths.values()) + len(GAP) * (len(widths) - 1)


def cells(row: dict[str, Any], now_ms: int) -> dict[str, Text]:
    """What each column shows for a row of `tools.browse`."""
    denied = row.get("_send") == "deny"
    key = literal(row["key"])
    if denied:
        key = span("⊘ ", style="bold $error") + key
    label = row.get("label") or row.get("displayName") or ""
    send = span("deny" if denied else "allow", style="$error" if denied else "dim")
    if row.get("sendPolicy") in ("allow", "deny"):
        send.append("*", style="bold")
    status = row.get("status")
    if row.get("archived"):
        status_cell = span("ar", style="dim")
    else:
        status_cell = span(STATUS_ICONS.get(status or "", "·"), style="bold" if status == "running" else "dim")
    return {
        "key": key,
        "kind": Text(row.get("kind", "")),
        "channel": literal(row.get("channel", "")),
        "label": literal(label),
        "updated": Text(relative_time(row.get("updatedAt"), now_ms)),
        "model": literal(row.get("model") or ""),
        "tokens": Text(short_number(row.get("totalTokens"))),
        "status": status_cell,
        "send": send,
    }


def shown_fields(row: dict[str, Any], now_ms: int) -> tuple[Any, ...]:
    """Everything `cells` reads of a row (the update time as shown): rows with equal fields show
    the same line, so a line is composed once for all of them (`SessionTable` keeps recent ones)."""
    return (
        row["key"],
        row.get("_send"),
        row.get("label") or row.get("displayName"),
        row.get("sendPolicy"),
        row.get("status"),
        bool(row.get("archived")),
        row.get("kind"),
        row.get("channel"),
        relative_time(row.get("updatedAt"), now_ms),
        row.get("model"),
        row.get("totalTokens"),
    )


def compose_line(values: dict[str, Text], widths: dict[str, int] | None = None) -> Text:
    """The row as one line of the shown columns, each cut to its width with … where too long."""
    widths = widths or fit_columns(10_000)
    line = Text(no_wrap=True, end="")
    shown = [c for c in COLUMNS if c.key in widths]
    for index, column in enumerate(shown):
        width = widths[column.key]
        cell = values[column.key]
        if cell.cell_len > width:  # most cells fit: copied and cut only when not
            cell = cell.copy()
            cell.truncate(width, overflow="ellipsis")
        pad = width - cell.cell_len
        if column.right:
            line.append(" " * pad)
            line.append_text(cell)
        else:
            line.append_text(cell)
            line.append(" " * pad)
        if index < len(shown) - 1:
            line.append(GAP)
    return line


class TableHeader(Horizontal):
    """Column titles; clicking one asks to sort by it (again: the other way round)."""

    def compose(self) -> ComposeResult:
        self._shown = {column.key: column.title for column in COLUMNS}
        for column in COLUMNS:
            classes = "column-title" + (" sortable" if column.sort else "")
            yield Static(column.title, classes=classes, id=f"col-{column.key}")

    def on_mount(self) -> None:
        self.show_columns(fit_columns(10_000))

    def on_click(self, event: Click) -> None:
        widget_id = event.widget.id if event.widget is not None else None
        column = widget_id[4:] if widget_id and widget_id.startswith("col-") else None
        sort = next((c.sort for c in COLUMNS if c.key == column), None)
        if sort:
            event.stop()
            self.post_message(SessionTable.SortRequested(sort))

    def show_sort(self, order_by: str, descending: bool) -> None:
        """Mark the sorted column; only the titles that change are updated (each update lays the
        screen out again, while the sorted page is being read)."""
        for column in COLUMNS:
            title = column.title + (("▼" if descending else "▲") if column.sort == order_by else "")
            if self._shown.get(column.key) != title:
                self._shown = {**self._shown, column.key: title}
                self.query_one(f"#col-{column.key}", Static).update(title)

    def show_columns(self, widths: dict[str, int]) -> None:
        """Show the titles of the columns the table shows, at their widths."""
        last = [c.key for c in COLUMNS if c.key in widths][-1]
        for column in COLUMNS:
            title = self.query_one(f"#col-{column.key}", Static)
            title.display = column.key in widths
            if column.key in widths:
                title.styles.width = widths[column.key] + (len(GAP) if column.key != last else 0)


class _PaintStyles:
    """A component's styles with its Rich style worked out once (for one paint)."""

    def __init__(self, styles: RenderStyles) -> None:
        self._styles = styles
        self.rich_style = styles.rich_style

    def __getattr__(self, name: str) -> Any:
        return getattr(self._styles, name)


class SessionTable(DataTable[Text]):
    """Rows are keyed by canonical session key; `apply` changes only the rows that differ."""

    class SortRequested(Message):
        def __init__(self, order_by: str) -> None:
            super().__init__()
            self.order_by = order_by

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, show_header=False, cell_padding=0, **kwargs)
        self.rows_by_key: dict[str, dict[str, Any]] = {}
        self.cells_by_key: dict[str, dict[str, Text]] = {}
        self.now_ms = 0
        self.widths = fit_columns(10_000)  # the columns shown and their widths
        # Recently shown rows' cells and line by what they show (`shown_fields`) at the current
        # widths: the next keystroke or page shows many of the same rows.
        self._composed: dict[tuple[Any, ...], tuple[dict[str, Text], Text]] = {}

    def on_mount(self) -> None:
        self.add_column("", key=LINE, width=line_width(self.widths))

    # DataTable asks for its own and its components' Rich styles once or more per line it renders,
    # and each is worked out through every ancestor's styles: a third of a page's paint. Within one
    # paint they cannot change, so each is worked out once per paint.
    _paint_styles: dict[tuple[str, ...], Any] | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        self._paint_styles = {}
        try:
            return super().render_lines(crop)
        finally:
            self._paint_styles = None

    @property
    def rich_style(self) -> Style:
        styles = self._paint_styles
        if styles is None:
            return super().rich_style
        if () not in styles:
            styles[()] = super().rich_style
        return styles[()]  # type: ignore[no-any-return]

    def get_component_styles(self, *names: str) -> RenderStyles:
        styles = self._paint_styles
        if styles is None:
            return super().get_component_styles(*names)
        if names not in styles:
            styles[names] = _PaintStyles(super().get_component_styles(*names))
        return styles[names]  # type: ignore[no-any-return]

    def on_resize(self, _: Resize) -> None:
        """Show the columns that fit the new width (the rows are recomposed, none rebuilt)."""
        widths = fit_columns(self.scrollable_content_region.width)
        if widths == self.widths:
            return
        self.widths = widths
        self._composed.clear()
        self.columns[ColumnKey(LINE)].width = line_width(widths)
        for key, values in self.cells_by_key.items():
            self.update_cell(key, LINE, compose_line(values, widths), update_width=True)
        self.refresh(layout=True)
        for header in self.screen.query(TableHeader):
            header.show_columns(widths)

    def cell(self, key: str, column: str) -> Text:
        """What a column of a row shows (for tests and views)."""
        return self.cells_by_key[key][column]

    def _composed_row(self, row: dict[str, Any]) -> tuple[dict[str, Text], Text]:
        """The row's cells and line, composed once for as long as it shows the same."""
        shown = shown_fields(row, self.now_ms)
        composed = self._composed.get(shown)
        if composed is None:
            if len(self._composed) >= COMPOSED_KEPT:
                self._composed.clear()
            values = cells(row, self.now_ms)
            composed = self._composed[shown] = (values, compose_line(values, self.widths))
        return composed

    def _add(self, row: dict[str, Any]) -> None:
        values, line = self._composed_row(row)
        self.add_row(line, key=row["_key"])
        self.rows_by_key[row["_key"]] = row
        self.cells_by_key[row["_key"]] = values

    def load(self, rows: list[dict[str, Any]], now_ms: int) -> None:
        """Show a new page (a filter, sort or page change), keeping the cursor's session if it stays.
        The same page again (a keystroke that changes no row) leaves the table as it is."""
        self.now_ms = now_ms
        if [r["_key"] for r in rows] == [row.key.value for row in self.ordered_rows] and all(
            self._composed_row(row)[0] is self.cells_by_key[row["_key"]] for row in rows
        ):
            self.rows_by_key = {row["_key"]: row for row in rows}
            self.refresh()  # painted again as it is: from DataTable's line cache
            return
        current = self.current_key()
        self.clear()
        self.rows_by_key.clear()
        self.cells_by_key.clear()
        for row in rows:
            self._add(row)
        if current in self.rows_by_key:
            self.move_cursor(row=self.get_row_index(current), animate=False)
        self._settle()

    def paint_now(self) -> None:
        """Paint the table now instead of at the screen's next frame: Textual paints at most every
        1/60 s on a fixed grid, and after an idle moment (a keystroke's echo painted, its page read)
        the next frame can come up to two frames (33 ms) later. The table is painted even if its own
        request to be (sent when it next idles) has not reached the screen yet; the rest of the
        screen follows at the next frame."""
        screen = self.screen
        if self.display:
            screen._dirty_widgets.add(self)
        screen._on_timer_update()

    def _settle(self) -> None:
        """Take in the new rows now (DataTable does it when idle), so the page can be painted at once."""
        if self._require_update_dimensions:
            self._require_update_dimensions = False
            new_rows = self._new_rows.copy()
            self._new_rows.clear()
            self._update_dimensions(new_rows)

    def apply(self, changed: dict[str, dict[str, Any] | None], now_ms: int, order: list[str] | None = None) -> None:
        """Row diffs: update rows that differ, add new rows, remove rows that left.

        `order`, when given, is the wanted order of keys; rows are then re-ordered to it.
        """
        self.now_ms = now_ms
        for key, row in changed.items():
            if row is None:
                if key in self.rows_by_key:
                    self.remove_row(key)
                    del self.rows_by_key[key]
                    del self.cells_by_key[key]
                continue
            if key not in self.rows_by_key:
                self._add(row)
                continue
            values, line = self._composed_row(row)
            if values is not self.cells_by_key[key] and any(values[c] != self.cells_by_key[key][c] for c in values):
                self.update_cell(key, LINE, line)
            self.cells_by_key[key] = values
            self.rows_by_key[key] = row
        if order is not None:
            self.order_by_keys(order)

    def order_by_keys(self, order: list[str]) -> None:
        """Re-order the existing rows (DataTable's own sort mechanism; no rows are rebuilt).

        DataTable's public `sort` only sees cell values, not row keys, so this sets the row
        order the way `sort` does (textual is pinned to one version in pyproject.toml).
        """
        current = self.current_key()
        rank = {k: i for i, k in enumerate(order)}
        ordered = sorted(self._data, key=lambda row_key: rank.get(row_key.value or "", len(rank)))
        self._row_locations = TwoWayDict({row_key: i for i, row_key in enumerate(ordered)})
        self._update_count += 1
        self.refresh()
        if current in self.rows_by_key:
            self.move_cursor(row=self.get_row_index(current), animate=False)

    def refresh_times(self, now_ms: int) -> None:
        """Relative times move on: recompose only the rows whose UPDATED text changed."""
        self.apply(dict(self.rows_by_key), now_ms)

    def current_key(self) -> str | None:
        if not self.row_count:
            return None
        try:
            row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        except RowDoesNotExist:
            return None
        return row_key.value
