"""Redaction: no secret leaves through any output (docs/decisions.md D16).

`Redactor.redact` masks every secret kind OpenClaw 2026.9.6 masks (`redact_rules`), the exact
values of the secrets in sessions-tui's own config, and what `logging.redactPatterns` adds (the
built-in rules always stay on). Every rule looks at the original text; the spans they find are
merged and masked once, so no mask can hide a secret from another rule. `redact_strings` covers
every string of a structure (a tool result); `redact_fields` also masks whole values under
secret-looking field names (tool-call arguments and other agent data).

Masks: first 6 + `…` + last 4 UTF-16 units for long tokens, `***` for short ones and for some
fields, a private key keeps only its BEGIN and END lines. Lengths are counted in UTF-16 code
units, as JavaScript's `String.length` does.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Iterable
from functools import cache, cached_property, lru_cache
from typing import Any

from sessions_tui.engine.inputs.surrogates import scrub_text
from sessions_tui.engine.redaction.rules import (
    BUILT_IN_RULES,
    SCANNERS,
    Edit,
    Rule,
    Style,
    pem_begin_re,
    pem_edits,
    pem_end_re,
)

REDACT_MIN_LENGTH = 18
REDACT_KEEP_START = 6
REDACT_KEEP_END = 4
MASK = "***"
PEM_MASK = "…redacted…"
KNOWN_SECRET_MIN_LENGTH = 8
HIDDEN_TAIL_MARGIN = 64 * 1024
"""How far past the start of a private key that hides the rest of a text the other rules still look
(`Redactor.find`): a span they find that reaches into the key is clipped to before it."""


def utf16_len(text: str) -> int:
    """`String.length` in JavaScript: characters outside the BMP count as two code units."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def truncate_utf16_safe(text: str, max_units: int) -> str:
    """OpenClaw's `truncateUtf16Safe`: at most `max_units` UTF-16 units, never ending between the two
    halves of a surrogate pair (also when they are two lone surrogate code points)."""
    limit = max(0, max_units)
    if utf16_len(text) <= limit:
        return text
    if utf16_len(text) == len(text):
        cut = limit
    else:
        cut, taken = 0, 0
        for index, char in enumerate(text):
            cut = index
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


def mask_token(token: str) -> str:
    """OpenClaw's `maskToken`: short tokens vanish, long ones keep 6 leading and 4 trailing units."""
    if utf16_len(token) < REDACT_MIN_LENGTH:
        return MASK
    head = truncate_utf16_safe(token, REDACT_KEEP_START)
    tail = truncate_utf16_safe(token[::-1], REDACT_KEEP_END)[::-1]
    return f"{head}…{tail}"


_MASKS_RE = re.compile(r"…|\*\*\*")


def mask_parts(text: str) -> list[str] | None:
    """What a redacted text keeps around its masks (`xoxb-1…uvwx` → `xoxb-1`, `uvwx`), to find the
    text it was made from; None when it holds no mask."""
    if "…" not in text and MASK not in text:  # most texts, at the cost of two scans
        return None
    return _MASKS_RE.split(text)


_QUOTES = "\"'`"
_TRAILING_DELIMITERS_RE = re.compile(r"[\"'`,;)}\]]+$")


def _split_value(token: str) -> tuple[str, str, str]:
    """(opening quote, the secret, closing quote/delimiters): only the secret is masked."""
    prefix = token[0] if token[:1] in _QUOTES and len(token) > 1 else ""
    body = token[len(prefix) :]
    trailing = _TRAILING_DELIMITERS_RE.search(body)
    if trailing and trailing.start() > 0:
        return prefix, body[: trailing.start()], trailing.group()
    return prefix, body, ""


