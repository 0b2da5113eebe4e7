"""Filters of the session table: free text (`/`), kind toggles (each with its alt key), active minutes.

Two groups, the text and active filters and the kind toggles: side by side on a wide screen, one
above the other below 140 columns (app.tcss), so every toggle stays on screen from 80 columns.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.widgets import Checkbox, Input, Label, Select

from sessions_tui.backend.toolkit.keys import SESSION_KINDS
from sessions_tui.ui.widgets.field import Field

ACTIVE_CHOICES = [("any time", 0), ("5 min", 5), ("15 min", 15), ("60 min", 60), ("1 day", 1440), ("7 days", 10080)]


class KindToggle(Checkbox):
    """An on/off toggle for one session kind: on is a filled `● kind` chip, off a dim struck `○ kind`.

    The mark says it without colour too; app.tcss styles `-on` (filled, bold) and off (dim, strike).
    """

    def render(self) -> Content:
        return Content(("● " if self.value else "○ ") + self.label.plain)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return 2 + self.label.cell_length


class FilterBar(Horizontal):
    class Changed(Message):
        def __init__(self, search: str, kinds: list[str] | None, active_minutes: int) -> None:
            super().__init__()
            self.search = search
            self.kinds = kinds
            self.active_minutes = active_minutes

    def compose(self) -> ComposeResult:
        with Horizontal(id="filter-row"):
            yield Label(Content("[1] Filter"), classes="filter-label")  # pane 1 (screens/main/panes.py)
            yield Field(placeholder="/ by key, label… or ~words in messages", id="filter")
            yield Label("Active", classes="filter-label")
            yield Select(ACTIVE_CHOICES, value=0, allow_blank=False, id="active", compact=True)
        with Horizontal(id="kinds-row"):
            yield Label("Kinds", classes="filter-label")
            for kind in SESSION_KINDS:
                yield KindToggle(kind, value=True, id=f"kind-{kind}", classes="kind-toggle", compact=True)

    def state(self) -> tuple[str, list[str] | None, int]:
        search = self.query_one("#filter", Input).value.strip()
        kinds = [k for k in SESSION_KINDS if self.query_one(f"#kind-{k}", KindToggle).value]
        active = self.query_one("#active", Select).value
        return search, (None if len(kinds) == len(SESSION_KINDS) else kinds), active if isinstance(active, int) else 0

    def _changed(self) -> None:
        self.post_message(self.Changed(*self.state()))

    @on(Input.Changed, "#filter")
    def _search(self, event: Input.Changed) -> None:
        event.stop()
        self._changed()

    @on(Checkbox.Changed)
    def _kind(self, event: Checkbox.Changed) -> None:
        event.stop()
        self._changed()

    @on(Select.Changed, "#active")
    def _active(self, event: Select.Changed) -> None:
        event.stop()
        self._changed()

    def toggle_kind(self, kind: str) -> bool:
        """Turn the toggle of `kind` over (its key: main_keys.KIND_KEYS); returns whether it is on now."""
        toggle = self.query_one(f"#kind-{kind}", KindToggle)
        toggle.value = not toggle.value
        return toggle.value

    def clear(self) -> bool:
        """Clear the text filter; returns whether there was anything to clear."""
        box = self.query_one("#filter", Input)
        if not box.value:
            return False
        box.value = ""
        return True
