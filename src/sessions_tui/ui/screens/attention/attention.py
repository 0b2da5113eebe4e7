"""The attention list (`!`): the notices the operator has not acted on, newest first.

A full screen over the dashboard, as Sends is: one row a notice (how long ago, what, the session,
the notice's line); `enter` closes it and opens the highlighted notice's session on the main screen
(which then drops that session's notices: it has been looked at), `escape` goes back. Its texts are
notices' (redacted, one line) shown as literal text.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Static

from sessions_tui.backend.toolkit.notices.notice import Notice
from sessions_tui.counting import plural
from sessions_tui.ui.text import elide_middle, literal, relative_time, span

HINT = "esc back   enter open the session"
WHEN_WIDTH, WHAT_WIDTH, SESSION_WIDTH = 4, 7, 24  # SESSION_WIDTH: its least, when the names are longer
FRAME = 2 * 4 + 2 + 2  # the cells' padding (one each side), the scrollbar, the view's padding
KIND_STYLES = {"failed": "$error", "stuck": "$warning", "looping": "$warning", "done": "$success", "reply": "$accent"}
"""How a notice's kind stands out in the list."""
EMPTY = (
    "Nothing needs you now: the notices of watched sessions (W), replies to your sends, hooks and cron runs land here."
)


class AttentionScreen(Screen[str | None]):
    """The notices given, newest first; dismissed with the session key to open, or None."""

    AUTO_FOCUS = "#attention-table"
    BINDINGS = [
        Binding("escape", "close", "back", id="attention_back", tooltip="back to the sessions"),
        Binding("enter", "open", "open", id="attention_open", tooltip="open the highlighted notice's session"),
    ]

    def __init__(self, notices: list[Notice], display: Callable[[str], str], now_ms: int) -> None:
        super().__init__()
        self.notices = list(notices)
        self.display_key = display
        self.now_ms = now_ms

    def compose(self) -> ComposeResult:
        with Vertical(id="attention-view"):
            yield Static(id="attention-title")
            yield DataTable(id="attention-table", cursor_type="row", zebra_stripes=True)
            yield Static(EMPTY if not self.notices else "", id="attention-empty")
            yield Static(HINT, id="attention-hint")

    def on_mount(self) -> None:
        count = plural(len(self.notices), "notice")
        self.query_one("#attention-title", Static).update(literal(f"Needs you · {count}, newest first", "bold"))
        self.query_one("#attention-empty", Static).display = not self.notices
        table = self.query_one("#attention-table", DataTable)
        names = [self.display_key(item.session_key) for item in self.notices]
        room = max(SESSION_WIDTH, (self.size.width - WHEN_WIDTH - WHAT_WIDTH - FRAME) // 2)  # half at most
        session_width = min(room, max((len(name) for name in names), default=7))
        rest = self.size.width - WHEN_WIDTH - WHAT_WIDTH - session_width - FRAME
        table.add_column("when", key="when", width=WHEN_WIDTH)
        table.add_column("what", key="what", width=WHAT_WIDTH)
        table.add_column("session", key="session", width=session_width)
        table.add_column("notice", key="notice", width=max(12, rest))
        for index, (item, name) in enumerate(zip(self.notices, names, strict=True)):
            table.add_row(
                span(relative_time(item.at, self.now_ms), "dim"),
                literal(item.kind, KIND_STYLES.get(item.kind, "")),
                literal(elide_middle(name, session_width), "bold"),
                literal(item.gist or item.body),
                key=str(index),
            )

    def action_close(self) -> None:
        self.dismiss(None)

    def action_open(self) -> None:
        table = self.query_one("#attention-table", DataTable)
        if self.notices and table.cursor_row >= 0:
            self.dismiss(self.notices[min(table.cursor_row, len(self.notices) - 1)].session_key)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """`enter` on the table (its own key): the row's session."""
        event.stop()
        self.action_open()
