"""The keys that move the focus (tab, shift+tab), carried out as they arrive, so the keys after
them go to the widget they focused (issue 28 item 7).

Textual forwards each key to the widget focused when the app reads it from its queue; a key that
widget does not take travels up to the app, and only there are its non-priority bindings run. In
a burst (a paste, a terminal macro: `abc`, tab, `xyz`) the app has forwarded `xyz` to the old
widget long before the tab's trip ends, so they landed in the wrong field. A focus key the focused
widget does not take is therefore resolved by the app at once, through the same bindings (the
focused widget's first, then its parents', the screen's, the app's), and is not forwarded. The
actions it runs must focus at once too (`Screen.set_focus`, not `Widget.focus`, which is deferred
by `call_later` behind the keys already queued).

Only focus keys: resolving other keys early could run an action (enter: submit) before the keys
forwarded ahead of it were typed into their field.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import App

FOCUS_KEYS = frozenset({"tab", "shift+tab"})


async def move_focus_now(app: App[Any], event: events.Key) -> bool:
    """Carry out `event` now if it is a focus key the focused widget does not take; whether it did
    (then the event is done: not forwarded)."""
    if event.is_forwarded or event.key not in FOCUS_KEYS:
        return False
    focused = app.focused
    if focused is not None and focused.check_consume_key(event.key, event.character):
        return False
    # The order Textual's own dispatch keeps: the priority bindings, then the focused chain's.
    return await app._check_bindings(event.key, priority=True) or await app._check_bindings(event.key)
