"""Why (`w`, and after every refusal): may the acting-as requester list, read, send to and spawn
under the selected session, and which rule decides each — from the tools' own checks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static

from sessions_tui.backend import Backend, BackendUnavailable, Requester, ToolInputError
from sessions_tui.ui.text import literal, span

if TYPE_CHECKING:
    from sessions_tui.backend import Explanation, Verdict
    from sessions_tui.ui.app import SessionsApp

ACTIONS = {"list": "list", "history": "read", "send": "send", "spawn": "spawn"}


async def refusing_verdict(
    backend: Backend, requester: Requester, target: str, agent: str | None, action: Literal["send", "spawn"]
) -> Verdict | None:
    """After a refusal: the verdict on `action` that refuses it, for a "Why refused" toast (None
    when the backend cannot explain, or the action is allowed by now)."""
    try:
        found = await backend.explain(requester, target, agent)
    except (ToolInputError, BackendUnavailable):
        return None
    verdict = found.verdict(action)
    return None if verdict.allowed else verdict


def explanation_text(explanation: Explanation, display: Any) -> Text:
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

    def __init__(self, backend: Backend, requester: Requester, target: str, display: Any) -> None:
        super().__init__()
        self.backend, self.requester, self.target, self.display_key = backend, requester, target, display

    def compose(self) -> ComposeResult:
        with Vertical(id="explain-box"):
            yield Static(span("Why", "bold"), id="explain-title")
            yield Static(span("…", "dim"), id="explain-text")
            yield Static(span("esc close", "dim"))

    def on_mount(self) -> None:
        self._explain()

    @work(exclusive=True, thread=True, exit_on_error=False)
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


def open_why(app: SessionsApp) -> None:
    """`w`: the explanation for the acting-as requester and the open session."""
    from sessions_tui.ui.widgets.transcript import open_session_key

    key = open_session_key(app, "why is asked of the open session")
    if key:
        app.push_screen(ExplainScreen(app.backend, app.requester(), key, app.display_key))
