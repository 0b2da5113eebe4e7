"""JSON that comes in from outside (a command's ARGS_JSON, an HTTP body), parsed as JSON is
written: `NaN`, `Infinity` and `-Infinity`, which Python's `json` takes by default, are not JSON
and are refused, as JavaScript's `JSON.parse` (and so OpenClaw's gateway) refuses them.

An HTTP body is read as text first, as the gateway reads one: bytes that are not UTF-8 each become
U+FFFD, and so does every lone surrogate a `\\ud800` escape spells (`loads_body`), so no route
holds text that SQLite, a file or the answer's encoder cannot take.
"""

from __future__ import annotations

import json
from typing import Any

from sessions_tui.engine.inputs.surrogates import loads

__all__ = ["NotJsonNumber", "json_problem", "loads_body", "loads_json"]


class NotJsonNumber(ValueError):
    """`NaN`, `Infinity` or `-Infinity` in the text: JSON numbers are finite."""

    def __init__(self, word: str) -> None:
        super().__init__(f"{word} is not a JSON number")


def _refuse(word: str) -> Any:
    raise NotJsonNumber(word)


def loads_json(text: str | bytes) -> Any:
    """`json.loads`, but `NotJsonNumber` for a non-finite number. Other failures are `json.loads`'s:
    `json.JSONDecodeError`, `ValueError` for an integer of more than 4300 digits, `RecursionError`
    for text nested too deeply."""
    return json.loads(text, parse_constant=_refuse)


def loads_body(raw: bytes, blank: Any = None) -> Any:
    """An HTTP body's JSON (`loads_json`, and its failures), read as text: bytes that are not UTF-8
    and lone surrogates are U+FFFD in every string; `blank` for a body of only whitespace. What
    `/tools/invoke` and every operator op read."""
    text = raw.decode("utf-8", errors="replace")
    return loads(text, loads_json) if text.strip() else blank


def json_problem(exc: Exception) -> str:
    """What `loads_json` found wrong, in a few words (with the line and column when it knows them)."""
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply"
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    if isinstance(exc, NotJsonNumber) or "integer string conversion" not in str(exc):
        return str(exc)
    return "JSON number too large"
