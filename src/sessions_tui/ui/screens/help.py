"""Help (`?`) and the command palette's own commands (`ctrl+p`): both from the bindings of the
main screen (screens/main_keys.py) and the app.

Every key shown is read from the bindings with the config's keymap applied, so a remapped key
shows as remapped in help, the palette and the footer alike. Help adds what bindings cannot say:
the keys widgets handle themselves (↑↓, enter in the filter or the message) and what `esc` does
where.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widgets import Static

from sessions_tui.ui.text import span
from sessions_tui.ui.theme import themed

ESC = (
    "back: leaves the composer, the filters or the transcript for the table (the filter stays); "
    "in the filter input it clears the filter; in the spawn panel it closes the panel; on the "
    "table it clears the filter, then closes the spawn panel"
)
Entry = str | tuple[str, str]  # a binding id, or (keys, what they do) for keys widgets handle
GROUPS: list[tuple[str, list[Entry]]] = [
    (
        "Navigate",
        [
            ("↑ ↓", "move the cursor; its session opens once the cursor rests"),
            "open",
            "focus_next_pane",
            ("shift+tab", "previous pane"),
            "back",
        ],
    ),
    (
        "Filter and sort",
        [
            "filter",
            ("enter  ↓", "in the filter: back to the table, keeping the filter"),
            ("Kinds", "toggle a kind (click, or tab to it and press space): on ● shown, off ○ hidden"),
            ("Active", "only the sessions updated within that time (5 min … 7 days)"),
            "sort_prev",
            "sort_next",
            "sort_reverse",
            ("click a title", "sort by that column; again: reverse"),
            "prev_page",
            "next_page",
        ],
    ),
    (
        "Transcript",
        [
            "tools",
            "older",
            ("home  end", "first / last message (in the transcript)"),
            ("click", "open a collapsed thinking block"),
        ],
    ),
    (
        "Send",
        [
            ("enter", "in the message: send it (one line; there is no newline)"),
            "send",
            ("tab", "message → wait → Send"),
            ("wait", "seconds the send waits for the reply; 0: do not wait (the run goes on)"),
            ("/send on|off|inherit", "typed as the message: set the session's send policy"),
            ("esc", "leave the message for the table"),
            "stop",
        ],
    ),
    (
        "Spawn",
        [
            "spawn",
            ("enter  ^s", "in the form: spawn (^s anywhere in the panel when it has the screen)"),
            ("enter", "on a run: open its transcript"),
            ("esc", "close the panel"),
        ],
    ),
    ("App", ["acting_as", "pause", "refresh", "help", ("^p", "command palette: every command by name"), "quit"]),
]
AppResult = TypeVar("AppResult")
PALETTE_SKIP = {"back", "focus_next_pane"}  # keys that mean nothing from the palette


@dataclass(frozen=True)
class BoundKey:
    keys: str  # as shown, e.g. "^s / ^j"
    description: str  # what it does, e.g. "send the message"
    action: str
    owner: DOMNode  # where the action runs: the screen or the app


def binding_table(app: App[AppResult], screen: DOMNode | None) -> dict[str, BoundKey]:
    """The bindings of `screen` (its own) and the app by id, in that order, with the keys in force
    (after the config's keymap)."""
    keymap: dict[str, str] = getattr(app, "_keymap", {}) or {}  # Textual keeps the keymap only there
    out: dict[str, BoundKey] = {}
    owned: list[tuple[DOMNode, list[BindingType]]] = [(app, app.BINDINGS)]
    if screen is not None:
        owned.insert(0, (screen, screen.BINDINGS))
    for owner, bindings in owned:
        for binding in bindings:
            if not isinstance(binding, Binding) or not binding.id or binding.id in out:
                continue
            keys = keymap.get(binding.id, binding.key)
            shown = " / ".join(app.get_key_display(Binding(k.strip(), binding.action)) for k in keys.split(","))
            out[binding.id] = BoundKey(shown, binding.tooltip or binding.description, binding.action, owner)
    return out


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "close", "close")]

    def __init__(self, bindings: dict[str, BoundKey]) -> None:
        super().__init__()
        self.bindings = bindings
        self.table = Table.grid(padding=(0, 2))  # what help shows (tests read it whole)

    def compose(self) -> ComposeResult:
        table = self.table
        table.add_column(style=themed("bold $text-primary"), justify="right", no_wrap=True)
        table.add_column()
        for group, entries in GROUPS:
            table.add_row(span(group, style="bold reverse"), "")
            for entry in entries:
                if isinstance(entry, tuple):
                    table.add_row(entry[0], Text(entry[1]))
                elif entry in self.bindings:
                    bound = self.bindings[entry]
                    table.add_row(bound.keys, Text(ESC if entry == "back" else bound.description))
        with VerticalScroll(id="help"):
            yield Static(
                span("sessions-tui keys", style="bold") + span("   ↑↓ scroll · esc closes", style="dim"),
                classes="panel-title",
            )
            yield Static(table)
            yield Static(span("Keys can be changed in the config: ui.keybindings {id: keys}.", style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)


class DashboardCommands(Provider):
    """The command palette (ctrl+p): the commands of the screen it is opened on and the app's, by
    name, each with its key."""

    def _commands(self) -> list[tuple[str, BoundKey]]:
        """(title, the binding) of each command, keys as in force."""
        out = []
        screen = self.screen
        for binding_id, bound in binding_table(self.app, screen).items():
            offered = bound.owner is not screen or screen.check_action(bound.action, ()) is not False
            if binding_id not in PALETTE_SKIP and offered:  # not what the backend cannot do (main_keys.NEEDS)
                out.append((bound.description[:1].upper() + bound.description[1:], bound))
        return out

    async def discover(self) -> Hits:
        for title, bound in self._commands():
            yield DiscoveryHit(Content.assemble(title, ("  " + bound.keys, "dim")), self._runner(bound), text=title)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, bound in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(
                    score,
                    Content.assemble(matcher.highlight(title), ("  " + bound.keys, "dim")),
                    self._runner(bound),
                    text=title,
                )

    def _runner(self, bound: BoundKey) -> Callable[[], Coroutine[Any, Any, None]]:
        async def run() -> None:
            await self.app.run_action(bound.action, bound.owner)

        return run
