"""Help (`?`): every binding with what it does, grouped."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from sessions_tui.ui.text import span

GROUPS = [
    ("Navigate", ["enter open the session · ↑↓ move · tab next pane"], ["focus_next_pane", "open"]),
    ("Filter", [], ["filter", "back", "prev_page", "next_page"]),
    ("Transcript", [], ["tools", "older"]),
    ("Send", ["type /send on|off|inherit to set a session's send policy"], ["send"]),
    ("Spawn", [], ["spawn"]),
    ("App", ["ctrl+p command palette"], ["acting_as", "pause", "refresh", "help", "quit"]),
]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "close", "close")]

    def __init__(self, bindings: dict[str, tuple[str, str]]) -> None:
        super().__init__()
        self.bindings = bindings  # binding id -> (keys, description)

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold #7fb4ff", justify="right")
        table.add_column()
        for group, notes, ids in GROUPS:
            table.add_row(span(group, style="bold reverse"), "")
            for binding_id in ids:
                if binding_id in self.bindings:
                    keys, description = self.bindings[binding_id]
                    table.add_row(keys, description)
            for note in notes:
                table.add_row("", span(note, style="dim"))
        with VerticalScroll(id="help"):
            yield Static(span("sessions-tui keys", style="bold"), classes="panel-title")
            yield Static(table)
            yield Static(span("Keys can be changed in the config: ui.keybindings {id: keys}.", style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)


def binding_table(app: Any) -> dict[str, tuple[str, str]]:
    """The app's bindings by id, with the keys in force (after the config's keymap)."""
    from textual.binding import Binding

    keymap = getattr(app, "_keymap", {}) or {}
    out: dict[str, tuple[str, str]] = {}
    for binding in app.BINDINGS:
        if not isinstance(binding, Binding) or not binding.id or binding.id in out:
            continue
        keys = keymap.get(binding.id, binding.key)
        shown = " / ".join(app.get_key_display(Binding(k.strip(), binding.action)) for k in keys.split(","))
        out[binding.id] = (shown, binding.description)
    return out
