"""A thread: the conversation between two sessions as one view, in order, with who said what.

Drawn from the ledger, which holds every send between them with its life: the message, the
reply (or the late reply), each ping-pong turn and the announce, with their times. `escape` back.
The times make a column of their own: what was said, and every line it wraps to, starts under the
speaker, never at the screen's edge.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable
from sessions_tui.ui.text import clock_time, literal, span

if TYPE_CHECKING:
    from sessions_tui.backend.values.vocabulary import LedgerEntry

LIMIT = 500

SAID = {"replied": "reply", "late_reply": "late reply", "pingpong": "ping-pong", "announce": "announce"}


def thread_lines(entries: list[LedgerEntry], a: str, b: str) -> list[tuple[int, str, str, str]]:
    """(time, who, what, text) of every step between `a` and `b`, oldest first."""
    pair = {a, b}
    out: list[tuple[int, str, str, str]] = []
    for entry in entries:
        if {entry.requester, entry.target} != pair:
            continue
        out.append((entry.created_at, entry.requester or "", f"→ {entry.target}", entry.message))
        for step in entry.states:
            detail: dict[str, Any] = step.detail or {}
            if step.state in ("replied", "late_reply"):
                out.append((step.at, entry.target, SAID[step.state], str(detail.get("text", ""))))
            elif step.state == "pingpong":
                speaker = str(detail.get("speaker") or "")
                out.append((step.at, speaker, f"ping-pong turn {detail.get('turn', '?')}", str(detail.get("text", ""))))
            elif step.state == "announce":
                out.append((step.at, entry.target, "announce", str(detail.get("text", ""))))
            elif step.state == "aborted":
                out.append((step.at, "", "stopped", f"by {detail.get('by') or 'the operator'}"))
            elif step.state in ("timeout", "error", "forbidden", "announce_skipped", "delivered", "delivery_failed"):
                why = str(detail.get("error") or detail.get("text") or "")
                out.append((step.at, "", step.state.replace("_", " "), why))
    out.sort(key=lambda line: line[0])
    return out


class ThreadScreen(Screen[None]):
    """The thread between sessions `a` and `b` (canonical keys)."""

    BINDINGS = [Binding("escape", "close", "back", id="thread_back", tooltip="back to the sends")]

    class Loaded(Message):
        def __init__(self, entries: list[LedgerEntry]) -> None:
            super().__init__()
            self.entries = entries

    def __init__(self, backend: Backend, display: Callable[[str], str], a: str, b: str) -> None:
        super().__init__()
        self.backend = backend
        self.display_key = display
        self.a, self.b = a, b

    def compose(self) -> ComposeResult:
        with Vertical(id="thread-view"):
            yield Static(id="thread-title")
            with VerticalScroll(id="thread-lines"):
                yield Static(id="thread-text")
            yield Static("esc back", id="thread-hint")

    def on_mount(self) -> None:
        title = f"Thread {self.display_key(self.a)} ⇄ {self.display_key(self.b)}"
        self.query_one("#thread-title", Static).update(literal(title, "bold"))
        self._load()

    @work(exclusive=True, group="thread", exit_on_error=False)
    async def _load(self) -> None:
        try:
            self.post_message(self.Loaded(await self.backend.sends(self.a, None, LIMIT)))
        except BackendUnavailable as exc:
            self.app.notify(str(exc), title="Thread", severity="warning", markup=False)
            self.post_message(self.Loaded([]))

    def on_thread_screen_loaded(self, event: Loaded) -> None:
        lines = thread_lines(list(reversed(event.entries)), self.a, self.b)
        grid = Table.grid(expand=True, padding=(0, 2, 0, 0))
        grid.add_column(no_wrap=True)  # the time
        grid.add_column(ratio=1)  # who, what, and what was said: its wrapped lines stay in this column
        for at, who, what, said in lines:
            text = Text()
            if who:
                text.append_text(literal(f"{self.display_key(who)} ", "bold"))
            style = (
                "$error"
                if what in ("error", "forbidden", "delivery failed")
                else "$warning"
                if what in ("timeout", "late reply")
                else "$accent"
            )
            text.append_text(span(what, style))
            if said:
                text.append_text(literal(f"\n{said}"))
            grid.add_row(span(clock_time(at, seconds=True), "dim"), text)
        shown = grid if lines else span("No sends between these two sessions.", "dim")
        self.query_one("#thread-text", Static).update(shown)

    def action_close(self) -> None:
        self.dismiss(None)
