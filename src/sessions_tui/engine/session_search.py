"""What a text filter over sessions matches, said once: the table's filter, the acting-as picker
and the live rows the dashboard merges all match the same fields, case-insensitively, as a
substring — the key, the label, the display name, the session id and the channel."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SEARCH_COLUMNS = ("key", "label", "display_name", "session_id", "channel")
"""The sessions table's columns a filter searches."""

ROW_FIELDS = ("_key", "label", "displayName", "sessionId", "channel")
"""The same fields as a browsed row names them (`_key`: the stored key; `key` is as shown)."""


def search_sql(needle: str) -> tuple[str, list[str]]:
    """A WHERE condition matching `needle` in any searched column, and its arguments."""
    condition = " OR ".join(f"instr(lower(coalesce({column}, '')), ?)" for column in SEARCH_COLUMNS)
    return f"({condition})", [needle.lower()] * len(SEARCH_COLUMNS)


def row_matches(row: Mapping[str, Any], needle: str) -> bool:
    """Whether a listed row matches `needle` as the store's search would."""
    lowered = needle.lower()
    return any(lowered in str(row.get(field) or "").lower() for field in ROW_FIELDS)
