"""Acting as (`a`): pick the requester the tools run as, and whether it is sandboxed."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Static, Switch
from textual.widgets.option_list import Option

from sessions_tui.tools.access import RequesterContext
from sessions_tui.tools.base import ToolCall
from sessions_tui.ui.text import literal, span
from sessions_tui.ui.widgets.field import Field


def describe(engine: Any, key: str, sandboxed: bool) -> str:
    """What a requester's tools see, in one sentence."""
    ctx = RequesterContext.of(ToolCall(engine=engine, agent_session_key=key, sandboxed=sandboxed))
    who = f"As {engine.display(key)}" + (" (sandboxed)" if sandboxed else "")
    if ctx.restrict_to_spawned:
        return f"{who}: sees only the sessions it spawned."
    agent = ctx.requester_agent_id
    if ctx.visibility == "self":
        return f"{who}: sees only itself (visibility self)."
    if ctx.visibility == "tree":
        return f"{who}: sees itself and the sessions it spawned (visibility tree)."
    if ctx.visibility == "agent":
        return f"{who}: sees every session of agent {agent} (visibility agent)."
    a2a = engine.a2a_policy()
    if not a2a.enabled:
        return f"{who}: sees every session of agent {agent}; other agents need tools.agentToAgent.enabled."
    others = "every agent" if not a2a.allow else "agents allowed by tools.agentToAgent.allow"
    return f"{who}: sees the sessions of agent {agent} and of {others}."


class ActingAsScreen(ModalScreen[tuple[str, bool] | None]):
    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, engine: Any, current: str, sandboxed: bool) -> None:
        super().__init__()
        self.engine = engine
        self.choice = current
        self.sandboxed = sandboxed

    def compose(self) -> ComposeResult:
        with Vertical(id="acting-as"):
            yield Static(span("Act as", style="bold"), classes="panel-title")
            yield Field(placeholder="filter sessions, or type any session key", id="acting-filter")
            yield OptionList(id="acting-options")
            with Horizontal(id="acting-controls"):
                yield Label("sandboxed")
                yield Switch(value=self.sandboxed, id="acting-sandboxed")
                yield Button("Use", id="acting-use", variant="primary", compact=True)
            yield Static("", id="acting-describe")

    def on_mount(self) -> None:
        self._fill("")
        self._describe()
        self.query_one("#acting-options", OptionList).focus()

    def _fill(self, search: str) -> None:
        options = self.query_one("#acting-options", OptionList)
        options.clear_options()
        main = self.engine.main_session_key()
        rows = [(main, "main")] + [(k, label) for k, label in self.engine.operator_sessions(search or None, 200)
                                   if k != main]
        for key, label in rows:
            shown = self.engine.display(key)
            text = literal(shown, style="bold") + span(f"  {label}" if label and label != shown else "", style="dim")
            options.add_option(Option(text, id=key))
        if search and not rows[1:] and (":" in search or search == "main"):
            options.add_option(Option(literal(f"use the key {search}"), id=self.engine.canonical(search)))

    @on(Input.Changed, "#acting-filter")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value.strip())

    @on(OptionList.OptionHighlighted)
    def _highlight(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id:
            self.choice = event.option.id
            # Start from what the agent's sandbox.mode says; the switch can force it on.
            self.query_one("#acting-sandboxed", Switch).value = self.engine.is_sandboxed(self.choice)
            self._describe()

    @on(Switch.Changed)
    def _switch(self, event: Switch.Changed) -> None:
        self.sandboxed = event.value
        self._describe()

    def _describe(self) -> None:
        self.query_one("#acting-describe", Static).update(
            literal(describe(self.engine, self.choice, self.sandboxed), style="italic"))

    @on(OptionList.OptionSelected)
    @on(Button.Pressed, "#acting-use")
    def _use(self, event: Any) -> None:
        self.dismiss((self.choice, self.sandboxed))

    def action_cancel(self) -> None:
        self.dismiss(None)
