"""The table's sort: the columns `<` and `>` step through, the direction each starts in, a click on
a title, and the sort said in words (its ▲/▼ is out of sight when the width drops its column)."""

from __future__ import annotations

from sessions_tui.ui.widgets.session_table import COLUMNS

SORTS = [column.sort for column in COLUMNS if column.sort]  # the table's order, for < and >
NEWEST_FIRST = ("updated", "tokens")  # sorted descending when first chosen


def stepped(order_by: str, step: int) -> tuple[str, bool]:
    """`<` (-1) / `>` (1) from `order_by`: the previous / next column, in its natural direction."""
    index = SORTS.index(order_by) if order_by in SORTS else 0
    chosen = SORTS[(index + step) % len(SORTS)]
    return chosen, chosen in NEWEST_FIRST


def clicked(order_by: str, descending: bool, title: str) -> tuple[str, bool]:
    """A click on the title of column `title` while the table sorts by `order_by`: sort by it, or
    the other way round when it already sorts."""
    if title == order_by:
        return title, not descending
    return title, title in NEWEST_FIRST


def sort_words(order_by: str, descending: bool) -> str:
    """The sort as words: `channel ▲`, `updated ▼` (its column's name)."""
    name = next((c.key for c in COLUMNS if c.sort == order_by), order_by)
    return f"{name} {'▼' if descending else '▲'}"
