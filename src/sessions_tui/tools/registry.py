"""The tool surface: every tool by name, and one way to call it as a requester."""

from __future__ import annotations

from typing import Any

from sessions_tui.engine.surrogates import scrub_json
from sessions_tui.tools import (
    agents_list,
    sessions_history,
    sessions_list,
    sessions_search,
    sessions_send,
    sessions_spawn,
    subagents,
)
from sessions_tui.tools.base import ToolCall, ToolInputError, ToolSpec

TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        sessions_list.SPEC,
        sessions_history.SPEC,
        sessions_search.SPEC,
        sessions_send.SPEC,
        sessions_spawn.SPEC,
        agents_list.SPEC,
        subagents.SPEC,
    )
}


class UnknownToolError(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(f"Unknown tool: {name} (available: {', '.join(sorted(TOOLS))})")


async def invoke(call: ToolCall, name: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run one tool; raises `ToolInputError` for invalid arguments, `UnknownToolError`."""
    spec = TOOLS.get(name)
    if spec is None:
        raise UnknownToolError(name)
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ToolInputError("arguments must be a JSON object")
    result = await spec.run(call, params)
    # No secret leaves through a tool result (docs/decisions.md D16): whatever a tool put in it (a reply, a
    # label, an error text), every string is redacted once more on the way out. Nor does a lone
    # surrogate, which no UTF-8 output could carry: it becomes U+FFFD (engine/surrogates.py).
    redacted: dict[str, Any] = scrub_json(call.engine.redactor.redact_strings(result))
    return redacted
