"""Dashboard test support: the scenes of scripts/scenes.py plus a few readers of what is shown."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from scenes import SIZE, StagedApp, demo_app, scene_app, select, settle, until  # noqa: E402,F401

from sessions_tui.ui.app import SessionsApp  # noqa: E402


def text_of(widget: Any) -> str:
    """The plain text a Static shows."""
    return str(widget.render())


def ordered_keys(app: SessionsApp) -> list[str]:
    """The displayed keys of the session table, top to bottom."""
    table = app.main_screen.query_one("#sessions")
    return [table.rows_by_key[row.key.value]["key"] for row in table.ordered_rows]
