"""What a row of the session table shows, as one line of fixed-width columns, and which columns
fit a width. Each row is composed once into a single line, so the table renders one cell per row
instead of one per column.

The columns that fit the table's width are shown; the others drop in `DROP_ORDER` (MODEL first:
the same for most sessions; CHANNEL next: usually spelled in the key; SEND: a `deny` also shows
as `⊘` beside the key; then TOKENS, KIND, LABEL, UPDATED). KEY and ST always stay, and KEY takes
the width left over, up to `KEY_MAX`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text

from sessions_tui.backend.values.rows import display_name
from sessions_tui.ui.text import (
    STATUS_ICONS,
    literal,
    relative_time,
    short_number,
    span,
)
from sessions_tui.ui.widgets.column_fit import fit_widths

if TYPE_CHECKING:
    from sessions_tui.backend.values.views import BrowseRow


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


def fit_columns(width: int) -> dict[str, int]:
    """The columns shown in `width` cells (in table order) and each one's width.

    Columns drop in `DROP_ORDER` until the rest fit; KEY then takes what is left, up to `KEY_MAX`.
    """
    widths = {c.key: c.width for c in COLUMNS}
    return fit_widths(widths, DROP_ORDER, width, flexible="key", flexible_max=KEY_MAX, between=len(GAP))


def line_width(widths: dict[str, int]) -> int:
    return sum(widths.values()) + len(GAP) * (len(widths) - 1)


def cells(row: BrowseRow, now_ms: int) -> dict[str, Text]:
    """What each column shows for a row of `tools.browse`."""
    denied = row.get("_send") == "deny"
    key = literal(row["key"])
    if denied:
        key = span("⊘ ", style="bold $error") + key
    label = display_name(row)
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


def shown_fields(row: BrowseRow, now_ms: int) -> tuple[Any, ...]:
    """Everything `cells` reads of a row (the update time as shown): rows with equal fields show
    the same line, so a line is composed once for all of them (`SessionTable` keeps recent ones)."""
    return (
        row["key"],
        row.get("_send"),
        display_name(row),
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
