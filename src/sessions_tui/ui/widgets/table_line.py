"""What a row of the session table shows, as one line of fixed-width columns, and which columns
fit a width. Each row is composed once into a single line, so the table renders one cell per row
instead of one per column.

Columns fit their content: each is as wide as its widest value on the page (`content_widths`; its
title at least), never wider than its default while room is short. The columns that fit the
table's width are shown; the others drop in `DROP_ORDER` (24H first: the sparkline of the last
day's tokens, a glance only, shown only in the room left once the other columns are as wide as
their content, its newest cells as many as fit; MODEL: the same for most sessions; CHANNEL next:
usually spelled in the key; SEND: a `deny` also shows as `⊘` beside the key; then TOKENS, KIND,
LABEL, UPDATED). KEY and ST always stay. What width is left goes first to the status in words (ST
becomes STATUS, `working` for `▶`: what needs the operator, before more of a key), then to the
columns whose values are cut (`GROW_ORDER`: KEY up to `KEY_MAX` first, then LABEL, CHANNEL, MODEL,
then KEY whole), then to the sparkline, then to KEY up to `KEY_MAX`.

The status column shows a session's live status (backend/toolkit/status_board.py) where the table
is given one: `LIVE_ICONS` when narrow, the word when wide (but `·` for idle, so what is not idle
stands out); an archived session `ar`. Without a
live status (a table no board feeds) it shows the row's own `status` as `STATUS_ICONS`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.text import Text

from sessions_tui.backend.values.rows import display_name
from sessions_tui.backend.values.vocabulary import LiveStatus
from sessions_tui.ui.paths import home_relative
from sessions_tui.ui.text import (
    STATUS_ICONS,
    literal,
    relative_time,
    short_number,
    span,
    visible,
)
from sessions_tui.ui.widgets.column_fit import drop_to_fit, grow_into

if TYPE_CHECKING:
    from sessions_tui.backend.values.views import BrowseRow


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    sort: str | None  # sort key of tools.reading.browse, or None
    width: int
    right: bool = False
    keep_end: bool = False  # a value too long loses its start, not its end (a sparkline's oldest cells)


COLUMNS = [
    Column("key", "KEY", "key", 24),
    Column("kind", "KIND", "kind", 5),
    Column("channel", "CHANNEL", "channel", 8),
    Column("label", "LABEL", "label", 14),
    Column("updated", "UPDATED", "updated", 7),
    Column("model", "MODEL", "model", 8),
    Column("tokens", "TOKENS", "tokens", 6, right=True),
    Column("activity", "24H", None, 8, keep_end=True),  # the last day's tokens per 3 hours, a sparkline
    Column("status", "ST", "status", 2),
    Column("send", "SEND", None, 6),  # "allow*" / "deny*": the override mark always shows
]
SPARK_COLUMN = "activity"
SPARK_TITLE = "24H"
DROP_ORDER = ["activity", "model", "channel", "send", "tokens", "kind", "label", "updated"]
FITTED = ("key", "channel", "label", "model", "send")  # the columns as wide as their content
GROW_ORDER = ("label", "channel", "model")  # after KEY up to KEY_MAX, before KEY whole
KEY_MAX = 48
GAP = "  "
STATUS_WORDS = 7  # the status column's width in words: `working`, `waiting`, `looping`
LIVE_ICONS: dict[str, str] = {
    "working": "▶",
    "waiting": "…",
    "idle": "·",
    "done": "✓",
    "failed": "✗",
    "stuck": "!",
    "looping": "↻",
}
LIVE_STYLES: dict[str, str] = {
    "working": "bold",
    "waiting": "bold",
    "idle": "dim",
    "done": "bold $success",
    "failed": "bold $error",
    "stuck": "bold $warning",
    "looping": "bold $error",
}


def column_title(column: Column, widths: Mapping[str, int]) -> str:
    """A column's title at the widths shown: ST is STATUS when its statuses show in words."""
    return "STATUS" if column.key == "status" and widths.get("status", 0) >= STATUS_WORDS else column.title


