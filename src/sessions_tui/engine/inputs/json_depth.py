"""How deep JSON may nest: one limit for tool arguments, checked on values and on JSON text.

A real tool's arguments are a few levels deep. Python's `json` parses by recursion, so text
nested a few thousand levels deep raises `RecursionError` instead of parsing, and a parsed value
hundreds of levels deep makes every recursive walk after it (redaction, the store's writer) a
hazard. Values are checked by `tools.calling.base.checked_arguments`; text a model sends as a tool call's
arguments is checked here first, by a scan that never recurses, so it is refused with the same
error whether or not it could be parsed.
"""

from __future__ import annotations

import json
import re
from functools import cache

from sessions_tui.engine.inputs.surrogates import scrub_text

__all__ = ["MAX_JSON_DEPTH", "nesting_error", "too_deep_text"]

# Arrays and objects nested deeper than this are refused (the outermost one is level 1).
MAX_JSON_DEPTH = 64


# A JSON string (escapes included) or a bracket: everything the scan needs to see.
@cache
def _token_re() -> re.Pattern[str]:
    return re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)


def nesting_error(name: str) -> str:
    """The error for arguments nested too deeply under the top-level parameter `name` ("" for none)."""
    where = f"parameter {scrub_text(name)[:64]!r}" if name else "arguments"
    return f"{where} nested more than {MAX_JSON_DEPTH} levels deep"


def too_deep_text(text: str) -> str | None:
    """`nesting_error(...)` when JSON `text` nests arrays or objects more than `MAX_JSON_DEPTH`
    levels deep, else None. Text that is not valid JSON is scanned all the same (its brackets
    outside strings count), so a truncated or unbalanced text that opens too deep is refused too."""
    depth = 0
    outer_is_object = False
    last_string = ""  # the last string seen at level 1: the key of the value that opens next
    for token in _token_re().finditer(text):
        kind = token.group()
        if kind in ("[", "{"):
            depth += 1
            if depth == 1:
                outer_is_object = kind == "{"
            elif depth > MAX_JSON_DEPTH:
                return nesting_error(_parameter(last_string) if outer_is_object else "")
        elif kind in ("]", "}"):
            depth = max(0, depth - 1)
        elif depth == 1:
            last_string = kind
    return None


def _parameter(token: str) -> str:
    try:
        name = json.loads(token)
    except ValueError:
        return token[1:-1]
    return name if isinstance(name, str) else ""
