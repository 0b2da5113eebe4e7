"""Kill (`x` on a sub-agent in the spawn panel's runs list): are you sure? The box names what dies
(`kill research-1 and its 2 descendants?`); y kills, n (or esc) leaves them running.

The screen only asks, as the stop box does (screens/stop.py); the main screen has the panel kill
the subtree (`SpawnPanel.kill`) once it is dismissed with yes.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from sessions_tui.ui.text import literal, span


class KillScreen(ModalScreen[bool]):
    """Asks before a sub-agent and its subtree are killed; dismissed with whether to kill them."""

    BINDINGS = [
        Binding("y", "answer(True)", "kill", id="kill_yes", tooltip="kill the sub-agent and its subtree"),
        Binding("n,escape", "answer(False)", "keep running", id="kill_no", tooltip="leave them running"),
    ]

    def __init__(self, question: str) -> None:
        """`question` names what dies (`spawn_control.kill_question`)."""
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="kill-box"):
            yield Static(literal(self.question, "bold"), id="kill-question")
            yield Static(
                span(
                    "Each run ends as killed, wherever it runs, and its queued messages are dropped; "
                    "each announces that it was killed.",
                    "dim",
                )
            )
            yield Static(span("y", "bold") + " kill · " + span("n", "bold") + " / esc keep running", id="kill-keys")

    def action_answer(self, kill: bool) -> None:
        self.dismiss(kill)
