"""Dashboard test support: the scenes of scripts/scenes.py plus a few readers of what is shown."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from scenes import SIZE, demo_app, scene_app, select, settle  # noqa: E402,F401

from sessions_tui.ui.app import SessionsApp  # noqa: E402


def text_of(widget: Any) -> str:
    """The plain text a Static shows."""
    return str(widget.render())


def ordered_keys(app: SessionsApp) -> list[str]:
    """The displayed keys of the session table, top to bottom."""
    table = app.main_screen.query_one("#sessions")
    return [table.rows_by_key[row.key.value]["key"] for row in table.ordered_rows]


async def until(pilot: Any, condition: Any, what: str, timeout: float = 20.0) -> None:
    """Wait for what the app shows to reach `condition` (a state, not a fixed delay): the app
    keeps processing meanwhile; fails after `timeout` seconds naming `what`."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.02)
