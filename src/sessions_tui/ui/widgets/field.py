"""A text field that stops blinking when the app asks for a steady screen (screenshots, snapshots)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from textual.widgets import Input

# Keys Textual names without giving their character (`key_to_character("slash")` is None), so a
# binding on them was not seen as typed into the field: the footer offered "/ filter" in a field.
_CHARACTERS = {"slash": "/"}


@runtime_checkable
class Steady(Protocol):
    """An app that may ask for a steady screen (the dashboard's `steady`)."""

    steady: bool


class Field(Input):
    def check_consume_key(self, key: str, character: str | None) -> bool:
        return super().check_consume_key(key, character or _CHARACTERS.get(key))

    def on_mount(self) -> None:
        if isinstance(self.app, Steady) and self.app.steady:
            self.cursor_blink = False
