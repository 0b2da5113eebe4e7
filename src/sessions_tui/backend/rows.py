"""The rows the faces read, and the accessors over them: a `sessions_list` row (`ListedRow`), a
row of the dashboard's table (`BrowseRow`), what a session is called (`display_name`) and what
counts as a number in them (`is_number`).

The row types are `TypedDict`s (the rows stay the JSON the tools answer): a face imports them
for its annotations only, under `TYPE_CHECKING`, so it loads no tool to name them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sessions_tui.engine.sessions.entry import display_name, is_number

if TYPE_CHECKING:
    from sessions_tui.tools.browse import BrowseRow as BrowseRow
    from sessions_tui.tools.sessions_list import ListedRow as ListedRow

__all__ = ["BrowseRow", "ListedRow", "display_name", "is_number"]
