"""How a listed row sorts by each of the table's sort names, for backends that sort rows themselves
(a gateway's listing, pages merged from several servers) rather than in the store."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sessions_tui.engine.sessions.entry import display_name

ROW_SORT: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "updated": lambda r: r.get("updatedAt") or 0,
    "key": lambda r: str(r.get("key") or ""),
    "label": display_name,
    "model": lambda r: str(r.get("model") or ""),
    "tokens": lambda r: r.get("totalTokens") or 0,
    "status": lambda r: str(r.get("status") or ""),
    "channel": lambda r: str(r.get("channel") or ""),
    "kind": lambda r: str(r.get("kind") or ""),
}


def row_sort_key(order_by: str) -> Callable[[Mapping[str, Any]], Any]:
    """The sort key of a sort name (an unknown one sorts by time, as the store does)."""
    return ROW_SORT.get(order_by, ROW_SORT["updated"])
