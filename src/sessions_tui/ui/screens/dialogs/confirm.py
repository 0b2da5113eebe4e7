"""A question answered y or n before something that cannot be undone: a box in the middle says
what will happen and what it means; `y` answers yes, `n` or `esc` no. The screen only asks: whoever
pushed it acts once it is dismissed with yes (stop: screens/dialogs/stop.py, kill: screens/dialogs/kill.py)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from sessions_tui.ui.text import span


class ConfirmScreen(ModalScreen[bool]):
    """Asks `question` (what happens), says `detail` (what it means); dismissed with the answer.
    `yes` and `no` are what y and n / esc do, in words for the box and the footer."""

    BINDINGS = [
        Binding("y", "answer(True)", "yes", id="confirm_yes", tooltip="yes: do it"),
        Binding("n,escape", "answer(False)", "no", id="confirm_no", tooltip="no: leave it be"),
    ]

    def __init__(self, question: Text, detail: str, *, yes: str, no: str) -> None:
        super().__init__()
        self.question = question
        self.detail = detail
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical(classes="confirm-box"):
            yield Static(self.question, id="confirm-question")
            yield Static(span(self.detail, "dim"))
            yield Static(span("y", "bold") + f" {self.yes} · " + span("n", "bold") + f" / esc {self.no}")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
