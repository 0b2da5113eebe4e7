"""Steer (`e` on a running sub-agent): one line of text to put in its queue."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from sessions_tui.ui.text import literal, span
from sessions_tui.ui.widgets.field import Field


class SteerScreen(ModalScreen[str | None]):
    """Asks for the message; enter puts it in the child's queue, escape leaves it."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, child: str) -> None:
        super().__init__()
        self.child = child

    def compose(self) -> ComposeResult:
        with Vertical(id="steer-box"):
            yield Static(span("Steer ", "bold") + literal(self.child), id="steer-title")
            yield Field(placeholder="what the sub-agent should do next (enter: queue it)", id="steer-message")
            yield Static(span("It reads this after its current turn.", "dim"))

    def on_mount(self) -> None:
        self.query_one("#steer-message", Input).focus()

    @on(Input.Submitted, "#steer-message")
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
