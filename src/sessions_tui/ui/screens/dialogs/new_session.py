"""The new-session form (`n`): key, agent, label, model, thinking level and a first message.

The form creates the session itself (`Backend.create_session`, in an async worker) so that what is
wrong stays in the form beside its field, the form open; once created it is dismissed with the
outcome, and the main screen puts the table's cursor on the new row. `enter` in the last field or
`ctrl+s` anywhere creates, `esc` cancels.
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Label, Select, Static

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import (
    BackendUnavailable,
    NewSession,
    OperationRefused,
    Requester,
    SessionOpOutcome,
)
from sessions_tui.backend.values.vocabulary import THINKING_LEVELS, StoreDamaged, ToolInputError
from sessions_tui.ui.text import literal, span
from sessions_tui.ui.widgets.field import Field

FIELDS = ("key", "agent", "label", "model", "thinking", "message")
"""The form's fields, in its order; each widget's id is `new-<field>`."""


def field_of(error: str) -> str:
    """The field an error of `create_session` is about (its words name it; else the key's)."""
    said = error.lower()
    for field, words in (
        ("thinking", ("thinking",)),
        ("label", ("label",)),
        ("agent", ("agent id",)),
        ("model", ("model",)),
    ):
        if any(word in said for word in words):
            return field
    return "key"


def _row(label: str, widget: Widget) -> Horizontal:
    return Horizontal(Label(label, classes="form-label"), widget, classes="form-row")


class NewSessionScreen(ModalScreen[SessionOpOutcome | None]):
    """Asks for the new session; dismissed with what creating it did, or None when cancelled."""

    BINDINGS = [
        Binding("escape", "cancel", "cancel", id="new_cancel", tooltip="close the form, creating nothing"),
        Binding("ctrl+s", "create", "create", id="new_create", priority=True, tooltip="create the session"),
    ]

    def __init__(self, backend: Backend, requester: Requester | None, as_whom: str) -> None:
        """`requester`: who creates it (None: the operator); `as_whom` says so in the title."""
        super().__init__()
        self.backend = backend
        self.requester = requester
        self.as_whom = as_whom
        self.busy = False

    def compose(self) -> ComposeResult:
        with Vertical(id="new-session-box"):
            yield Static(span("New session", "bold") + span(f"   {self.as_whom}", "dim"), id="new-title")
            yield _row("Key", Field(placeholder="e.g. agent:main:discord:group:ops, or cron:nightly", id="new-key"))
            yield _row("Agent", Field(placeholder="the key's, else the default agent", id="new-agent"))
            yield _row("Label", Field(placeholder="optional, unique", id="new-label"))
            yield _row("Model", Field(placeholder="the agent's default", id="new-model"))
            levels = [(level, level) for level in THINKING_LEVELS]
            yield _row("Thinking", Select(levels, value="off", allow_blank=False, id="new-thinking", compact=True))
            yield _row("Message", Field(placeholder="optional: sent into it once created", id="new-message"))
            yield Static("", id="new-error")
            yield Static(span("enter in Message or ^s: create · tab: next field · esc: cancel", "dim"))

    def on_mount(self) -> None:
        self.query_one("#new-key", Input).focus()

    def value(self, field: str) -> str | None:
        """A text field's value, stripped; None when empty."""
        text = self.query_one(f"#new-{field}", Input).value.strip()
        return text or None

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        """enter: in the last field creates; in another moves to the next field."""
        event.stop()
        if event.input.id == "new-message":
            self.action_create()
        else:
            self.focus_next()

    def action_create(self) -> None:
        if self.busy:
            return
        key = self.value("key")
        if key is None:
            self.show_error("key", "a key is needed: the new session's")
            return
        thinking = self.query_one("#new-thinking", Select).value
        request = NewSession(
            key=key,
            agent_id=self.value("agent"),
            label=self.value("label"),
            model=self.value("model"),
            thinking=None if thinking in (Select.NULL, "off") else str(thinking),
            message=self.value("message"),
        )
        self.busy = True
        self.show_error(None, "creating…")
        self._create(request)

    @work(exclusive=True, group="new-session", exit_on_error=False)
    async def _create(self, request: NewSession) -> None:
        try:
            outcome = await self.backend.create_session(request, requester=self.requester)
        except (ToolInputError, OperationRefused, BackendUnavailable, StoreDamaged) as exc:
            self.busy = False
            self.show_error(field_of(str(exc)), str(exc))
            return
        self.dismiss(outcome)

    def show_error(self, field: str | None, line: str) -> None:
        """`line` under the fields; `field` (None: none) marked and focused, the others unmarked."""
        for name in FIELDS:
            self.query_one(f"#new-{name}").set_class(name == field, "-invalid")
        error = self.query_one("#new-error", Static)
        error.update(literal(line, "bold $error") if field else literal(line, "dim"))
        if field is not None:
            self.query_one(f"#new-{field}").focus()

    def action_cancel(self) -> None:
        self.dismiss(None)
