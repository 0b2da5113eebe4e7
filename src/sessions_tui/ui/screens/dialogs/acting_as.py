"""Acting as (`a`): pick the requester the tools run as, and whether it is sandboxed."""

from __future__ import annotations

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Static, Switch
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Requester
from sessions_tui.ui.text import literal, span
from sessions_tui.ui.widgets.field import Field

OPERATOR = "\x00operator"
"""The picker's choice of acting as no session: the operator (no session key is this)."""


def describe(backend: Backend, key: str, sandboxed: bool) -> str:
    """What a requester's tools see, in one sentence."""
    if key == OPERATOR:
        return (
            f"As the operator: sends go in as {backend.display(backend.main_session_key())}, yours; "
            "operations on sessions reach every session."
        )
    ctx = backend.describe_requester(Requester(key=key, sandboxed=sandboxed))
    who = f"As {backend.display(key)}" + (" (sandboxed)" if sandboxed else "")
    if ctx.restrict_to_spawned:
        return f"{who}: sees only the sessions it spawned."
    agent = ctx.agent_id
    if ctx.visibility == "self":
        return f"{who}: sees only itself (visibility self)."
    if ctx.visibility == "tree":
        return f"{who}: sees itself and the sessions it spawned (visibility tree)."
    if ctx.visibility == "agent":
        return f"{who}: sees every session of agent {agent} (visibility agent)."
    if not ctx.a2a_enabled:
        return f"{who}: sees every session of agent {agent}; other agents need tools.agentToAgent.enabled."
    others = "every agent" if ctx.a2a_allow_any else "agents allowed by tools.agentToAgent.allow"
    return f"{who}: sees the sessions of agent {agent} and of {others}."


