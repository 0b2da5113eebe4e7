"""The accessors over the rows the faces read: what a session is called (`display_name`) and what
counts as a number in a row (`is_number`). The row types themselves (`ListedRow`, `BrowseRow`)
are among the reads' views (views.py).
"""

from __future__ import annotations

from sessions_tui.engine.sessions.entry import display_name, is_number

__all__ = ["display_name", "is_number"]
