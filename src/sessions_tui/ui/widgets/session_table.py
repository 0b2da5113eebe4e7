"""The session table: one row per visible session, updated in place as sessions change."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual._two_way_dict import TwoWayDict
from textual.message import Message
from textual.widgets import DataTable
from textual.widgets.data_table import RowDoesNotExist

from sessions_tui.ui.text import STATUS_ICONS, literal, relative_time, short_number, span

# (column key, title, sort key of tools.browse or None, width)
COLUMNS = [
    ("key", "KEY", "key", 32),
    ("kind", "KIND", "kind", 5),
    ("channel", "CHANNEL", "channel", 8),
    ("label", "LABEL", "label", 14),
    ("updated", "UPDATED", "updated", 7),
    ("model", "MODEL", "model", 8),
    ("tokens", "TOKENS", "tokens", 6),
    ("status", "ST", "status", 2),
    ("send", "SEND", None, 5),
]
SORT_OF = {key: sort for key, _, sort, _ in COLUMNS}


def cells(row: dict[str, Any], now_ms: int) -> dict[str, Text | str]:
    """What each column shows for a row of `tools.browse`."""
    denied = row.get("_send") == "deny"
    key = literal(row["key"])
    if denied:
        key = span("⊘ ", style="bold #e06c75") + key
    label = row.get("label") or row.get("displayName") or ""
    override = row.get("sendPolicy")
    send = span("deny" if denied else "allow", style="#e06c75" if denied else "dim")
    if override in ("allow", "deny"):
        send.append("*", style="bold")
    status = row.get("status")
    archived = span("arch", style="dim") if row.get("archived") else None
    return {
        "key": key,
        "kind": row.get("kind", ""),
        "channel": literal(row.get("channel", "")),
        "label": literal(label),
        "updated": relative_time(row.get("updatedAt"), now_ms),
        "model": literal(row.get("model") or ""),
        "tokens": Text(short_number(row.get("totalTokens")), justify="right"),
        "status": archived or Text(STATUS_ICONS.get(status or "", "·"), style="bold" if status == "running" else "dim"),
        "send": send,
    }


class SessionTable(DataTable):
    """Rows are keyed by canonical session key; `apply` changes only what differs."""

    class SortRequested(Message):
        def __init__(self, order_by: str) -> None:
            super().__init__()
            self.order_by = order_by

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.rows_by_key: dict[str, dict[str, Any]] = {}
        self.now_ms = 0

    def on_mount(self) -> None:
        for key, title, _, width in COLUMNS:
            self.add_column(title, key=key, width=width)

    def _add(self, row: dict[str, Any]) -> None:
        values = cells(row, self.now_ms)
        self.add_row(*(values[c[0]] for c in COLUMNS), key=row["_key"])
        self.rows_by_key[row["_key"]] = row

    def load(self, rows: list[dict[str, Any]], now_ms: int) -> None:
        """Show a new page (a filter, sort or page change), keeping the cursor's session if it stays."""
        self.now_ms = now_ms
        current = self.current_key()
        self.clear()
        self.rows_by_key.clear()
        for row in rows:
            self._add(row)
        if current in self.rows_by_key:
            self.move_cursor(row=self.get_row_index(current), animate=False)

    def apply(self, changed: dict[str, dict[str, Any] | None], now_ms: int, order: list[str] | None = None) -> None:
        """Row diffs: update cells that differ, add new rows, remove rows that left.

        `order`, when given, is the wanted order of keys; rows are then re-sorted to it.
        """
        self.now_ms = now_ms
        for key, row in changed.items():
            if row is None:
                if key in self.rows_by_key:
                    self.remove_row(key)
                    del self.rows_by_key[key]
                continue
            if key not in self.rows_by_key:
                self._add(row)
                continue
            old = cells(self.rows_by_key[key], now_ms)
            new = cells(row, now_ms)
            for column, value in new.items():
                if str(value) != str(old[column]) or (isinstance(value, Text) and value.style != getattr(old[column], "style", None)):
                    self.update_cell(key, column, value)
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
        ordered = sorted(self._data, key=lambda row_key: rank.get(row_key.value, len(rank)))
        self._row_locations = TwoWayDict({row_key: i for i, row_key in enumerate(ordered)})
        self._update_count += 1
        self.refresh()
        if current in self.rows_by_key:
            self.move_cursor(row=self.get_row_index(current), animate=False)

    def refresh_times(self, now_ms: int) -> None:
        """Relative times move on; update just that column."""
        self.now_ms = now_ms
        for key, row in self.rows_by_key.items():
            self.update_cell(key, "updated", relative_time(row.get("updatedAt"), now_ms))

    def current_key(self) -> str | None:
        if not self.row_count:
            return None
        try:
            row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        except (RowDoesNotExist, Exception):  # noqa: BLE001 - an empty or shrinking table
            return None
        return row_key.value

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        order_by = SORT_OF.get(event.column_key.value or "")
        if order_by:
            self.post_message(self.SortRequested(order_by))
