"""The footer with the keys that fit the screen: the essentials from 80 columns, more as it widens.

Textual's footer shows every binding marked `show` and cuts what does not fit at the right, so at
80 columns send, help and quit fell off. This one shows the keys of the widest tier the screen
reaches; every key stays in help (`?`) and the command palette (`ctrl+p`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from textual.app import ComposeResult
from textual.events import Resize
from textual.widget import Widget
from textual.widgets import Footer, Input
from textual.widgets._footer import FooterKey

NARROW = frozenset({"filter", "sort_prev", "sort_next", "send", "help", "quit"})
MEDIUM = NARROW | {"toggle_tools", "toggle_spawn", "acting_as"}
IN_FIELD_ONLY = frozenset({"step_back"})
"""Shown only while a text field has the focus: the keys it types are gone from the footer then."""
TIERS: tuple[tuple[int, frozenset[str] | None], ...] = ((0, NARROW), (100, MEDIUM), (140, None))
"""(from this many columns, the actions shown; None: every binding marked `show`)."""


@runtime_checkable
class FooterLabels(Protocol):
    """A screen whose footer words depend on where the focus is (the main screen's ctrl+s)."""

    def footer_labels(self) -> dict[str, str]:
        """action → the word the footer shows for it now."""
        ...


def shown_actions(width: int) -> frozenset[str] | None:
    """The actions the footer shows at `width` columns (None: all)."""
    chosen: frozenset[str] | None = NARROW
    for start, actions in TIERS:
        if width >= start:
            chosen = actions
    return chosen


class DashboardFooter(Footer):
    """A footer showing the bindings of the screen width's tier (the palette key always)."""

    def __init__(self) -> None:
        super().__init__()
        self._width = 0

    def compose(self) -> ComposeResult:
        self._width = self.app.size.width
        in_field = isinstance(self.app.focused, Input)
        labels = self.screen.footer_labels() if isinstance(self.screen, FooterLabels) else {}
        return self._filtered(super().compose(), shown_actions(self._width), in_field, labels)

    @staticmethod
    def _filtered(
        widgets: Iterable[Widget], actions: frozenset[str] | None, in_field: bool, labels: dict[str, str]
    ) -> ComposeResult:
        for widget in widgets:
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                if widget.action in IN_FIELD_ONLY and not in_field:
                    continue
                if actions is not None and widget.action not in actions | IN_FIELD_ONLY:
                    continue
                widget.description = labels.get(widget.action, widget.description)
            yield widget

    def on_resize(self, _: Resize) -> None:
        if shown_actions(self.app.size.width) != shown_actions(self._width):
            self.call_after_refresh(self.recompose)
