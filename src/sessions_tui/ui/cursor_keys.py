"""`j k g G home end` on the focused table, for every screen with one (the main screen, Search):
its cursor moves; on anything else the key goes on to it."""

from __future__ import annotations

from textual.actions import SkipAction
from textual.widget import Widget
from textual.widgets import DataTable


def move_cursor(focused: Widget | None, where: str) -> None:
    """`j k g G home end`: move the focused table's cursor down, up, to the top or the bottom;
    anything else keeps its own keys (SkipAction: the key goes on to it)."""
    if not isinstance(focused, DataTable) or focused.cursor_type != "row":
        raise SkipAction()
    if where == "down":
        focused.action_cursor_down()
    elif where == "up":
        focused.action_cursor_up()
    elif where == "top":
        focused.action_scroll_top()
    else:
        focused.action_scroll_bottom()
