"""Help (`?`) and the command palette's own commands (`ctrl+p`): both from the bindings of the
main screen (screens/main/main_keys.py), the app and (help only) the focusable widgets', each binding
in its section (main_keys.SECTION_OF).

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
from textual.widget import Widget
from textual.widgets import Static

from sessions_tui.ui.screens.main.main_keys import APP, FILTER, NAVIGATE, SECTION_OF, SECTIONS, SEND, SPAWN, TRANSCRIPT
from sessions_tui.ui.text import span
from sessions_tui.ui.theme import themed
from sessions_tui.ui.widgets.composer import Composer
from sessions_tui.ui.widgets.spawn_runs import RunsTable

ESC = (
    "back: leaves the composer, the filters or the transcript for the table (the filter stays); "
    "in the filter input it clears the filter; in the spawn form it goes to the runs list, on the "
    "runs list it closes the panel; on the table it clears the marks, then the filter, then closes "
    "the spawn panel"
)
EXTRAS: dict[str, list[tuple[str, str]]] = {
    NAVIGATE: [
        ("↑ ↓", "move the cursor; its session opens once the cursor rests"),
        ("shift+tab", "previous pane"),
    ],
    FILTER: [
        ("enter  ↓", "in the filter: back to the table, keeping the filter"),
        ("Kinds", "toggle a kind (its alt key, a click, or tab to it and space): on ● shown, off ○ hidden"),
        ("Active", "only the sessions updated within that time (5 min … 7 days)"),
        ("click a title", "sort by that column; again: reverse"),
    ],
    TRANSCRIPT: [
        ("home  end", "first / last message (in the transcript)"),
        ("click", "open a collapsed thinking block"),
    ],
    SEND: [
        ("enter", "in the message: send it (one line; there is no newline); in the wait: the same"),
        ("tab", "message → wait → Send"),
        ("wait", "seconds the send waits for the reply; 0: do not wait (the run goes on)"),
        ("/send on|off|inherit", "typed as the message: set the session's send policy"),
        ("esc", "leave the message for the table"),
    ],
    SPAWN: [
        ("enter  ^s", "in the form: spawn (^s anywhere in the panel when it has the screen)"),
        ("enter", "on a run: open its transcript"),
        ("esc", "close the panel"),
    ],
    APP: [("^p", "command palette: every command by name")],
}
"""What help says beside the bindings: the keys widgets handle themselves, and what the fields mean."""
WIDGETS: tuple[type[Widget], ...] = (RunsTable, Composer)
"""The focusable widgets whose own bindings help lists (their keys act where they have the focus)."""
AppResult = TypeVar("AppResult")
PALETTE_SKIP = {"back", "focus_next_pane"}  # keys that mean nothing from the palette
OTHER = "Other"  # the section of a key SECTION_OF does not name (none: a test holds it)


@dataclass(frozen=True)
class BoundKey:
    keys: str  # as shown, e.g. "^s / ^j"
    description: str  # what it does, e.g. "send the message"
    action: str
    owner: DOMNode | None  # where the action runs: the screen or the app (None: a widget's, not in the palette)
    section: str  # help's section


def binding_table(app: App[AppResult], screen: DOMNode | None) -> dict[str, BoundKey]:
    """Every binding with an id by id: `screen`'s own, the app's, then the focusable widgets' (`WIDGETS`),
    with the keys in force (after the config's keymap)."""
    keymap: dict[str, str] = getattr(app, "_keymap", {}) or {}  # Textual keeps the keymap only there
    out: dict[str, BoundKey] = {}
    owned: list[tuple[DOMNode | None, list[BindingType]]] = [(app, app.BINDINGS)]
    if screen is not None:
        owned.insert(0, (screen, screen.BINDINGS))
    owned += [(None, widget.BINDINGS) for widget in WIDGETS]
    for owner, bindings in owned:
        for binding in bindings:
            if not isinstance(binding, Binding) or not binding.id or binding.id in out:
                continue
            keys = keymap.get(binding.id, binding.key)
            shown = " / ".join(app.get_key_display(Binding(k.strip(), binding.action)) for k in keys.split(","))
            section = SECTION_OF.get(binding.id, OTHER)
            out[binding.id] = BoundKey(shown, binding.tooltip or binding.description, binding.action, owner, section)
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
        for section in (*SECTIONS, OTHER):
            rows = [
                (bound.keys, ESC if binding_id == "back" else bound.description)
                for binding_id, bound in self.bindings.items()
                if bound.section == section
            ]
            rows += EXTRAS.get(section, [])
            if rows:
                table.add_row(span(section, style="bold reverse"), "")
                for keys, description in rows:
                    table.add_row(keys, Text(description))
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
            if bound.owner is None:  # a widget's: it acts where that widget has the focus
                continue
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
            await self.app.run_action(bound.action, bound.owner or self.app)

        return run
