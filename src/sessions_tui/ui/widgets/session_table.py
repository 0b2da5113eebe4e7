"""The session table: one row per visible session, updated in place as sessions change.

Each row is one line of columns (table_line.py), composed when first painted and kept while the
row shows the same, so a filter keystroke or a page repaints in a few milliseconds. The column
titles live in `TableHeader`, whose titles sort on click.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
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
from textual.widgets.data_table import ColumnKey, RowDoesNotExist, RowKey

from sessions_tui.ui.widgets.table_line import COLUMNS as COLUMNS
from sessions_tui.ui.widgets.table_line import DROP_ORDER as DROP_ORDER
from sessions_tui.ui.widgets.table_line import (
    GAP,
    STATUS_WORDS,
    cells,
    column_title,
    compose_line,
    content_widths,
    fit_columns,
    line_width,
    shown_fields,
)

if TYPE_CHECKING:
    from sessions_tui.backend.values.views import BrowseRow
    from sessions_tui.backend.values.vocabulary import LiveStatus

LINE = "line"
COMPOSED_KEPT = 4096  # composed lines kept for the rows shown lately


class TableHeader(Horizontal):
    """Column titles; clicking one asks to sort by it (again: the other way round)."""

    def compose(self) -> ComposeResult:
        self._shown = {column.key: column.title for column in COLUMNS}
        self._widths: dict[str, int] = {}
        self._sort: tuple[str, bool] | None = None
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
        """Mark the sorted column; only the titles that change are repainted, and none is laid out
        again (each title's width is set by `show_columns`): a layout of the screen, while the sorted
        page is being read, made the page's paint that follows a full one."""
        self._sort = (order_by, descending)
        for column in COLUMNS:
            title = column_title(column, self._widths) + (
                ("▼" if descending else "▲") if column.sort == order_by else ""
            )
            if self._shown.get(column.key) != title:
                self._shown = {**self._shown, column.key: title}
                self.query_one(f"#col-{column.key}", Static).update(title, layout=False)

    def show_columns(self, widths: dict[str, int]) -> None:
        """Show the titles of the columns the table shows, at their widths."""
        last = [c.key for c in COLUMNS if c.key in widths][-1]
        for column in COLUMNS:
            title = self.query_one(f"#col-{column.key}", Static)
            title.display = column.key in widths
            if column.key in widths:
                title.styles.width = widths[column.key] + (len(GAP) if column.key != last else 0)
        retitle = not self._widths or any(column_title(c, widths) != column_title(c, self._widths) for c in COLUMNS)
        self._widths = dict(widths)
        if retitle:
            self.show_sort(*(self._sort or ("", True)))  # ST or STATUS, with the sort's mark


class _PaintStyles:
    """A component's styles with its Rich style worked out once (for one paint)."""

    def __init__(self, styles: RenderStyles) -> None:
        self._styles = styles
        self.rich_style = styles.rich_style

    def __getattr__(self, name: str) -> Any:
        return getattr(self._styles, name)


class _Line:
    """A row's line as the table holds it: composed when first painted (a page shows about 40 of
    its 100 rows) or asked for, and reused while the row shows the same (`shown`)."""

    __slots__ = ("_table", "row", "shown", "now_ms", "_composed")

    def __init__(self, table: SessionTable, row: BrowseRow, now_ms: int) -> None:
        self._table, self.row, self.now_ms = table, row, now_ms
        self.shown = shown_fields(
            row, now_ms, row["_key"] in table.marked, table.activity.get(row["_key"], ""), table.live_of(row["_key"])
        )
        self._composed: tuple[dict[str, Text], Text] | None = table._composed.get(self.shown)

    @property
    def composed(self) -> tuple[dict[str, Text], Text]:
        """The row's cells and its line."""
        if self._composed is None:
            self._composed = self._table._line_parts(self)
        return self._composed

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.composed[1]

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = line_width(self._table.widths)  # what the composed line measures, without composing it
        return Measurement(width, width)


class SessionTable(DataTable[Any]):
    """Rows are keyed by canonical session key; `apply` changes only the rows that differ."""

    class SortRequested(Message):
        def __init__(self, order_by: str) -> None:
            super().__init__()
            self.order_by = order_by

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, show_header=False, cell_padding=0, **kwargs)
        self.rows_by_key: dict[str, BrowseRow] = {}
        self.marked: set[str] = set()  # the keys marked for a bulk action (space), shown or not
        self.activity: dict[str, str] = {}  # the shown rows' sparklines (`show_activity`)
        self.lines_by_key: dict[str, _Line] = {}
        self.now_ms = 0
        self.room = 10_000  # the width the columns fit in (the table's, once laid out)
        self.content: dict[str, int] | None = None  # the widest values of the rows shown (`content_widths`)
        self.widths = fit_columns(self.room)  # the columns shown and their widths
        # Recently shown rows' cells and line by what they show (`shown_fields`) at the current
        # widths: the next keystroke or page shows many of the same rows.
        self._composed: dict[tuple[Any, ...], tuple[dict[str, Text], Text]] = {}
        self.live_status: Callable[[str], LiveStatus] | None = None  # a status board's, once there is one

    def live_of(self, key: str) -> LiveStatus | None:
        """A session's live status, None while no status board feeds the table."""
        return self.live_status(key) if self.live_status is not None else None

    def refresh_statuses(self, keys: Iterable[str]) -> None:
        """The rows of `keys` shown again with their live status now (only those whose status shows otherwise)."""
        for key in keys:
            line = self.lines_by_key.get(key)
            if line is not None:
                fresh = _Line(self, line.row, line.now_ms)
                if fresh.shown != line.shown:
                    self.lines_by_key[key] = fresh
                    self.update_cell(key, LINE, fresh)

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
        self.room = self.scrollable_content_region.width
        self._refit()

    def _refit(self, rows: list[BrowseRow] | None = None) -> None:
        """Fit the columns to the room and to the content of `rows` (those shown when None); when
        the widths change, the shown rows are recomposed (none rebuilt) and the titles follow."""
        self.content = content_widths(self.rows_by_key.values() if rows is None else rows, self.marked)
        widths = fit_columns(self.room, self.content)
        if widths == self.widths:
            return
        self.widths = widths
        self._composed.clear()
        self.columns[ColumnKey(LINE)].width = line_width(widths)
        if rows is None:
            for key, line in self.lines_by_key.items():
                self.lines_by_key[key] = _Line(self, line.row, line.now_ms)
                self.update_cell(key, LINE, self.lines_by_key[key], update_width=True)
            self.refresh(layout=True)
        for header in self.screen.query(TableHeader):
            header.show_columns(widths)

    def cell(self, key: str, column: str) -> Text:
        """What a column of a row shows (for tests and views)."""
        return self.lines_by_key[key].composed[0][column]

    def get_cell(self, row_key: RowKey | str, column_key: ColumnKey | str) -> Text:
        """The row's line, composed."""
        line = super().get_cell(row_key, column_key)
        return line.composed[1] if isinstance(line, _Line) else line

    def _line_parts(self, line: _Line) -> tuple[dict[str, Text], Text]:
        """A row's cells and line, composed once for as long as it shows the same."""
        composed = self._composed.get(line.shown)
        if composed is None:
            if len(self._composed) >= COMPOSED_KEPT:
                self._composed.clear()
            words = self.widths.get("status", 0) >= STATUS_WORDS
            values = cells(
                line.row, line.now_ms, marked=line.shown[0], activity=line.shown[-1], live=line.shown[1], words=words
            )
            text = compose_line(values, self.widths)
            if line.row.get("archived"):  # shown with `include_archived`: dimmed, `ar` in ST
                text.stylize("dim")
            composed = self._composed[line.shown] = (values, text)
        return composed

    def _add(self, row: BrowseRow) -> None:
        line = _Line(self, row, self.now_ms)
        self.add_row(line, key=row["_key"])
        self.rows_by_key[row["_key"]] = row
        self.lines_by_key[row["_key"]] = line

    def load(self, rows: list[BrowseRow], now_ms: int) -> None:
        """Show a new page (a filter, sort or page change), keeping the cursor's session if it stays.
        The same page again (a keystroke that changes no row) leaves the table as it is."""
        self.now_ms = now_ms
        if [r["_key"] for r in rows] == [row.key.value for row in self.ordered_rows] and all(
            shown_fields(
                row, now_ms, row["_key"] in self.marked, self.activity.get(row["_key"], ""), self.live_of(row["_key"])
            )
            == self.lines_by_key[row["_key"]].shown
            for row in rows
        ):
            self.rows_by_key = {row["_key"]: row for row in rows}
            self.refresh()  # painted again as it is: from DataTable's line cache
            return
        current = self.current_key()
        self._refit(rows)  # before the rows are added: each is composed at the new widths
        self.clear()
        self.rows_by_key.clear()
        self.lines_by_key.clear()
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

    def apply(self, changed: dict[str, BrowseRow | None], now_ms: int, order: list[str] | None = None) -> None:
        """Row diffs: update rows that differ, add new rows, remove rows that left.

        `order`, when given, is the wanted order of keys; rows are then re-ordered to it.
        """
        self.now_ms = now_ms
        for key, row in changed.items():
            if row is None:
                if key in self.rows_by_key:
                    self.remove_row(key)
                    del self.rows_by_key[key]
                    del self.lines_by_key[key]
                continue
            if key not in self.rows_by_key:
                self._add(row)
                continue
            line = _Line(self, row, now_ms)
            if line.shown != self.lines_by_key[key].shown:
                self.update_cell(key, LINE, line)
                self.lines_by_key[key] = line
            self.rows_by_key[key] = row
        if changed:
            self._refit()
        if order is not None:
            self.order_by_keys(order)

    def show_activity(self, activity: dict[str, str]) -> None:
        """The sparklines of the shown rows (those not named have none): the lines that change are
        recomposed."""
        self.activity = activity
        for key, line in list(self.lines_by_key.items()):
            fresh = _Line(self, line.row, line.now_ms)
            if fresh.shown != line.shown:
                self.lines_by_key[key] = fresh
                self.update_cell(key, LINE, fresh)

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

    def toggle_mark(self, key: str) -> bool:
        """Mark the row of `key` for a bulk action, or unmark it; returns whether it is marked now.
        A mark stays while its session is listed elsewhere (another page, a filter) or changes."""
        if key in self.marked:
            self.marked.discard(key)
        else:
            self.marked.add(key)
        self._remark([key])
        return key in self.marked

    def clear_marks(self) -> None:
        """Every mark gone (esc, or after the bulk action)."""
        keys, self.marked = list(self.marked), set()
        self._remark(keys)

    def _remark(self, keys: list[str]) -> None:
        """The rows of `keys` shown again with their mark or without."""
        for key in keys:
            line = self.lines_by_key.get(key)
            if line is not None:
                self.lines_by_key[key] = _Line(self, line.row, line.now_ms)
                self.update_cell(key, LINE, self.lines_by_key[key])
        self._refit()

    def current_key(self) -> str | None:
        if not self.row_count:
            return None
        try:
            row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        except RowDoesNotExist:
            return None
        return row_key.value
