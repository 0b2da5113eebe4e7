"""`ConfigError`, and how pydantic's validation errors become its one-line message.

A config that cannot be used stops the start with one line naming the file and where it went
wrong (`<file>: agents.list[0].id: expected a string, got number`), in JSON's words rather than
Python's, with at most five problems listed (docs/decisions.md D14).
"""

import json
import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from pydantic import ValidationError

from sessions_tui.engine.config.model.rules import json_type, show_number

__all__ = ["ConfigError", "format_validation_error"]


class ConfigError(Exception):
    """A config file that cannot be used. `str(err)` is one line and names the file."""

    def __init__(self, message: str) -> None:
        message = " ".join(str(message).split("\n")).replace("\r", " ")
        super().__init__(message)
        self.message = message


_EXPECTED = {
    "int_type": "expected a number",
    "int_parsing": "expected a number",
    "int_from_float": "expected a number",
    "float_type": "expected a number",
    "bool_type": "expected a boolean",
    "bool_parsing": "expected a boolean",
    "string_type": "expected a string",
    "list_type": "expected an array",
    "tuple_type": "expected an array",
    "dict_type": "expected an object",
    "model_type": "expected an object",
    "model_attributes_type": "expected an object",
    "dataclass_type": "expected an object",
}


@cache
def _plain_segment_re() -> re.Pattern[str]:
    return re.compile(r"^[A-Za-z0-9_-]+$")


_MAX_REPORTED_ERRORS = 5


def _format_loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and _plain_segment_re().match(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(str(part))}]"
    return out or "(top level)"


def _describe_error(error: Mapping[str, Any]) -> str:
    kind = error.get("type", "")
    value = error.get("input")
    if kind == "missing":
        return "required"
    if kind == "literal_error":
        if isinstance(value, str):
            expected = (error.get("ctx") or {}).get("expected", "")
            return f"unknown value {json.dumps(value)} (expected {expected})"
        return f"expected a string, got {json_type(value)}"
    if kind in _EXPECTED:
        return f"{_EXPECTED[kind]}, got {json_type(value)}"
    if kind in ("model_ref_type", "finite_number"):
        got = show_number(value) if isinstance(value, float) else json_type(value)
        return f"{error.get('msg')}, got {got}"
    message = str(error.get("msg", "invalid value"))
    return message[:1].lower() + message[1:]


def format_validation_error(source: str, err: ValidationError, redact: Callable[[str], str] = str) -> str:
    """`<source>: <key.path>: <why>; …`: the distinct problems, the first five of them. The path
    (a name may be a pasted token) and the why (it may repeat a value) are each redacted apart."""
    parts: list[str] = []
    for error in err.errors(include_url=False):
        text = f"{redact(_format_loc(tuple(error.get('loc', ()))))}: {redact(_describe_error(error))}"
        if text not in parts:
            parts.append(text)
    shown = parts[:_MAX_REPORTED_ERRORS]
    if len(parts) > len(shown):
        shown.append(f"and {len(parts) - len(shown)} more")
    return f"{source}: " + "; ".join(shown)