class ActingAsScreen(ModalScreen[tuple[str, bool] | None]):
    """The picker opens on the current requester with the filter focused, as fzf's and k9s's do:
    typing narrows the list at once, ↑↓ (and page up/down) move its highlight from the filter,
    `enter` (in the list or the filter) picks the highlighted session, `esc` cancels; what is typed
    while the list itself has focus goes to the filter. The sandboxed switch is the user's choice
    and stays as set while the highlight moves; an agent whose `sandbox.mode` sandboxes the session
    shows it on and locked."""

    BINDINGS = [
        Binding("escape", "cancel", "cancel"),
        # The list's own keys, for when the filter has focus (the focused list answers them itself).
        Binding("up", "move('cursor_up')", show=False),
        Binding("down", "move('cursor_down')", show=False),
        Binding("pageup", "move('page_up')", show=False),
        Binding("pagedown", "move('page_down')", show=False),
    ]

    def __init__(self, backend: Backend, current: str, sandboxed: bool) -> None:
        """`current`: the acting-as session, or `OPERATOR` for none chosen."""
        super().__init__()
        self.backend = backend
        self.current = current
        self.choice = current
        # The user's own choice: what the engine forces for the current requester is not one.
        self.wanted = sandboxed and not backend.is_sandboxed(current)

    @property
    def sandboxed(self) -> bool:
        """Whether the highlighted session would be sandboxed (the switch, or its agent); the
        operator never is."""
        if self.choice == OPERATOR:
            return False
        return self.wanted or self.backend.is_sandboxed(self.choice)

    def compose(self) -> ComposeResult:
        with Vertical(id="acting-as"):
            yield Static(
                span("Act as", style="bold")
                + span("   type to filter · ↑↓ move · enter picks · esc cancels", style="dim"),
                classes="panel-title",
            )
            # Not selected on focus: a character typed on the list is added to the filter, not put in its place.
            yield Field(
                placeholder="filter sessions, or type any session key", id="acting-filter", select_on_focus=False
            )
            yield OptionList(id="acting-options")
            with Horizontal(id="acting-controls"):
                yield Label("sandboxed")
                yield Switch(value=self.sandboxed, id="acting-sandboxed")
                yield Button("Use", id="acting-use", variant="primary", compact=True)
            yield Static("", id="acting-describe")

    class Rows(Message):
        """The sessions to pick from for `search`, read in a worker: (key, shown text), and a
        typed key to offer when nothing matches."""

        def __init__(self, search: str, rows: list[tuple[str, Text]], typed: Option | None) -> None:
            super().__init__()
            self.search = search
            self.rows = rows
            self.typed = typed

    def on_mount(self) -> None:
        self._fill("")
        self._show_choice()
        self.query_one("#acting-filter", Field).focus()

    def action_move(self, action: str) -> None:
        """Move the list's highlight (`cursor_up`, `cursor_down`, `page_up`, `page_down`)."""
        options = self.query_one("#acting-options", OptionList)
        getattr(options, f"action_{action}")()

    def on_key(self, event: events.Key) -> None:
        """A character typed on the list goes to the filter, which takes the focus (as fzf's does)."""
        options = self.query_one("#acting-options", OptionList)
        if self.focused is options and event.is_printable and event.character:
            event.stop()
            event.prevent_default()
            field = self.query_one("#acting-filter", Field)
            field.focus()
            field.cursor_position = len(field.value)
            field.insert_text_at_cursor(event.character)

    def _fill(self, search: str) -> None:
        """Read the sessions for `search` off the UI thread (the store is SQLite)."""
        self._read_rows(search)

    @work(group="acting-rows", exclusive=True, exit_on_error=False)
    async def _read_rows(self, search: str) -> None:
        """The operator, then main, the current requester next if not among them, then the matches."""
        main = self.backend.main_session_key()
        rows = [(main, "main")] + [
            (k, label) for k, label in await self.backend.operator_sessions(search or None, 200) if k != main
        ]
        if not search and self.current != OPERATOR and all(key != self.current for key, _ in rows):
            rows.insert(1, (self.current, ""))
        shown_rows = [(OPERATOR, literal("operator", style="bold") + literal("  you: no session", style="dim"))]
        for key, label in rows:
            shown = self.backend.display(key)
            shown_rows.append(
                (
                    key,
                    literal(shown, style="bold")
                    + literal(f"  {label}" if label and label != shown else "", style="dim"),
                )
            )
        typed = None
        if search and not rows[1:] and (":" in search or search == "main"):
            typed = Option(literal(f"use the key {search}"), id=self.backend.canonical(search))
        if not get_current_worker().is_cancelled:
            self.post_message(self.Rows(search, shown_rows, typed))

    def on_acting_as_screen_rows(self, event: Rows) -> None:
        """The list, with the current choice highlighted, or the first match of a search."""
        options = self.query_one("#acting-options", OptionList)
        options.clear_options()
        options.add_options([Option(text, id=key) for key, text in event.rows])
        if event.typed is not None:
            options.add_option(event.typed)
        ids = [option.id for option in options.options]
        if event.search:  # the first match: the operator and main head the list, highlighted when they match
            matches = [event.search.casefold() in text.plain.casefold() for _, text in event.rows[:2]]
            first = next((i for i, hit in enumerate(matches) if hit), 2)
            options.highlighted = first if first < len(ids) else len(ids) - 1
        else:
            options.highlighted = ids.index(self.choice) if self.choice in ids else 0

    @on(Input.Changed, "#acting-filter")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value.strip())

    @on(OptionList.OptionHighlighted)
    def _highlight(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id:
            self.choice = event.option.id
            self._show_choice()

    def _show_choice(self) -> None:
        """The switch shows the user's choice, or on and locked where the agent sandboxes it."""
        switch = self.query_one("#acting-sandboxed", Switch)
        forced = self.backend.is_sandboxed(self.choice)
        with switch.prevent(Switch.Changed):
            switch.value = self.sandboxed
        switch.disabled = forced or self.choice == OPERATOR
        switch.tooltip = "sandboxed by its agent's sandbox.mode" if forced else None
        self._describe()

    @on(Switch.Changed)
    def _switch(self, event: Switch.Changed) -> None:
        self.wanted = event.value
        self._describe()

    def _describe(self) -> None:
        self.query_one("#acting-describe", Static).update(
            literal(describe(self.backend, self.choice, self.sandboxed), style="italic")
        )

    @on(Input.Submitted, "#acting-filter")
    @on(OptionList.OptionSelected)
    @on(Button.Pressed, "#acting-use")
    def _use(self, event: Input.Submitted | OptionList.OptionSelected | Button.Pressed) -> None:
        options = self.query_one("#acting-options", OptionList)
        if options.highlighted is not None:  # what is highlighted now, whatever messages are queued
            self.choice = options.get_option_at_index(options.highlighted).id or self.choice
        self.dismiss((self.choice, self.sandboxed))

    def action_cancel(self) -> None:
        self.dismiss(None)
