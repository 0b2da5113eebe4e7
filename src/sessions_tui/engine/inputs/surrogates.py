"""Lone UTF-16 surrogates never reach a file, SQLite or a terminal: they become U+FFFD.

JSON may spell a lone surrogate (`"\\ud800"`, which JavaScript's `JSON.stringify` writes for
one), and Python then holds it in a `str`. UTF-8 cannot encode it, so writing it to a transcript
mirror, binding it into SQLite or printing it raises. Text is therefore normalised where it
enters the store (`Store`'s JSON writer), where tool arguments enter (`tools.calling.registry.invoke`),
and, defensively, where stored JSON is read back and where a tool answers: every lone surrogate
becomes U+FFFD, while a well-formed pair spelled as two code points becomes the character it
encodes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

__all__ = ["REPLACEMENT_CHARACTER", "has_surrogates", "loads", "scrub_json", "scrub_text", "surrogate_re"]

REPLACEMENT_CHARACTER = "\ufffd"


@cache
def surrogate_re() -> re.Pattern[str]:
    return re.compile("[\ud800-\udfff]")


# A JSON `\uXXXX` escape of a surrogate code point (D800-DFFF), either case.
@cache
def _surrogate_escape_re() -> re.Pattern[str]:
    return re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


T = TypeVar("T")


def has_surrogates(text: str) -> bool:
    """Whether `text` holds surrogate code points (lone, or a pair spelled as two).

    Asked of every transcript line read, so the common answer comes first and in C: ASCII text has
    none, and text that encodes to UTF-8 has none (a surrogate code point cannot be encoded)."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return surrogate_re().search(text) is not None
    return False


def _spells_surrogate(text: str) -> bool:
    """Whether JSON text holds a `\\uD800`–`\\uDFFF` escape: one search by the expression,
    whose literal start is looked for by a fast scan (four times faster over a page of long
    transcript lines than two substring tests)."""
    return _surrogate_escape_re().search(text) is not None


def scrub_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD (pairs joined into their character)."""
    if not has_surrogates(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def scrub_json(value: T) -> T:
    """A JSON-shaped value with every string (keys included) scrubbed; the value itself if clean.

    Works on the compact JSON text, so it is as fast as `json.dumps` and never recurses in
    Python. A value `json` cannot write (too deep, not JSON-shaped) is returned unchanged.
    """
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return value
    if not has_surrogates(text):
        return value
    scrubbed: T = json.loads(scrub_text(text))
    return scrubbed


def loads(text: str, parse: Callable[[str], Any] = json.loads) -> Any:
    """`parse` (`json.loads`), then scrubbed when the text spells a surrogate (an escape or the
    code point)."""
    value = parse(text)
    if not _spells_surrogate(text) and not has_surrogates(text):
        return value
    return scrub_json(value)
