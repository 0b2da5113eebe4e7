"""Kill (`x` on a sub-agent in the spawn panel's runs list): are you sure? The box names what dies
(`kill research-1 and its 2 descendants?`); y kills, n (or esc) leaves them running. The main
screen has the panel kill the subtree (`SpawnPanel.kill`) once it is dismissed with yes."""

from __future__ import annotations

from sessions_tui.ui.screens.dialogs.confirm import ConfirmScreen
from sessions_tui.ui.text import literal


class KillScreen(ConfirmScreen):
    """Asks before a sub-agent and its subtree are killed; dismissed with whether to kill them."""

    def __init__(self, question: str) -> None:
        """`question` names what dies (`spawn_control.kill_question`)."""
        super().__init__(
            literal(question, "bold"),
            "Each run ends as killed, wherever it runs, and its queued messages are dropped; "
            "each announces that it was killed.",
            yes="kill",
            no="keep running",
        )
