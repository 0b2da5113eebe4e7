"""Why (`w`): may the acting-as requester list, read, send to and spawn
under the selected session, and which rule decides each — from the tools' own checks."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable, Requester
from sessions_tui.backend.values.vocabulary import ToolInputError
from sessions_tui.ui.text import literal, span

if TYPE_CHECKING:
    from sessions_tui.backend.values.views import Explanation

ACTIONS = {"list": "list", "history": "read", "send": "send", "spawn": "spawn"}


def explanation_text(explanation: Explanation, display: Callable[[str], str]) -> Text:
    """One line per action: yes/no, then the deciding rule in words."""
    text = Text()
    who = display(explanation.requester) + (" (sandboxed)" if explanation.sandboxed else "")
    text.append_text(literal(f"{who} → {display(explanation.target)}", "bold"))
    text.append_text(span(f"   visibility {explanation.visibility}\n", "dim"))
    for verdict in explanation.verdicts:
        text.append_text(span(f"{ACTIONS.get(verdict.action, verdict.action):<6}", "bold"))
        text.append_text(span("yes  " if verdict.allowed else "no   ", "$success" if verdict.allowed else "$error"))
        extra = f" (under {explanation.spawn_agent})" if verdict.action == "spawn" else ""
        text.append_text(literal(f"{verdict.why}{extra}\n"))
    for note in explanation.notes:
        text.append_text(span(f"· {note}\n", "dim"))
    return text


class ExplainScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "close", "close"), Binding("w", "close", show=False)]

    class Explained(Message):
        def __init__(self, text: Text) -> None:
            super().__init__()
            self.text = text

    def __init__(self, backend: Backend, requester: Requester, target: str, display: Callable[[str], str]) -> None:
        super().__init__()
        self.backend, self.requester, self.target, self.display_key = backend, requester, target, display

    def compose(self) -> ComposeResult:
        with Vertical(id="explain-box"):
            yield Static(span("Why", "bold"), id="explain-title")
            yield Static(span("…", "dim"), id="explain-text")
            yield Static(span("esc close", "dim"))

    def on_mount(self) -> None:
        self._explain()

    @work(exclusive=True, exit_on_error=False)
    async def _explain(self) -> None:
        try:
            found = await self.backend.explain(self.requester, self.target, None)
            text = explanation_text(found, self.display_key)
        except (ToolInputError, BackendUnavailable) as exc:
            text = literal(str(exc))
        self.post_message(self.Explained(text))

    def on_explain_screen_explained(self, event: Explained) -> None:
        self.query_one("#explain-text", Static).update(event.text)

    def action_close(self) -> None:
        self.dismiss(None)
