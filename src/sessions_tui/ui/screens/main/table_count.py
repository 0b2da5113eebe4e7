"""The table's count and what is said of it: the size of the filtered set (it arrives after its
page: the page is painted first, then counted in a worker that a newer page gives up, a count over a
large store taking longer than a page), the page-info line under the table, and why `[` / `]` did
not turn the page."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message

from sessions_tui.counting import plural
from sessions_tui.ui.text import span

PAGING = "   [ previous page   ] next page"
PAGING_SHORT = "   [ ] pages"


class TableCounted(Message):
    """The count of the filter that page `generation` was read with."""

    def __init__(self, total: int, generation: int) -> None:
        super().__init__()
        self.total = total
        self.generation = generation


def page_info(first: int, last: int, total: int | None, sort: str, *, paged: bool, room: int) -> Text:
    """` rows 1–9 of 9  ·  sorted by channel ▲`, and the paging keys when there are pages (`paged`),
    in `room` cells (0: unknown). `total` None: not counted yet. The sort is always said: its
    column's ▲/▼ is out of sight when the width drops the column."""
    of = f"{total:,}" if total is not None else "…"
    text = span(f" rows {first:,}–{last:,} of {of}  ·  sorted by {sort}", style="dim")
    if paged:
        text.append(PAGING if not room or text.cell_len + len(PAGING) <= room else PAGING_SHORT, style="dim")
    return text


def no_page_note(step: int, offset: int, shown: int, total: int | None, page_size: int) -> str:
    """Why `]` (`step` 1) or `[` (-1) did not turn the page: the page at `offset` shows `shown` rows
    of `total` (None: not counted yet)."""
    if step > 0 and total is None:
        return "No next page yet: the sessions are still being counted."
    if total is not None and total <= page_size and not offset:
        shown_all = {0: "no session to show", 1: "the one session is shown"}.get(total)
        shown_all = shown_all or f"all {plural(total, 'session')} shown"
        return f"No {'next' if step > 0 else 'previous'} page: {shown_all}."
    if step < 0:
        return "No previous page: this is the first."
    return f"No next page: rows {offset + 1:,}–{offset + shown:,} of {total or 0:,} are the last."
