"""Dashboard test support: the scenes of scenes.py plus a few readers of what is shown."""

from __future__ import annotations

from typing import Any

from scenes import SIZE, StagedApp, demo_app, scene_app, select, settle, until  # noqa: F401
from sessions_tui.ui.app import SessionsApp


def text_of(widget: Any) -> str:
    """The plain text a Static shows."""
    return str(widget.render())


def ordered_keys(app: SessionsApp) -> list[str]:
    """The displayed keys of the session table, top to bottom."""
    table = app.main_screen.query_one("#sessions")
    return [table.rows_by_key[row.key.value]["key"] for row in table.ordered_rows]
