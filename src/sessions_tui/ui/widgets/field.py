"""A text field that stops blinking when the app asks for a steady screen (screenshots, snapshots)."""

from __future__ import annotations

from textual.widgets import Input


class Field(Input):
    def on_mount(self) -> None:
        if getattr(self.app, "steady", False):
            self.cursor_blink = False
