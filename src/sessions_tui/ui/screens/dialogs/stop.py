"""Stop (`x` on the open session): are you sure? y stops its running turn, n (or esc) leaves it be.

The screen only asks (screens/dialogs/confirm.py); the main screen stops the turn (`Backend.abort_run`) once it is
dismissed with yes, and shows what came of it (`outcome_line`).
"""

from __future__ import annotations

from sessions_tui.backend.contract.types import AbortOutcome
from sessions_tui.ui.screens.dialogs.confirm import ConfirmScreen
from sessions_tui.ui.text import literal, span


def outcome_line(outcome: AbortOutcome, shown_key: str) -> str:
    """What stopping did, in a line: the run stopped, nothing running, or asked and still going."""
    if outcome.status == "still-running":
        return f"asked run {(outcome.run_id or '')[:8]}… in {shown_key} to stop; still running"
    if outcome.aborted:
        return f"stopped run {(outcome.run_id or '')[:8]}… in {shown_key}"
    return f"no run in progress in {shown_key}"


class StopScreen(ConfirmScreen):
    """Asks before a session's running turn is stopped; dismissed with whether to stop it."""

    def __init__(self, shown_key: str) -> None:
        super().__init__(
            span("Stop the running turn in ", "bold") + literal(shown_key, "bold") + span("?", "bold"),
            "Its run ends as killed, wherever it runs (this dashboard, a serve, a send in another "
            "shell); the messages queued behind it still run.",
            yes="stop",
            no="keep it running",
        )
