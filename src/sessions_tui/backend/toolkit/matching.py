"""Text matched against a search: the table's filter, and the words a search hit marks.

`row_matches` is the session table's filter (`TEXT_PREFIX` searches message text); a hit's snippet
carries its matched words between `HIT_START` and `HIT_END`, which `marked_parts` splits out;
`wire_hit` is a hit as `sessions_search` answers it.
"""

from __future__ import annotations

from sessions_tui.engine.search.matching import TEXT_PREFIX, row_matches
from sessions_tui.engine.store.tables.text_index import HIT_END, HIT_START, marked_parts
from sessions_tui.tools.sessions_search import wire_hit

__all__ = ["HIT_END", "HIT_START", "TEXT_PREFIX", "marked_parts", "row_matches", "wire_hit"]
