"""The Search view (`f`, `ctrl+f`): every message the acting-as requester may read that says the
words typed, best first, matched words highlighted in their context; `enter` opens the session at
that message.

k9s-style: a full screen over the dashboard, `escape` back. It searches as you type (after a short
pause) through `Backend.search`, the index `sessions_search` uses, with the same visibility; the
highlighted hit's snippet is shown whole under the table.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.coordinate import Coordinate
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Input, Static

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable, Requester
from sessions_tui.backend.toolkit.matching import marked_parts
from sessions_tui.backend.values.vocabulary import SearchUnreadable, ToolInputError
from sessions_tui.counting import plural
from sessions_tui.ui.cursor_keys import move_cursor
from sessions_tui.ui.text import literal, one_line, span
from sessions_tui.ui.widgets.column_fit import fit_widths
from sessions_tui.ui.widgets.field import Field

if TYPE_CHECKING:
    from sessions_tui.backend.values.views import SearchHit, SearchOutcome

LIMIT = 200
TYPING_PAUSE_S = 0.25
HINT = "type words   enter search / open   ↓ results   esc back"
COLUMNS = {"session": 34, "#": 6, "role": 9, "when": 16, "snippet": 24}
"""The result columns at their widths; `when` then `role` go when the width is short, the session
narrows below 100 columns, and the snippet (what was found) takes the rest."""
HIT_STYLE = "bold $accent"


def marked_text(snippet: str, *, limit: int | None = None) -> Text:
    """A snippet as Rich Text: agent text kept literal, the words the index matched highlighted.
    A snippet with no marks (an OpenClaw gateway's) is shown as it is."""
    out = Text()
    for text, matched in marked_parts(snippet):
        out.append_text(literal(text, HIT_STYLE if matched else ""))
    if limit is not None and out.cell_len > limit:
        out.truncate(limit - 1)
        out.append("…")
    return out


class SearchScreen(Screen["SearchHit | None"]):
    """Search as `requester`; dismissed with the hit to open (None: back, nothing chosen)."""

    CSS_PATH = Path(__file__).parent / "search.tcss"
    BINDINGS = [
        Binding("escape", "close", "back", id="search_back", tooltip="back to the sessions"),
        Binding("enter", "choose", "open", id="search_open", tooltip="open the session at this message"),
        Binding("down", "results", show=False, id="search_results", tooltip="from the words to the results"),
        Binding("j", "move('down')", show=False),  # j k g G on the results, as on the dashboard's tables
        Binding("k", "move('up')", show=False),
        Binding("g", "move('top')", show=False),
        Binding("G", "move('bottom')", show=False),
    ]

    class Found(Message):
        def __init__(self, outcome: SearchOutcome | None, generation: int, problem: str | None = None) -> None:
            super().__init__()
            self.outcome = outcome
            self.generation = generation
            self.problem = problem

    def __init__(self, backend: Backend, requester: Requester, display: Callable[[str], str], query: str = "") -> None:
        super().__init__()
        self.backend = backend
        self.requester = requester
        self.display_key = display
        self.initial = query
        self.hits: list[SearchHit] = []
        self.generation = 0
        self.note = ""
        self._timer: Timer | None = None
        self._to_results = False  # enter in the field: the results take the focus when they come
        self._widths: dict[str, int] = {}  # the columns shown, by title, and their widths

    def compose(self) -> ComposeResult:
        with Vertical(id="search-view"):
            yield Static(literal("Search every transcript", "bold"), id="search-title")
            yield Field(self.initial, placeholder="words to find (all of them, any order)", id="search-query")
            yield DataTable(id="search-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="search-detail-box"):
                yield Static(id="search-detail")
            yield Static(HINT, id="search-hint")

    def on_mount(self) -> None:
        self._fit_columns(self.app.size.width)
        self.query_one("#search-query", Field).focus()
        if self.initial.strip():
            self.search(self.initial)

    def _fit_columns(self, width: int) -> None:
        """The columns that fit `width` cells, the snippet as wide as the rest; the rows again."""
        widths = dict(COLUMNS, session=COLUMNS["session"] if width >= 100 else 24)
        fitted = fit_widths(widths, ("when", "role"), width - 4, flexible="snippet", flexible_max=200, per_column=2)
        if fitted == self._widths:
            return
        self._widths = fitted
        table = self.query_one("#search-table", DataTable)
        row = table.cursor_row
        table.clear(columns=True)
        for title, cells in fitted.items():
            table.add_column(title, width=cells, key=title)
        self._fill(table)
        if self.hits:
            table.move_cursor(row=min(row, len(self.hits) - 1))

    def on_resize(self, event: Resize) -> None:
        self._fit_columns(event.size.width)

    def _fill(self, table: DataTable[Text]) -> None:
        """The hits as rows, in the columns shown."""
        for index, hit in enumerate(self.hits):
            cells = {
                "session": literal(one_line(self.display_key(hit.key), self._widths["session"])),
                "#": span(f"#{hit.msg_seq}" if hit.msg_seq is not None else "", "dim"),
                "role": span(hit.role),
                "when": span(_when(hit.timestamp), "dim"),
                "snippet": marked_text(hit.snippet, limit=self._widths["snippet"]),
            }
            table.add_row(*(cells[title] for title in self._widths), key=str(index))

    def action_move(self, where: str) -> None:
        move_cursor(self.focused, where)

    # -- searching ------------------------------------------------------------------------------

    @on(Input.Changed, "#search-query")
    def _typed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        query = event.value
        self._timer = self.set_timer(TYPING_PAUSE_S, lambda: self.search(query))

    @on(Input.Submitted, "#search-query")
    def _submitted(self, event: Input.Submitted) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._to_results = True
        self.search(event.value)

    def search(self, query: str) -> None:
        self.generation += 1
        if not query.strip():
            self.post_message(self.Found(None, self.generation))
            return
        self._search(query, self.generation)

    @work(exclusive=True, group="search", exit_on_error=False)
    async def _search(self, query: str, generation: int) -> None:
        try:
            outcome = await self.backend.search(self.requester, query, limit=LIMIT)
        except (ToolInputError, BackendUnavailable, SearchUnreadable) as exc:  # said here: it refused no write
            self.post_message(self.Found(None, generation, str(exc)))
            return
        self.post_message(self.Found(outcome, generation))

    def on_search_screen_found(self, event: Found) -> None:
        if event.generation != self.generation:
            return  # typed on since
        outcome = event.outcome
        self.hits = list(outcome.hits) if outcome else []
        table = self.query_one("#search-table", DataTable)
        table.clear()
        self._fill(table)
        if self._to_results and self.hits:
            self._to_results = False
            table.focus()
        self.note = event.problem or (outcome.refused or "" if outcome else "")
        if outcome and not outcome.refused:
            count = plural(len(self.hits), "message")
            more = ": more match, the best are shown" if outcome.truncated else ""
            indexing = "   indexing: results may be incomplete" if outcome.indexing else ""
            self.note = f"{count}{more}{indexing}"
        self._show_detail()

    # -- the highlighted hit ---------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#search-table")
    def _highlighted(self, _: DataTable.RowHighlighted) -> None:
        self._show_detail()

    @on(DataTable.RowSelected, "#search-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_choose()

    def highlighted(self) -> SearchHit | None:
        table = self.query_one("#search-table", DataTable)
        if not table.row_count:
            return None
        try:
            index = int(str(table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value))
        except Exception:  # noqa: BLE001 - no such row
            return None
        return self.hits[index] if 0 <= index < len(self.hits) else None

    def _show_detail(self) -> None:
        hit = self.highlighted()
        text = Text()
        text.append_text(literal(self.note, "dim"))
        if hit is not None:
            text.append("\n")
            where = f"   message #{hit.msg_seq}" if hit.msg_seq is not None else ""
            head = f"{self.display_key(hit.key)}{where}   {hit.role}   {_when(hit.timestamp)}"
            text.append_text(literal(head, "bold"))
            text.append("\n")
            text.append_text(marked_text(hit.snippet))
        self.query_one("#search-detail", Static).update(text)

    # -- actions --------------------------------------------------------------------------------

    def action_choose(self) -> None:
        if isinstance(self.focused, Input):
            return  # the field's own enter searches (Input.Submitted)
        hit = self.highlighted()
        if hit is not None:
            self.dismiss(hit)

    def action_results(self) -> None:
        table = self.query_one("#search-table", DataTable)
        if isinstance(self.focused, Input) and table.row_count:
            table.focus()

    def action_close(self) -> None:
        self.dismiss(None)


def _when(ms: int) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M") if ms else ""
