"""JSON that comes in from outside (a command's ARGS_JSON, an HTTP body), parsed as JSON is
written: `NaN`, `Infinity` and `-Infinity`, which Python's `json` takes by default, are not JSON
and are refused, as JavaScript's `JSON.parse` (and so OpenClaw's gateway) refuses them.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["NotJsonNumber", "json_problem", "loads_json"]


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


def json_problem(exc: Exception) -> str:
    """What `loads_json` found wrong, in a few words (with the line and column when it knows them)."""
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply"
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    if isinstance(exc, NotJsonNumber):
        return str(exc)
    return "JSON number too large"
