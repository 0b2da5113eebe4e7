"""Text sessions-tui did not write, made safe to print: for a terminal, or for a JSON reader.

Agent replies, session keys, labels and the paths and problems of an imported OpenClaw directory
can carry terminal control: OSC 52 writes the clipboard, OSC 0 retitles the window, CSI moves the
cursor. `visible` turns every control character into a symbol (ESC is `␛`, the other C0 controls
their Unicode control pictures, DEL `␡`, C1 controls and lone surrogates U+FFFD), the same in the
dashboard and on the command line. Nothing here imports Textual or Rich, so the CLI can use it.
"""

from __future__ import annotations

import json
import re
from typing import Any

_REPLACEMENT = "\ufffd"
_PICTURES = {c: chr(0x2400 + c) for c in range(0x20)}
_PICTURES[0x7F] = "\u2421"
_UNPRINTABLE = {c: _REPLACEMENT for c in [*range(0x80, 0xA0), *range(0xD800, 0xE000)]}
_LINE_TABLE = str.maketrans({**_PICTURES, **_UNPRINTABLE})
_TEXT_TABLE = str.maketrans({**{c: p for c, p in _PICTURES.items() if c not in (0x09, 0x0A)}, **_UNPRINTABLE})
# What `json.dumps(ensure_ascii=False)` leaves raw but a terminal or a JavaScript reader minds.
_JSON_RAW = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def visible(text: str) -> str:
    """Multi-line text with every control character but newline and tab made visible."""
    return text.translate(_TEXT_TABLE)


def visible_line(text: object) -> str:
    """One line of output: newlines and tabs are made visible too, so it stays one line."""
    return (text if isinstance(text, str) else str(text)).translate(_LINE_TABLE)


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


# In JSON lines written by others, what a terminal minds: every control but newline and tab.
_LINES_RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def json_lines_for_terminal(text: str) -> str:
    """JSON lines stored verbatim (an export's transcript), for a terminal: each control character
    but newline and tab as a `\\uXXXX` escape. A line with no control between its tokens (as
    OpenClaw and sessions-tui write them) parses to the same value: inside a JSON string a C0
    control can only be escaped already, and a raw C1, DEL or U+2028/U+2029 means the same escaped."""
    return _LINES_RAW.sub(_escape, text)


def json_text(value: Any, *, indent: int | None = 2) -> str:
    """JSON with non-ASCII text readable, but C0/C1 controls, DEL, U+2028/U+2029 and lone
    surrogates as `\\uXXXX` escapes: printable anywhere, and the same value when parsed."""
    return _JSON_RAW.sub(_escape, json.dumps(value, indent=indent, ensure_ascii=False))