def _render(segment: str, style: Style) -> str:
    if style == "pem":  # a private key: its BEGIN and END markers stay, nothing between them
        begin = pem_begin_re().match(segment)
        ends = list(pem_end_re().finditer(segment))
        if begin is None:
            return MASK
        if not ends or ends[-1].end() != len(segment):  # no END line: everything after BEGIN goes
            return f"{begin.group()}\n{PEM_MASK}"
        if len([line for line in re.split(r"\r?\n", segment) if line]) < 2:
            return MASK
        return f"{begin.group()}\n{PEM_MASK}\n{ends[-1].group()}"
    prefix, body, suffix = _split_value(segment)
    return prefix + (mask_token(body) if style == "hint" else MASK) + suffix


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Mask the spans: private-key blocks first, the other spans clipped around them and merged
    where they overlap (`***` wins over a hint)."""
    pems = sorted((e for e in edits if e.style == "pem"), key=lambda e: e.start)
    starts = [e.start for e in pems]
    pieces: list[Edit] = []
    for edit in edits:
        if edit.style != "pem":
            pieces.extend(_outside(edit, pems, starts))
    pieces.sort(key=lambda e: (e.start, e.end))
    merged: list[Edit] = []
    for edit in pieces:
        if merged and edit.start < merged[-1].end:
            last = merged[-1]
            style: Style = "stars" if "stars" in (last.style, edit.style) else "hint"
            merged[-1] = Edit(last.start, max(last.end, edit.end), style)
        else:
            merged.append(edit)
    out: list[str] = []
    position = 0
    for edit in sorted(pems + merged, key=lambda e: e.start):
        out.append(text[position : edit.start])
        out.append(_render(text[edit.start : edit.end], edit.style))
        position = edit.end
    out.append(text[position:])
    return "".join(out)


def _outside(edit: Edit, pems: list[Edit], starts: list[int]) -> list[Edit]:
    """The parts of `edit` not inside a private-key block."""
    out: list[Edit] = []
    start = edit.start
    index = max(0, bisect.bisect_right(starts, edit.start) - 1)
    while index < len(pems) and pems[index].start < edit.end:
        pem = pems[index]
        if pem.end > start:
            if pem.start > start:
                out.append(Edit(start, pem.start, edit.style))
            start = max(start, pem.end)
        index += 1
    if start < edit.end:
        out.append(Edit(start, edit.end, edit.style))
    return out


MEMO_MAX_LENGTH = 64 * 1024
"""Texts up to this long have their redaction remembered."""

MEMO_CHARS = 4 * 1024 * 1024
"""The remembered texts hold at most this many characters (then the memory starts afresh)."""


class Redactor:
    """The redaction of one configuration: built-in rules, `logging.redactPatterns` (added to
    them) and the exact secret values the configuration holds.

    Custom patterns that are empty, invalid or unsafe are left out and listed, with why, in
    `pattern_problems` (the config warns about each). `mode` is kept for `logging.redactSensitive`,
    which no longer turns redaction off: OpenClaw 2026.9.6 redacts tool payloads regardless.
    """

    def __init__(
        self, mode: str | None = None, patterns: Iterable[str] | None = None, known_secrets: Iterable[str] = ()
    ) -> None:
        self.mode = mode or "tools"
        custom: list[Rule] = []
        problems: list[tuple[int, str, str]] = []
        own = list(patterns or ())
        if own:  # JavaScript's syntax, translated by js_patterns: loaded when a config has patterns of its own
            from sessions_tui.engine.redaction.js_patterns import compile_js_pattern, pattern_problem
        for index, raw in enumerate(own):
            why = pattern_problem(raw)
            compiled = None if why else compile_js_pattern(raw)
            if compiled is None:
                problems.append((index, raw, why or "invalid"))
            else:
                custom.append(Rule(f"logging.redactPatterns[{index}]", compiled, ()))
        self.rules: tuple[Rule, ...] = BUILT_IN_RULES + tuple(custom)
        self._anchors = tuple(sorted({anchor for rule in self.rules for anchor in rule.anchors}))
        self._rules_by_anchor: dict[str, tuple[int, ...]] = {
            anchor: tuple(i for i, rule in enumerate(self.rules) if anchor in rule.anchors) for anchor in self._anchors
        }
        self._unanchored = tuple(i for i, rule in enumerate(self.rules) if not rule.anchors)
        self.pattern_problems: tuple[tuple[int, str, str], ...] = tuple(problems)
        self.known_secrets = tuple(sorted({s for s in known_secrets if len(s) >= KNOWN_SECRET_MIN_LENGTH}))
        self._hidden_tail_margin = max(HIDDEN_TAIL_MARGIN, *map(len, self.known_secrets), 0)
        """How far past a key that hides the rest the rules look: the margin, or a longer known secret."""
        # Keys, labels and statuses come back in every listing, a transcript's messages in every
        # read of it: each text is redacted once (a redactor's rules are fixed, so is its answer).
        self._memo: dict[str, str] = {}
        self._memo_chars = 0

    @property
    def dropped_patterns(self) -> tuple[str, ...]:
        return tuple(raw for _, raw, _ in self.pattern_problems)

    @cached_property
    def fingerprint(self) -> str:
        """What the redaction depends on, as a digest: the search index (store/tables/text_index.py) is rebuilt
        when it changes. The known secrets enter only as one digest of them all, never readable back."""
        digest = hashlib.sha256()
        for rule in self.rules:
            source = rule.source if isinstance(rule.source, str) else f"{rule.source.pattern}/{rule.source.flags}"
            digest.update(f"{rule.name}\0{source}\0{rule.style}\0{rule.group}\n".encode("utf-8", "surrogatepass"))
        for secret in self.known_secrets:
            digest.update(hashlib.sha256(secret.encode("utf-8", "surrogatepass")).digest())
        return f"redact-1:{digest.hexdigest()[:32]}"

    def find(self, text: str) -> list[Edit]:
        """Every secret span in `text`, as the rules found them (overlaps included).

        A private key's BEGIN line with no END after it hides the rest of the text, whatever the
        rest says: the other rules and scanners look at the text before it, and `HIDDEN_TAIL_MARGIN`
        past its start (a span reaching into the key is clipped to before it by `apply_edits`, as it
        would be had they looked at all of it). Ten megabytes of BEGIN lines cost what their first
        lines do, not a scan of every rule over all of them."""
        pems = list(pem_edits(text))
        rest_hidden = next((edit.start for edit in pems if edit.end == len(text)), None)
        if rest_hidden is not None:
            text = text[: rest_hidden + self._hidden_tail_margin]
        lower = text.lower()
        # Each anchor looked for once; the rules to run are those of the anchors present (in rule order).
        chosen = set(self._unanchored)
        for anchor in self._anchors:
            if anchor in lower:
                chosen.update(self._rules_by_anchor[anchor])
        edits: list[Edit] = pems
        for index in sorted(chosen):
            edits.extend(self.rules[index].edits(text))
        for scan in SCANNERS:
            edits.extend(scan(text))
        for secret in self.known_secrets:
            at = text.find(secret)
            while at >= 0:
                edits.append(Edit(at, at + len(secret), "hint"))
                at = text.find(secret, at + len(secret))
        return edits

    @cached_property
    def streams_by_word(self) -> bool:
        """Whether a text's redaction, cut after its last whitespace, only grows as the text does,
        so a stream may be sent word by word (engine/redaction/stream.py): true of the built-in
        rules (the tests stream every kind of secret), not promised of custom patterns, which may
        look past a secret, nor of a known secret with whitespace in it."""
        custom = len(self.rules) > len(BUILT_IN_RULES)
        return not custom and not any(any(c.isspace() for c in known) for known in self.known_secrets)

    def redact_unremembered(self, text: str) -> str:
        """`redact`, for a text that will not come again (a stream's growing text, an old message
        indexed once): not remembered."""
        edits = self.find(text) if text else []
        return apply_edits(text, edits) if edits else text

    def redact(self, text: str) -> str:
        if not text:
            return text
        size = len(text)
        kept = size <= MEMO_MAX_LENGTH
        if kept:
            known = self._memo.get(text)
            if known is not None:
                return known
        out = self.redact_unremembered(text)
        if kept:
            if self._memo_chars + size > MEMO_CHARS:
                self._memo.clear()
                self._memo_chars = 0
            self._memo[text] = out
            self._memo_chars += size
        return out

    def redact_strings(self, value: Any, *, scrub: bool = False) -> Any:
        """Every string in a JSON-like structure (keys too), redacted; the rest as it was. With
        `scrub`, each string is also rid of lone surrogates in the same walk (a tool result: see
        engine/inputs/surrogates.py; ASCII text has none). (Every tool result goes through it: the
        walk asks the exact types of JSON first.)"""
        memo = self.redact

        def scrubbed(text: str) -> str:
            out = memo(text)
            return out if out.isascii() else scrub_text(out)

        redact = scrubbed if scrub else memo

        def walk(item: Any) -> Any:
            kind = type(item)
            if kind is str:
                return redact(item)
            if kind is dict:
                return {walk(k): walk(v) for k, v in item.items()}
            if kind is list or kind is tuple:
                return [walk(v) for v in item]
            if kind is int or kind is float or kind is bool or item is None:
                return item
            if isinstance(item, str):
                return redact(item)
            if isinstance(item, dict):
                return {walk(k): walk(v) for k, v in item.items()}
            if isinstance(item, (list, tuple)):
                return [walk(v) for v in item]
            return item

        return walk(value)

    def redact_fields(self, value: Any) -> Any:
        """Agent data (tool-call arguments…): as `redact_strings`, and a value under a
        secret-looking field name (`apiKey`, `password`, `DB_TOKEN`…) becomes `***` whole."""
        if isinstance(value, dict):
            out: dict[Any, Any] = {}
            for key, item in value.items():
                if isinstance(key, str) and is_secret_field(key) and _maskable_field_value(key, item):
                    out[self.redact(key)] = MASK
                else:
                    out[self.redact_strings(key)] = self.redact_fields(item)
            return out
        if isinstance(value, (list, tuple)):
            return [self.redact_fields(item) for item in value]
        return self.redact_strings(value)


@cache
def _secret_field_re() -> re.Pattern[str]:
    """The names of fields that hold secrets, compiled when a field is first asked about (the
    costliest of the module's patterns to compile)."""
    return re.compile(
        r"(?:api[-_]?key|api[-_]?token|bearer[-_]?token|token|secret|password|passwd|passphrase|"
        r"aws[-_]?secret[-_]?access[-_]?key|secret[-_]?access[-_]?key|credentials?|authorization|proxy[-_]?authorization|"
        r"private[-_]?key|access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|client[-_]?secret|"
        r"app[-_]?secret|secret[-_]?value|raw[-_]?secret|secret[-_]?input|key[-_]?material|jwt|cookie|set[-_]?cookie|"
        r"x[-_]?api[-_]?key|x[-_]?auth[-_]?token|card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|"
        r"payment[-_]?credential|shared[-_]?payment[-_]?token|(?:[a-z0-9]+[_-])+(?:key|token|secret|password|passwd))",
        re.ASCII | re.IGNORECASE,
    )


_SHELL_REFERENCE_RE = re.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*(?::[-=?+][^}]*)?\}?")


def is_secret_field(key: str) -> bool:
    """Whether a field of that name holds a secret whatever its value looks like."""
    return bool(_secret_field_re().fullmatch(key))


def _maskable_field_value(key: str, value: Any) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, str):
        return bool(value) and value != MASK and not _SHELL_REFERENCE_RE.fullmatch(value)
    return isinstance(value, (int, float))


def redact_lines(lines: list[str], redactor: Redactor) -> list[str]:
    """Redact the joined text so multi-line secrets are caught; empty stays empty."""
    if not lines:
        return []
    return redactor.redact("\n".join(lines)).split("\n")


@lru_cache(maxsize=1)
def default_redactor() -> Redactor:
    """The built-in rules, compiled once per process."""
    return Redactor()
