"""History sanitising and size caps, as OpenClaw's `sessions_history` does them (docs/decisions.md D2, D3,
D12).

Everything that leaves the engine as transcript content for an agent (`sessions_history`, the
inline messages of `sessions_list`) goes through `sanitize_history`: secrets redacted in every
string (text, thinking, tool-call arguments, partial JSON, `errorMessage`, custom fields;
docs/decisions.md D16), long strings cut at 4000 UTF-16 units, heavy fields dropped, images reduced to metadata,
and the whole payload capped at 80 KB of compact JSON. Inputs are never mutated; changed messages are shallow copies.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, NamedTuple

from sessions_tui.engine.inputs.surrogates import surrogate_re
from sessions_tui.engine.redaction.cut import redacted_head
from sessions_tui.engine.redaction.redact import Redactor, truncate_utf16_safe, utf16_len

__all__ = [
    "HISTORY_MAX_BYTES",
    "HISTORY_TEXT_MAX_CHARS",
    "OMITTED_PLACEHOLDER",
    "TRUNCATION_MARKER",
    "CapResult",
    "HistoryResult",
    "cap_history",
    "json_utf8_bytes",
    "sanitize_history",
    "sanitize_history_message",
    "strip_tool_messages",
    "truncate_history_text",
]

HISTORY_TEXT_MAX_CHARS = 4000
HISTORY_MAX_BYTES = 80 * 1024
TRUNCATION_MARKER = "\n…(truncated)…"
OMITTED_PLACEHOLDER = {
    "role": "assistant",
    "content": "[sessions_history omitted: message too large]",
}
_HEAVY_MESSAGE_KEYS = ("details", "usage", "cost")
_TOOL_ROLES = ("toolResult", "tool")


# --- §6.1 per-message sanitisation


def truncate_history_text(text: str, redactor: Redactor) -> tuple[str, bool, bool]:
    """Redact, then cut to 4000 UTF-16 units plus the marker; (text, truncated, redacted). A long
    text is redacted only as far as it can be shown (engine/redaction/cut.py)."""
    redacted_text, head = redacted_head(text, HISTORY_TEXT_MAX_CHARS, redactor.redact)
    redacted = redacted_text != head
    if len(head) == len(text) and utf16_len(redacted_text) <= HISTORY_TEXT_MAX_CHARS:
        return redacted_text, False, redacted
    cut = truncate_utf16_safe(redacted_text, HISTORY_TEXT_MAX_CHARS)
    return cut + TRUNCATION_MARKER, True, redacted


class _FieldRewriter:
    """Rewrites the fields of one message and its blocks, collecting truncated/redacted."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self.truncated = False
        self.redacted = False

    def text_field(self, entry: dict[str, Any], key: str) -> None:
        value = entry.get(key)
        if isinstance(value, str):
            entry[key], truncated, redacted = truncate_history_text(value, self.redactor)
            self.truncated = self.truncated or truncated
            self.redacted = self.redacted or redacted

    def agent_data(self, entry: dict[str, Any], key: str) -> None:
        """A structure the agent wrote (tool-call arguments…): every string redacted, and values
        under secret field names masked whole."""
        before = entry[key]
        after = self.redactor.redact_fields(before)
        if after != before:
            entry[key] = after
            self.redacted = True

    def other_strings(self, entry: dict[str, Any], done: tuple[str, ...]) -> None:
        """Every other string of a message or block (`errorMessage`, a custom message's fields…)."""
        for key, value in list(entry.items()):
            if key in done or key == "__openclaw" or isinstance(value, (int, float, bool)) or value is None:
                continue
            after = self.redactor.redact_strings(value)
            if after != value:
                entry[key] = after
                self.redacted = True

    def drop_field(self, entry: dict[str, Any], key: str) -> None:
        if key in entry:
            del entry[key]
            self.truncated = True


def _sanitize_block(block: Any, flags: _FieldRewriter) -> Any:
    if not isinstance(block, dict):
        return block
    entry = dict(block)
    block_type = entry.get("type") if isinstance(entry.get("type"), str) else ""
    flags.text_field(entry, "text")
    if block_type == "thinking":
        flags.text_field(entry, "thinking")
        flags.drop_field(entry, "thinkingSignature")
    flags.text_field(entry, "partialJson")
    if "arguments" in entry:
        flags.agent_data(entry, "arguments")
    if block_type == "image":
        data = entry.get("data")
        size = len(data) if isinstance(data, str) and data else None  # base64 chars (docs/decisions.md D12)
        flags.drop_field(entry, "data")
        entry["omitted"] = True
        if size is not None:
            entry["bytes"] = size
    flags.other_strings(entry, _BLOCK_DONE)
    return entry