def fit_columns(width: int, content: Mapping[str, int] | None = None) -> dict[str, int]:
    """The columns shown in `width` cells (in table order) and each one's width.

    `content`: the widest value of each of the `FITTED` columns (`content_widths`); without it,
    each column has its default width. A column is as wide as its content wants (its title at
    least), but no wider than its default until the columns that drop have dropped; what is left
    then goes to the columns whose values are cut, KEY first (up to `KEY_MAX`), and last to KEY.
    """
    content = content or {}
    wanted = {c.key: max(len(c.title), content.get(c.key, c.width)) for c in COLUMNS}
    others = {c.key: min(c.width, wanted[c.key]) for c in COLUMNS if c.key != SPARK_COLUMN}
    shown = drop_to_fit(others, DROP_ORDER[1:], width, between=len(GAP))
    if line_width(shown) + STATUS_WORDS - shown["status"] <= width:  # words before a longer key: never cut
        shown["status"] = STATUS_WORDS
    steps = [("key", min(wanted["key"], KEY_MAX))]
    steps += [(key, wanted[key]) for key in GROW_ORDER]
    steps += [("key", wanted["key"])]
    shown = grow_into(shown, width, steps, between=len(GAP))
    spare = width - line_width(shown) - len(GAP)
    if spare >= len(SPARK_TITLE):  # room left: the sparkline, its newest cells as many as fit
        spark = min(wanted[SPARK_COLUMN], spare)
        shown = {c.key: shown.get(c.key, spark) for c in COLUMNS if c.key in shown or c.key == SPARK_COLUMN}
    return grow_into(shown, width, [("key", KEY_MAX)], between=len(GAP))


def content_widths(rows: Iterable[BrowseRow], marked: Collection[str] = ()) -> dict[str, int]:
    """The widest value of each of the `FITTED` columns over `rows`, in cells, as `cells` shows them
    (the keys of `marked` with their mark)."""
    widths = dict.fromkeys(FITTED, 0)
    for row in rows:
        denied = row.get("_send") == "deny"
        overridden = row.get("sendPolicy") in ("allow", "deny")
        mark = len(MARK) if marked and row["_key"] in marked else 0
        for key, value in (
            ("key", _shown_len(row["key"]) + (2 if denied else 0) + mark),
            ("channel", _shown_len(row.get("channel", ""))),
            ("label", _shown_len(display_name(row))),
            ("model", _shown_len(row.get("model") or "")),
            ("send", (4 if denied else 5) + (1 if overridden else 0)),
        ):
            if value > widths[key]:
                widths[key] = value
    return widths


def _shown_len(value: object) -> int:
    """The cells `literal` shows `value` in."""
    return cell_len(visible(home_relative(value if isinstance(value, str) else str(value))))


def line_width(widths: dict[str, int]) -> int:
    return sum(widths.values()) + len(GAP) * (len(widths) - 1)


MARK = "● "
"""Before the key of a row marked for a bulk action (space)."""


SPARKS = "▁▂▃▄▅▆▇█"
SPARK_CELLS = 8  # a sparkline's cells: the last 24 hours, 3 hours a cell
SPARK_MS = 3 * 3_600_000


def sparkline(tokens: Mapping[int, int], now_ms: int) -> str:
    """The last `SPARK_CELLS` buckets of `SPARK_MS` up to now's (UTC, from the epoch) as ▁…█, scaled
    to the highest (a bucket without a turn a space); empty for none."""
    last = now_ms // SPARK_MS * SPARK_MS
    values = [tokens.get(last - (SPARK_CELLS - 1 - n) * SPARK_MS, 0) for n in range(SPARK_CELLS)]
    top = max(values)
    if top <= 0:
        return ""
    return "".join(" " if v <= 0 else SPARKS[min(len(SPARKS) - 1, v * len(SPARKS) // (top + 1))] for v in values)


def cells(
    row: BrowseRow,
    now_ms: int,
    marked: bool = False,
    activity: str = "",
    live: LiveStatus | None = None,
    words: bool = False,
) -> dict[str, Text]:
    """What each column shows for a row of `tools.reading.browse` (`marked`: for a bulk action; `activity`:
    its sparkline; `live`: its live status, in `words` or as a symbol)."""
    denied = row.get("_send") == "deny"
    key = literal(row["key"])
    if denied:
        key = span("⊘ ", style="bold $error") + key
    if marked:
        key = span(MARK, style="bold $accent") + key
    label = display_name(row)
    send = span("deny" if denied else "allow", style="$error" if denied else "dim")
    if row.get("sendPolicy") in ("allow", "deny"):
        send.append("*", style="bold")
    status = row.get("status")
    if row.get("archived"):
        status_cell = span("ar", style="dim")
    elif live is not None:
        shown = live if words and live != "idle" else LIVE_ICONS[live]  # idle stays `·`: the rest stand out
        status_cell = span(shown, style=LIVE_STYLES[live])
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
        "activity": span(activity, "$accent"),
        "status": status_cell,
        "send": send,
    }


def shown_fields(
    row: BrowseRow, now_ms: int, marked: bool = False, activity: str = "", live: LiveStatus | None = None
) -> tuple[Any, ...]:
    """Everything `cells` reads of a row (the update time as shown), whether it is marked, its
    sparkline and its live status: rows with equal fields show the same line, so a line is composed
    once for all of them (`SessionTable` keeps recent ones)."""
    return (
        marked,
        live,
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
        activity,
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
            if column.keep_end:
                cell = cell[cell.cell_len - width :]
            else:
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
