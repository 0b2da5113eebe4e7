"""Text matched against a search: the table's filter, and the words a search hit marks.

`row_matches` is the session table's filter (`TEXT_PREFIX` searches message text); a hit's snippet
carries its matched words between `HIT_START` and `HIT_END`, which `marked_parts` splits out;
`wire_hit` is a hit as `sessions_search` answers it. `status_term` takes a `status:stuck` (or
`status:done,failed`) term out of the filter: the sessions in those live statuses.
"""

from __future__ import annotations

from sessions_tui.engine.search.matching import TEXT_PREFIX, row_matches
from sessions_tui.engine.sessions.live_status import LIVE_STATUSES, LiveStatus
from sessions_tui.engine.store.tables.text_index import HIT_END, HIT_START, marked_parts
from sessions_tui.tools.reading.sessions_search import wire_hit

__all__ = [
    "HIT_END",
    "HIT_START",
    "STATUS_PREFIX",
    "TEXT_PREFIX",
    "marked_parts",
    "row_matches",
    "status_term",
    "wire_hit",
]

STATUS_PREFIX = "status:"


def status_term(search: str) -> tuple[str, frozenset[LiveStatus] | None]:
    """The filter without its `status:` term, and the statuses the term names (None: no term, or
    none named yet). Each comma-separated word names the statuses it begins (`status:st` is
    `stuck`, as it is typed); a word naming none is left out. A `~words` filter is all message
    text: it has no status term."""
    if search.startswith(TEXT_PREFIX):
        return search, None
    words = search.split()
    terms = [w for w in words if w.lower().startswith(STATUS_PREFIX)]
    if not terms:
        return search, None
    named = {
        status
        for term in terms
        for part in term[len(STATUS_PREFIX) :].lower().split(",")
        if part
        for status in LIVE_STATUSES
        if status.startswith(part)
    }
    rest = " ".join(w for w in words if w not in terms)
    return rest, frozenset(named) or None