_BLOCK_DONE = ("type", "text", "thinking", "partialJson", "arguments", "data")
_MESSAGE_DONE = ("role", "content", "text")


def sanitize_history_message(message: Any, redactor: Redactor) -> tuple[Any, bool, bool]:
    """OpenClaw's `sanitizeHistoryMessage`. Returns (message copy, truncated, redacted)."""
    if not isinstance(message, dict):
        return message, False, False
    entry = dict(message)
    flags = _FieldRewriter(redactor)
    for key in _HEAVY_MESSAGE_KEYS:
        flags.drop_field(entry, key)
    content = entry.get("content")
    if isinstance(content, str):
        flags.text_field(entry, "content")
    elif isinstance(content, list):
        entry["content"] = [_sanitize_block(block, flags) for block in content]
    flags.text_field(entry, "text")
    flags.other_strings(entry, _MESSAGE_DONE)
    return entry, flags.truncated, flags.redacted


# --- §6.2 size caps


def json_utf8_bytes(value: Any) -> int:
    """UTF-8 length of JavaScript's compact `JSON.stringify(value)` for JSON-shaped values.

    Lone surrogates count as their 6-byte `\\udXXX` escape, like well-formed `JSON.stringify`;
    two surrogate code points that form a pair count as the 4-byte character they encode.
    Written by orjson, whose numbers are spelled as JavaScript spells most of them (`1e-7`,
    `0.00001`, `null` for NaN), ten times faster than the standard encoder on a page of history;
    what it refuses (a surrogate, an integer past 64 bits, a key that is not a string, nesting
    past 254) by the standard encoder.
    """
    import orjson  # imported by the first history read, not by every command

    try:
        return len(orjson.dumps(value))
    except TypeError:
        pass
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        lone = len(surrogate_re().findall(text))
        return len(text.encode("utf-8", "surrogatepass")) + 3 * lone


class CapResult(NamedTuple):
    messages: list[Any]
    bytes: int
    dropped_messages: bool
    hard_capped: bool


def cap_history(messages: Iterable[Any], max_bytes: int = HISTORY_MAX_BYTES) -> CapResult:
    """OpenClaw's `capArrayByJsonBytes` then `enforceSessionsHistoryHardCap`, each item sized once.

    Oldest messages are dropped while the array is over `max_bytes` and two or more remain. The
    hard cap then keeps the newest message alone if it fits; the drop loop already leaves exactly
    that message whenever the array is still too big, so what remains is the placeholder case.
    Per docs/decisions.md D12 both flags are set whenever any message was removed or replaced.
    """
    items = list(messages)
    if not items:
        return CapResult([], 2, False, False)
    sizes = [json_utf8_bytes(item) for item in items]
    total = 2 + sum(sizes) + len(items) - 1
    start = 0
    while total > max_bytes and start < len(items) - 1:
        total -= sizes[start] + 1
        start += 1
    if total <= max_bytes:
        return CapResult(items[start:], total, start > 0, start > 0)
    placeholder = [dict(OMITTED_PLACEHOLDER)]
    return CapResult(placeholder, json_utf8_bytes(placeholder), True, True)


class HistoryResult(NamedTuple):
    messages: list[Any]
    truncated: bool
    dropped_messages: bool
    content_truncated: bool
    content_redacted: bool
    bytes: int
    hard_capped: bool


def sanitize_history(messages: Iterable[Any], redactor: Redactor, max_bytes: int = HISTORY_MAX_BYTES) -> HistoryResult:
    """§6.1 on every message, then the §6.2 caps, with the result flags of `sessions_history`."""
    sanitized = [sanitize_history_message(message, redactor) for message in messages]
    capped = cap_history((entry for entry, _, _ in sanitized), max_bytes)
    content_truncated = any(truncated for _, truncated, _ in sanitized)
    return HistoryResult(
        messages=capped.messages,
        truncated=capped.dropped_messages or content_truncated or capped.hard_capped,
        dropped_messages=capped.dropped_messages,
        content_truncated=content_truncated,
        content_redacted=any(redacted for _, _, redacted in sanitized),
        bytes=capped.bytes,
        hard_capped=capped.hard_capped,
    )


def strip_tool_messages(messages: Iterable[Any]) -> list[Any]:
    """Drop tool results (`toolResult`, and `tool` as some providers name them)."""
    return [message for message in messages if not (isinstance(message, dict) and message.get("role") in _TOOL_ROLES)]
