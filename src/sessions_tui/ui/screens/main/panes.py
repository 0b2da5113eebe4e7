"""The main screen's panes as lazygit numbers them: their titles, the jumps `1`–`4`, the cursor keys
`j k g G home end` on the focused table, and the layout modes `+` / `_` that give the transcript room.

Pane 1 is the filters, 2 the sessions, 3 the transcript (or the spawn panel's runs list while the
panel is open), 4 the composer; each title carries its number (`[2] Sessions`) and app.tcss
highlights the pane that holds the focus. The layout modes (app.tcss): normal, the side pane large
(`-side-large`: the transcript or spawn panel takes most of the body), the side pane full
(`-side-full`: the table and the filters make way).
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import ContentSwitcher

LAYOUTS = ("", "-side-large", "-side-full")
"""The layout modes in `+` order: each a class of the screen (none: normal)."""
TITLES = {"table-column": "[2] Sessions", "composer": "[4] Message"}
SIDE_TITLES = {"transcript": "[3] Transcript", "spawn": "[3] Spawn"}


def title_panes(screen: Screen[Any]) -> None:
    """The numbered border titles; the side pane's names what it shows."""
    for pane_id, title in TITLES.items():
        screen.query_one(f"#{pane_id}").border_title = title
    side = screen.query_one("#side", ContentSwitcher)
    side.border_title = SIDE_TITLES.get(side.current or "", "[3]")


def layout_mode(screen: Screen[Any]) -> int:
    """Which of `LAYOUTS` the screen is in."""
    return next((i for i, name in enumerate(LAYOUTS) if name and screen.has_class(name)), 0)


def set_layout(screen: Screen[Any], mode: int) -> int:
    """Put the screen in layout `mode` (clamped); the focus leaves what the mode hides. Returns it."""
    mode = max(0, min(mode, len(LAYOUTS) - 1))
    for index, name in enumerate(LAYOUTS):
        if name:
            screen.set_class(index == mode, name)
    focused = screen.focused
    hidden = ("table-column", "filter-bar")
    if mode == len(LAYOUTS) - 1 and focused is not None and any(n.id in hidden for n in focused.ancestors_with_self):
        pane_target(screen, 3).focus()
    return mode


def pane_target(screen: Screen[Any], number: int) -> Widget:
    """The widget pane `number` focuses: the filter input, the table, the transcript's messages
    or the spawn runs list, the composer's message."""
    if number == 3:
        side = screen.query_one("#side", ContentSwitcher)
        return screen.query_one("#spawn-runs" if side.current == "spawn" else "#messages")
    return screen.query_one({1: "#filter", 2: "#sessions", 4: "#message"}[number])


def focus_pane(screen: Screen[Any], number: int) -> str | None:
    """Focus pane `number`; a pane the full layout hides brings the normal one back. Returns why
    not when the pane is out of sight (the composer while the spawn panel has the body)."""
    if number in (1, 2) and layout_mode(screen) == len(LAYOUTS) - 1:
        set_layout(screen, 0)
    target = pane_target(screen, number)
    if not all(node.display for node in target.ancestors_with_self if isinstance(node, Widget)):
        return "that pane is hidden while the spawn panel has the screen (esc closes it)"
    target.focus()
    return None
