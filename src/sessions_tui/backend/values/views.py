"""What the reads of the seam answer, listed once: the table's pages, the spawn tree, search, why.

Browse queries, pages and rows (the session table), a `sessions_list` row, child and announce
views (the spawn tree), search hits and outcomes, explanations and their verdicts: the engine's and
the tools' types a backend's reads return. Loaded by the faces that read them, not by a `tool` call.
"""

from __future__ import annotations

from sessions_tui.engine.subagents.records import AnnouncementView, ChildView
from sessions_tui.tools.reading.browse import BrowsePage, BrowseQuery, BrowseRow
from sessions_tui.tools.reading.sessions_list import ListedRow
from sessions_tui.tools.reading.sessions_search import SearchHit, SearchOutcome
from sessions_tui.tools.requester.explain import Explanation, Verdict

__all__ = [
    "AnnouncementView",
    "BrowsePage",
    "BrowseQuery",
    "BrowseRow",
    "ChildView",
    "Explanation",
    "ListedRow",
    "SearchHit",
    "SearchOutcome",
    "Verdict",
]
