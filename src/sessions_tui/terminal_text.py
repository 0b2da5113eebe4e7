"""Text sessions-tui did not write, made safe to print: for a terminal, or for a JSON reader.

Agent replies, session keys, labels and the paths and problems of an imported OpenClaw directory
can carry terminal control: OSC 52 writes the clipboard, OSC 0 retitles the window, CSI moves the
cursor. They can also hide or reorder what a reader sees: U+202E turns the rest of a line around,
U+200B hides inside a key. `visible` turns every control character into a symbol (ESC is `␛`, the
other C0 controls their Unicode control pictures, DEL `␡`, C1 controls and lone surrogates U+FFFD)
and every invisible format character into its code point (`⟨U+202E⟩`), the same in the dashboard
and on the command line. Nothing here imports Textual or Rich, so the CLI can use it.

The format characters are Unicode's category Cf (bidi controls, zero-width characters, the BOM, the
soft hyphen, tag characters, ...) and the line and paragraph separators U+2028/U+2029. U+200D is
among them, so an emoji joined by it shows its parts. Variation selectors (category Mn) are not:
they only choose a glyph for the character before them, and U+FE0F follows most emoji.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

_REPLACEMENT = "\ufffd"
_PICTURES = {c: chr(0x2400 + c) for c in range(0x20)}
_PICTURES[0x7F] = "\u2421"
_UNPRINTABLE = {c: _REPLACEMENT for c in [*range(0x80, 0xA0), *range(0xD800, 0xE000)]}
# Unicode 15.1's category Cf, and Zl/Zp: first and last code point of each run.
_FORMAT_RUNS = (
    (0x00AD, 0x00AD),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)
FORMAT_CHARACTERS = frozenset(c for first, last in _FORMAT_RUNS for c in range(first, last + 1))
_FORMAT_CLASS = "".join(f"{chr(first)}-{chr(last)}" for first, last in _FORMAT_RUNS)
# What `json.dumps(ensure_ascii=False)` leaves raw but a terminal or a JavaScript reader minds.
_JSON_RAW = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff]")

# The translation tables (some 2,500 entries each) and the patterns of format characters are built
# when first used: most commands print one JSON result and nothing else.


@cache
def _line_table() -> dict[int, str]:
    return str.maketrans({**_PICTURES, **_UNPRINTABLE, **_code_points()})


@cache
def _text_table() -> dict[int, str]:
    return str.maketrans(
        {**{c: p for c, p in _PICTURES.items() if c not in (0x09, 0x0A)}, **_UNPRINTABLE, **_code_points()}
    )


def _code_points() -> dict[int, str]:
    return {c: f"\u27e8U+{c:04X}\u27e9" for c in FORMAT_CHARACTERS}


@cache
def _json_raw_terminal() -> re.Pattern[str]:
    """What `_JSON_RAW` finds and, for a terminal, what hides or reorders text."""
    return re.compile(f"[\x7f-\x9f\ud800-\udfff{_FORMAT_CLASS}]")


def visible(text: str) -> str:
    """Multi-line text with every control and format character but newline and tab made visible."""
    return text.translate(_text_table())


def visible_line(text: object) -> str:
    """One line of output: newlines and tabs are made visible too, so it stays one line."""
    return (text if isinstance(text, str) else str(text)).translate(_line_table())


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)  # JSON spells a code point past U+FFFF as a pair
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


@cache
def _lines_raw() -> re.Pattern[str]:
    """In JSON lines written by others, what a terminal minds: every control but newline and tab,
    and every format character."""
    return re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{_FORMAT_CLASS}]")


def json_lines_for_terminal(text: str) -> str:
    """JSON lines stored verbatim (an export's transcript), for a terminal: each control and format
    character but newline and tab as a `\\uXXXX` escape. A line with no control between its tokens
    (as OpenClaw and sessions-tui write them) parses to the same value: inside a JSON string a C0
    control can only be escaped already, and a raw C1, DEL or format character means the same
    escaped."""
    return _lines_raw().sub(_escape, text)


def json_text(value: Any, *, indent: int | None = 2, terminal: bool = False) -> str:
    """JSON with non-ASCII text readable, but C0/C1 controls, DEL, U+2028/U+2029 and lone
    surrogates as `\\uXXXX` escapes: printable anywhere, and the same value when parsed. For a
    `terminal`, every format character (U+202E, U+200B, ...) is escaped too."""
    raw = _json_raw_terminal() if terminal else _JSON_RAW
    return raw.sub(_escape, json.dumps(value, indent=indent, ensure_ascii=False))
