"""Custom redaction patterns (`logging.redactPatterns`) as OpenClaw reads them: JavaScript regex
sources, checked for ReDoS-prone shapes and translated to Python `re`.

The translation keeps JavaScript's semantics: `\\b`, `\\w` and `\\d` are ASCII-only (compiled
with `re.ASCII`), `\\s` is JavaScript's Unicode whitespace set, `.` stops at every JavaScript line
terminator and `$` means end of input unless the `m` flag is set.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

from sessions_tui.engine.sessions.keys import JS_WHITESPACE

_SLASH_FORM_RE = re.compile(r"^/(.+)/([gimsuy]*)$", re.DOTALL)
_JS_WHITESPACE = JS_WHITESPACE  # literal characters: none of them means anything inside a class
_JS_LINE_TERMINATORS = r"\n\r\u2028\u2029"
_BRACE_QUANTIFIER_RE = re.compile(r"\{([0-9]+)(,([0-9]*))?\}\??")


# --- safe-regex check (OpenClaw's `src/security/safe-regex.ts`, ported as is)


@dataclass
class _Token:
    contains_repetition: bool
    ambiguous_alternation: bool
    min_len: float
    max_len: float


@dataclass
class _Frame:
    last: _Token | None = None
    contains_repetition: bool = False
    has_alternation: bool = False
    branch_min: float = 0.0
    branch_max: float = 0.0
    alt_min: float | None = None
    alt_max: float | None = None

    def record_alternative(self) -> None:
        if self.alt_min is None or self.alt_max is None:
            self.alt_min, self.alt_max = self.branch_min, self.branch_max
        else:
            self.alt_min = min(self.alt_min, self.branch_min)
            self.alt_max = max(self.alt_max, self.branch_max)


def _read_quantifier(source: str, index: int) -> tuple[int, int, int | None] | None:
    """(characters consumed, min repeat, max repeat or None) of a quantifier at `index`."""
    char = source[index]
    consumed = 2 if source[index + 1 : index + 2] == "?" else 1
    if char == "*":
        return consumed, 0, None
    if char == "+":
        return consumed, 1, None
    if char == "?":
        return consumed, 0, 1
    if char != "{":
        return None
    match = _BRACE_QUANTIFIER_RE.match(source, index)
    if not match:
        return None
    low = int(match.group(1))
    high: int | None = low
    if match.group(2):
        high = int(match.group(3)) if match.group(3) else None
    if high is not None and high < low:
        return None
    return match.end() - index, low, high


def _tokenize(source: str) -> Iterator[tuple[str, tuple[int, int, int | None] | None]]:
    in_class = False
    index = 0
    while index < len(source):
        char = source[index]
        if char == "\\":
            index += 2
            yield "simple", None
            continue
        if in_class:
            in_class = char != "]"
            index += 1
            continue
        if char == "[":
            in_class = True
            yield "simple", None
        elif char in "()|":
            yield {"(": "open", ")": "close", "|": "alt"}[char], None
        else:
            quantifier = _read_quantifier(source, index)
            if quantifier:
                yield "quantifier", quantifier
                index += quantifier[0]
                continue
            yield "simple", None
        index += 1


def _add(left: float, right: float) -> float:
    return left + right if math.isfinite(left) and math.isfinite(right) else math.inf


def _multiply(length: float, factor: int) -> float:
    if not math.isfinite(length):
        return 0.0 if factor == 0 else math.inf
    return length * factor


def has_nested_repetition(source: str) -> bool:
    """True for ReDoS-prone shapes: a quantifier applied to something that already repeats
    (`(a+)+`, `(a*)*`, `(\\w+\\s?)+`), or an unbounded one applied to an alternation whose
    branches differ in length."""
    frames = [_Frame()]

    def emit(token: _Token) -> None:
        frame = frames[-1]
        frame.last = token
        frame.contains_repetition = frame.contains_repetition or token.contains_repetition
        frame.branch_min = _add(frame.branch_min, token.min_len)
        frame.branch_max = _add(frame.branch_max, token.max_len)

    for kind, quantifier in _tokenize(source):
        if kind == "simple":
            emit(_Token(False, False, 1, 1))
        elif kind == "open":
            frames.append(_Frame())
        elif kind == "close":
            if len(frames) > 1:
                frame = frames.pop()
                if frame.has_alternation:
                    frame.record_alternative()
                    low, high = frame.alt_min or 0.0, frame.alt_max or 0.0
                else:
                    low, high = frame.branch_min, frame.branch_max
                emit(
                    _Token(
                        frame.contains_repetition,
                        frame.has_alternation and frame.alt_min != frame.alt_max,
                        low,
                        high,
                    )
                )
        elif kind == "alt":
            frame = frames[-1]
            frame.has_alternation = True
            frame.record_alternative()
            frame.branch_min = frame.branch_max = 0.0
            frame.last = None
        else:
            assert quantifier is not None
            _, low_repeat, high_repeat = quantifier
            frame = frames[-1]
            previous = frame.last
            if previous is None:
                continue
            if previous.contains_repetition:
                return True
            if previous.ambiguous_alternation and high_repeat is None:
                return True
            previous_min, previous_max = previous.min_len, previous.max_len
            previous.min_len = _multiply(previous.min_len, low_repeat)
            previous.max_len = math.inf if high_repeat is None else _multiply(previous.max_len, high_repeat)
            previous.contains_repetition = True
            frame.contains_repetition = True
            frame.branch_min = frame.branch_min - previous_min + previous.min_len
            base = (
                frame.branch_max - previous_max
                if math.isfinite(frame.branch_max) and math.isfinite(previous_max)
                else math.inf
            )
            frame.branch_max = _add(base, previous.max_len)
    return False


# --- JavaScript -> Python regex translation


def _translate_js_regex(source: str, *, dotall: bool, multiline: bool, unicode: bool) -> str:
    """Rewrite the JavaScript-only or differently-behaving syntax of `source` for `re`."""
    out: list[str] = []
    in_class = False
    index = 0
    while index < len(source):
        char = source[index]
        if char == "\\" and index + 1 < len(source):
            escaped = source[index + 1]
            index += 2
            if escaped == "s":
                out.append(_JS_WHITESPACE if in_class else f"[{_JS_WHITESPACE}]")
            elif escaped == "S" and not in_class:
                out.append(f"[^{_JS_WHITESPACE}]")
            elif escaped == "/":
                out.append("/")
            elif escaped == "k" and not in_class and source.startswith("<", index):
                end = source.index(">", index)
                out.append(f"(?P={source[index + 1 : end]})")
                index = end + 1
            elif escaped == "u" and unicode and source.startswith("{", index):
                end = source.index("}", index)
                out.append(f"\\U{int(source[index + 1 : end], 16):08x}")
                index = end + 1
            else:
                out.append(char + escaped)
            continue
        if in_class:
            in_class = char != "]"
            out.append("\\[" if char == "[" else char)
        elif source.startswith("[^]", index):
            out.append(r"[\s\S]")
            index += 2
        elif source.startswith("[]", index):
            out.append("(?!)")
            index += 1
        elif char == "[":
            in_class = True
            out.append(char)
        elif char == "." and not dotall:
            out.append(f"[^{_JS_LINE_TERMINATORS}]")
        elif char == "$":
            out.append(f"(?=[{_JS_LINE_TERMINATORS}]|\\Z)" if multiline else r"\Z")
        elif char == "^" and multiline:
            out.append(f"(?:\\A|(?<=[{_JS_LINE_TERMINATORS}]))")
        elif source.startswith("(?<", index) and source[index + 3 : index + 4] not in ("=", "!"):
            out.append("(?P<")
            index += 2
        else:
            out.append(char)
        index += 1
    return "".join(out)


def pattern_problem(raw: str) -> str | None:
    """Why a `logging.redactPatterns` entry cannot be used (None when it can)."""
    if not isinstance(raw, str) or not raw.strip():
        return "empty"
    slash_form = _SLASH_FORM_RE.match(raw)
    source = (slash_form.group(1) if slash_form else raw).strip()
    if not source:
        return "empty"
    if has_nested_repetition(source):
        return "unsafe (nested repetition can take exponential time)"
    if compile_js_pattern(raw) is None:
        return "not a valid regular expression"
    return None


def compile_js_pattern(raw: str) -> re.Pattern[str] | None:
    """OpenClaw's `parsePattern`: `/body/flags` or a plain source (flags `gi`); None when empty,
    invalid or unsafe."""
    if not raw.strip():
        return None
    slash_form = _SLASH_FORM_RE.match(raw)
    source, flags = (slash_form.group(1), slash_form.group(2)) if slash_form else (raw, "gi")
    source = source.strip()
    if not source or has_nested_repetition(source):
        return None
    py_flags = re.ASCII
    if "i" in flags:
        py_flags |= re.IGNORECASE
    if "s" in flags:
        py_flags |= re.DOTALL
    try:
        translated = _translate_js_regex(source, dotall="s" in flags, multiline="m" in flags, unicode="u" in flags)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return re.compile(translated, py_flags)
    except (re.error, ValueError, OverflowError):
        return None
