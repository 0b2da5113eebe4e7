"""Sensitive-text redaction (REFERENCE §7, REF `src/logging/redact.ts`).

Patterns are JavaScript regex sources (the defaults below, or `logging.redactPatterns`). They are
translated to Python `re` so that they match what the JavaScript engine would match: `\\b`, `\\w`
and `\\d` are ASCII-only (compiled with `re.ASCII`), `\\s` is JavaScript's Unicode whitespace set,
`.` stops at every JavaScript line terminator and `$` means end of input unless the `m` flag is
set.
Lengths are counted in UTF-16 code units, as JavaScript's `String.length` does.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

REDACT_MIN_LENGTH = 18
REDACT_KEEP_START = 6
REDACT_KEEP_END = 4
REDACT_CHUNK_THRESHOLD = 32768
REDACT_CHUNK_SIZE = 16384
MASK = "***"

DEFAULT_REDACT_PATTERNS: tuple[str, ...] = (
    # 1 ENV-style assignment
    r"""\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)\b\s*[=:]\s*(["']?)([^\s"'\\]+)\1""",
    # 2 JSON fields
    r'''"(?:apiKey|token|secret|password|passwd|accessToken|refreshToken)"\s*:\s*"([^"]+)"''',
    # 3 CLI flags
    r"""--(?:api[-_]?key|hook[-_]?token|token|secret|password|passwd)\s+(["']?)([^\s"']+)\1""",
    # 4 Authorization header
    r"Authorization\s*[:=]\s*Bearer\s+([A-Za-z0-9._\-+=]+)",
    # 5 bare Bearer
    r"\bBearer\s+([A-Za-z0-9._\-+=]{18,})\b",
    # 6 PEM private key
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----",
    # 7-15 well-known token prefixes
    r"\b(sk-[A-Za-z0-9_-]{8,})\b",
    r"\b(ghp_[A-Za-z0-9]{20,})\b",
    r"\b(github_pat_[A-Za-z0-9_]{20,})\b",
    r"\b(xox[baprs]-[A-Za-z0-9-]{10,})\b",
    r"\b(xapp-[A-Za-z0-9-]{10,})\b",
    r"\b(gsk_[A-Za-z0-9_-]{10,})\b",
    r"\b(AIza[0-9A-Za-z\-_]{20,})\b",
    r"\b(pplx-[A-Za-z0-9_-]{10,})\b",
    r"\b(npm_[A-Za-z0-9]{10,})\b",
    # 16 Telegram bot URL, 17 Telegram token
    r"\bbot(\d{6,}:[A-Za-z0-9_-]{20,})\b",
    r"\b(\d{6,}:[A-Za-z0-9_-]{20,})\b",
    # AWS access key ids and secret access keys (OpenClaw 2026.9.6 masks both)
    r"\b((?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)[A-Z0-9]{16})\b",
    r"(?<![A-Za-z0-9/+=_])((?=[A-Za-z0-9/+=]{0,39}[A-Z])(?=[A-Za-z0-9/+=]{0,39}[a-z])"
    r"(?=[A-Za-z0-9/+=]{0,39}[0-9/+=])(?=[A-Za-z0-9/+=]{0,39}[G-Zg-z/+=])[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=_])",
)

_SLASH_FORM_RE = re.compile(r"^/(.+)/([gimsuy]*)$", re.DOTALL)
_JS_WHITESPACE = (
    r"\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_LINE_TERMINATORS = r"\n\r\u2028\u2029"
_PEM_LINE_SPLIT_RE = re.compile(r"\r?\n")
_BRACE_QUANTIFIER_RE = re.compile(r"\{([0-9]+)(,([0-9]*))?\}\??")


def utf16_len(text: str) -> int:
    """`String.length` in JavaScript: characters outside the BMP count as two code units."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def truncate_utf16_safe(text: str, max_units: int) -> str:
    """REF `truncateUtf16Safe`: at most `max_units` UTF-16 units, never ending between the two
    halves of a surrogate pair (also when they are two lone surrogate code points)."""
    limit = max(0, max_units)
    if utf16_len(text) <= limit:
        return text
    if utf16_len(text) == len(text):
        cut = limit
    else:
        cut, taken = 0, 0
        for cut, char in enumerate(text):
            taken += 2 if ord(char) > 0xFFFF else 1
            if taken > limit:
                break
    if cut and _is_high_surrogate(text[cut - 1]) and _is_low_surrogate(text[cut]):
        cut -= 1
    return text[:cut]


def _is_high_surrogate(char: str) -> bool:
    return 0xD800 <= ord(char) <= 0xDBFF


def _is_low_surrogate(char: str) -> bool:
    return 0xDC00 <= ord(char) <= 0xDFFF


def _utf16_chunks(text: str, size: int) -> list[str]:
    """Consecutive chunks of `size` UTF-16 units; a cut inside a surrogate pair moves back one."""
    if utf16_len(text) == len(text):
        return [text[start : start + size] for start in range(0, len(text), size)]
    data = text.encode("utf-16-le", "surrogatepass")
    total = len(data) // 2
    chunks: list[str] = []
    start = 0
    while start < total:
        end = min(start + size, total)
        if end < total and _unit_in(data, end - 1, 0xD800) and _unit_in(data, end, 0xDC00):
            end -= 1
        chunks.append(data[2 * start : 2 * end].decode("utf-16-le", "surrogatepass"))
        start = end
    return chunks


def _unit_in(data: bytes, index: int, base: int) -> bool:
    """Whether UTF-16 unit `index` of `data` lies in the surrogate block starting at `base`."""
    return base <= int.from_bytes(data[2 * index : 2 * index + 2], "little") < base + 0x400


def mask_token(token: str) -> str:
    """REF `maskToken`: short tokens vanish, long ones keep 6 leading and 4 trailing units."""
    if utf16_len(token) < REDACT_MIN_LENGTH:
        return MASK
    head = truncate_utf16_safe(token, REDACT_KEEP_START)
    tail = truncate_utf16_safe(token[::-1], REDACT_KEEP_END)[::-1]
    return f"{head}…{tail}"


def _redact_pem_block(block: str) -> str:
    lines = [line for line in _PEM_LINE_SPLIT_RE.split(block) if line]
    if len(lines) < 2:
        return MASK
    return f"{lines[0]}\n…redacted…\n{lines[-1]}"


def _redact_match(match: re.Match[str]) -> str:
    """REF `redactMatch`: mask the last non-empty capture group, keeping the surrounding text."""
    whole = match.group(0)
    if "PRIVATE KEY-----" in whole:
        return _redact_pem_block(whole)
    token = next((group for group in reversed(match.groups()) if group), whole)
    masked = mask_token(token)
    if token == whole:
        return masked
    return whole.replace(token, masked, 1)


# --- safe-regex check (REF `src/security/safe-regex.ts`, ported as is)


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
            previous.max_len = (
                math.inf if high_repeat is None else _multiply(previous.max_len, high_repeat)
            )
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


def compile_js_pattern(raw: str) -> re.Pattern[str] | None:
    """REF `parsePattern`: `/body/flags` or a plain source (flags `gi`); None when empty,
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
        translated = _translate_js_regex(
            source, dotall="s" in flags, multiline="m" in flags, unicode="u" in flags
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return re.compile(translated, py_flags)
    except (re.error, ValueError, OverflowError):
        return None


class Redactor:
    """`redactSensitiveText` bound to one resolved `logging.redactSensitive`/`redactPatterns`.

    Patterns are compiled once; those that are empty, invalid or unsafe are dropped (listed in
    `dropped_patterns` for diagnostics). Custom patterns replace the defaults when non-empty.
    """

    def __init__(self, mode: str | None = None, patterns: Iterable[str] | None = None) -> None:
        self.mode = "off" if mode == "off" else "tools"
        sources = tuple(patterns or ()) or DEFAULT_REDACT_PATTERNS
        compiled: list[re.Pattern[str]] = []
        dropped: list[str] = []
        for raw in sources:
            pattern = compile_js_pattern(raw)
            if pattern is None:
                dropped.append(raw)
            else:
                compiled.append(pattern)
        self.patterns: tuple[re.Pattern[str], ...] = tuple(compiled)
        self.dropped_patterns: tuple[str, ...] = tuple(dropped)

    @property
    def enabled(self) -> bool:
        return self.mode != "off" and bool(self.patterns)

    def redact(self, text: str) -> str:
        """Apply every pattern in order, each to the previous pattern's output."""
        if not text or not self.enabled:
            return text
        for pattern in self.patterns:
            text = _replace_bounded(text, pattern)
        return text


def _replace_bounded(text: str, pattern: re.Pattern[str]) -> str:
    """Long inputs are redacted in independent chunks so one pattern cannot stall on them."""
    if utf16_len(text) <= REDACT_CHUNK_THRESHOLD:
        return pattern.sub(_redact_match, text)
    return "".join(
        pattern.sub(_redact_match, chunk) for chunk in _utf16_chunks(text, REDACT_CHUNK_SIZE)
    )


def redact_lines(lines: list[str], redactor: Redactor) -> list[str]:
    """REF `redactSensitiveLines`: redact the joined text so multi-line secrets are caught."""
    if not lines:
        return []
    return redactor.redact("\n".join(lines)).split("\n")


@lru_cache(maxsize=1)
def default_redactor() -> Redactor:
    """Mode `tools` with the default patterns, compiled once per process."""
    return Redactor()
