"""How the store writes JSON: compact, and never with a lone surrogate SQLite or a UTF-8 file would refuse."""

from __future__ import annotations

import json
from typing import Any

from sessions_tui.engine.inputs.surrogates import has_surrogates, scrub_text


def dumps(value: Any) -> str:
    """Compact JSON, always valid UTF-8: a lone surrogate is written as U+FFFD (engine/inputs/surrogates.py)."""
    return scrub_text(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def exact_dumps(value: Any) -> str:
    """Compact JSON keeping lone surrogates as ASCII escapes: a source's entry, compared on the next read."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(value, separators=(",", ":")) if has_surrogates(text) else text


def str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def int_or_zero(value: Any) -> int:
    return int(value) if value is not None else 0
