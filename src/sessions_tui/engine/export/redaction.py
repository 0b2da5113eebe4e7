"""Redacting a transcript line or entry for export, keeping it the same JSON shape.

Every string of a line goes through the redactor (keys too), tool-call `arguments` as agent data
(a value under a secret-looking field name masked whole); the line's own `type`, `id`, `parentId`
and `timestamp` stay, so the transcript's order and its parent chain survive. A line the
redaction leaves alone is kept byte for byte; redacting a redacted line changes nothing, so an
export imported and exported again is the same bytes.
"""

from __future__ import annotations

import json
from typing import Any

from sessions_tui.engine.redaction.redact import Redactor
from sessions_tui.engine.store.codec import exact_dumps

_KEPT_FIELDS = ("type", "id", "parentId", "timestamp")


def _redact_value(value: Any, redactor: Redactor) -> Any:
    if isinstance(value, str):
        return redactor.redact(value)
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for name, item in value.items():
            field = redactor.redact(name) if isinstance(name, str) else name
            out[field] = redactor.redact_fields(item) if name == "arguments" else _redact_value(item, redactor)
        return out
    if isinstance(value, list):
        return [_redact_value(item, redactor) for item in value]
    return value


def redact_line(text: str, redactor: Redactor) -> str:
    """One stored line with its strings redacted; the line itself when nothing changed."""
    try:
        line = json.loads(text)
    except (ValueError, RecursionError):
        return redactor.redact(text)  # not JSON: redacted as text
    if isinstance(line, dict):
        redacted: Any = {
            k: v if k in _KEPT_FIELDS and not isinstance(v, (dict, list)) else _redact_value(v, redactor)
            for k, v in line.items()
        }
    else:
        redacted = _redact_value(line, redactor)
    return text if redacted == line else exact_dumps(redacted)


def redact_entry(entry: dict[str, Any], redactor: Redactor) -> dict[str, Any]:
    """A session entry with every string redacted but its `sessionId`."""
    return {k: v if k == "sessionId" else _redact_value(v, redactor) for k, v in entry.items()}
