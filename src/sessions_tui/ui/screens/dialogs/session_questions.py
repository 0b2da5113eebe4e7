"""What the operations on a session ask before they are done: the new label (`L`), the model and
thinking level (`M`), and yes or no before a reset (`R`), a delete (`D`) or a bulk archive (`A`)
or stop (`x`) of the marked sessions.

The screens only ask; the main screen does the operation once one is dismissed with an answer
(screens/main/operations.py).
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Select, Static

from sessions_tui.backend.values.vocabulary import THINKING_LEVELS
from sessions_tui.terminal_text import visible
from sessions_tui.ui.screens.dialogs.confirm import ConfirmScreen
from sessions_tui.ui.text import literal, span
from sessions_tui.ui.widgets.field import Field

SHOWN_KEYS = 3
"""How many of the marked sessions a bulk question names before "and N more"."""


def _named(keys: list[str]) -> str:
    """The keys of a bulk question: the first few, then how many more."""
    shown = ", ".join(keys[:SHOWN_KEYS])
    return shown + (f" and {len(keys) - SHOWN_KEYS} more" if len(keys) > SHOWN_KEYS else "")


def _sessions(count: int) -> str:
    return f"{count} session" + ("" if count == 1 else "s")


class ResetScreen(ConfirmScreen):
    """Asks before a session is reset; dismissed with whether to reset it."""

    def __init__(self, shown_key: str) -> None:
        super().__init__(
            span("reset ", "bold") + literal(shown_key, "bold") + span("?", "bold"),
            "A new transcript starts (a new sessionId under the same key); the old one is kept.",
            yes="reset",
            no="keep it",
        )


class DeleteScreen(ConfirmScreen):
    """Asks before one session or the marked ones are deleted; dismissed with whether to delete."""

    def __init__(self, shown_keys: list[str]) -> None:
        one = len(shown_keys) == 1
        question = span("delete ", "bold") + (
            literal(shown_keys[0], "bold") if one else span(_sessions(len(shown_keys)), "bold")
        )
        kept = "its transcript is kept" if one else "their transcripts are kept"
        super().__init__(
            question + span("?", "bold"),
            ("" if one else visible(_named(shown_keys)) + ". ")
            + f"A running turn is stopped, the entry removed; {kept} as a .deleted file.",
            yes="delete",
            no="keep",
        )


class BulkScreen(ConfirmScreen):
    """Asks before the marked sessions are archived, unarchived or stopped; dismissed with yes or no."""

    def __init__(self, verb: str, shown_keys: list[str], detail: str) -> None:
        super().__init__(
            span(f"{verb} {_sessions(len(shown_keys))}?", "bold"),
            visible(_named(shown_keys)) + ". " + detail,
            yes=verb,
            no="leave them",
        )


class RenameScreen(ModalScreen[str | None]):
    """The label, prefilled with the session's; dismissed with the new one ("" clears it) or None
    (esc: unchanged)."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, shown_key: str, label: str) -> None:
        super().__init__()
        self.shown_key = shown_key
        self.label = label

    def compose(self) -> ComposeResult:
        with Vertical(classes="question-box"):
            yield Static(span("Rename ", "bold") + literal(self.shown_key, "bold"))
            yield Field(self.label, placeholder="its label (empty: none)", id="rename-label")
            yield Static(span("enter: set (empty clears it) · esc: cancel", "dim"))

    def on_mount(self) -> None:
        self.query_one("#rename-label", Input).focus()

    @on(Input.Submitted, "#rename-label")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class ModelScreen(ModalScreen[tuple[str | None, str | None] | None]):
    """The model and the thinking level, prefilled with the session's; dismissed with what changed
    (`(model, thinking)`, None where unchanged; an emptied model is `default`, the agent's) or None
    (esc)."""

    BINDINGS = [
        Binding("escape", "cancel", "cancel"),
        Binding("ctrl+s", "submit", "set", priority=True),
    ]

    def __init__(self, shown_key: str, model: str, thinking: str) -> None:
        super().__init__()
        self.shown_key = shown_key
        self.model = model
        self.thinking = thinking if thinking in THINKING_LEVELS else "off"

    def compose(self) -> ComposeResult:
        levels = [(level, level) for level in THINKING_LEVELS]
        with Vertical(classes="question-box"):
            yield Static(span("Model and thinking of ", "bold") + literal(self.shown_key, "bold"))
            with Horizontal(classes="form-row"):
                yield Label("Model", classes="form-label")
                yield Field(self.model, placeholder="the agent's default", id="model-name")
            with Horizontal(classes="form-row"):
                yield Label("Thinking", classes="form-label")
                yield Select(levels, value=self.thinking, allow_blank=False, id="model-thinking", compact=True)
            yield Static(span("enter in Model or ^s: set · esc: cancel", "dim"))

    def on_mount(self) -> None:
        self.query_one("#model-name", Input).focus()

    @on(Input.Submitted, "#model-name")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def action_submit(self) -> None:
        model = self.query_one("#model-name", Input).value.strip()
        thinking = str(self.query_one("#model-thinking", Select).value)
        changed_model = None if model == self.model else (model or "default")
        self.dismiss((changed_model, None if thinking == self.thinking else thinking))

    def action_cancel(self) -> None:
        self.dismiss(None)
