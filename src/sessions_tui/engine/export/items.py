"""A transcript as the readable exports show it: each message with its role, time and parts.

Shared by the Markdown and HTML renderers, so both say the same. Text is agent data: every
control character but newline and tab is made visible here (ESC as `␛`, C1 controls and lone
surrogates as U+FFFD, format characters such as U+202E as `⟨U+202E⟩`), so a file that is `cat` to
a terminal cannot drive it; each renderer then escapes for its own syntax.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from sessions_tui.engine.export.model import SessionExport
from sessions_tui.engine.inputs.surrogates import loads
from sessions_tui.engine.sessions.entry import is_int
from sessions_tui.engine.store.tables.messages import message_of_line
from sessions_tui.terminal_text import visible

PartKind = Literal["text", "thinking", "tool_call", "tool_result", "image", "other"]

_ROLE_RE = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,31}")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def safe_text(text: str) -> str:
    """Agent text with its control characters made visible (newline and tab stay); `\\r\\n` is a newline."""
    return visible(text.replace("\r\n", "\n"))


def safe_line(text: str) -> str:
    """As `safe_text`, on one line: newlines and tabs become spaces."""
    return " ".join(safe_text(text).split())


@dataclass(frozen=True)
class Part:
    """One piece of a message: its text, or a tool call (`name`, arguments as JSON in `text`)…"""

    kind: PartKind
    text: str = ""
    name: str = ""


@dataclass(frozen=True)
class Item:
    """One message: `role` is a safe word (user, assistant, toolResult, system, custom…)."""

    role: str
    at: int | None
    parts: list[Part] = field(default_factory=list)
    tool: str = ""  # a tool result's tool
    error: bool = False  # a tool result that is an error


ROLE_NAMES = {"user": "user", "assistant": "assistant", "toolResult": "tool result", "system": "system"}


def heading_words(number: int, item: Item) -> list[str]:
    """A message's heading, word by word (each renderer escapes and joins them its way)."""
    words = [f"{number}. {ROLE_NAMES.get(item.role, item.role)}"]
    if item.tool:
        words.append(item.tool)
    if item.error:
        words.append("error")
    when = time_text(item.at)
    if when:
        words.append(when)
    return words


def export_facts(export: SessionExport, messages: int) -> list[tuple[str, str]]:
    """The facts both readable exports list under the title, those the export has, in order."""
    facts = [
        ("Server", export.server),
        ("Label", export.label),
        ("Agent", export.agent_id),
        ("Channel", export.channel),
        ("Session id", export.session_id),
        ("Created", time_text(export.created_at)),
        ("Updated", time_text(export.updated_at)),
        ("Messages", str(messages)),
    ]
    return [(name, value) for name, value in facts if value]


def time_text(ms: int | None) -> str:
    """`2026-11-21 22:52:43 UTC`, or an empty string for no (or an impossible) time."""
    if ms is None:
        return ""
    try:
        return (_EPOCH + timedelta(milliseconds=ms)).strftime("%Y-%m-%d %H:%M:%S UTC")
    except (OverflowError, ValueError):
        return ""


def iso_ms(text: Any) -> int | None:
    """Exact milliseconds of an ISO time (no float rounding), None when it is not one."""
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // timedelta(milliseconds=1)


def _json_text(value: Any) -> str:
    try:
        return safe_text(json.dumps(value, indent=2, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError):
        return safe_text(repr(value))


def _block_part(block: Any) -> Part:
    if isinstance(block, str):
        return Part("text", safe_text(block))
    if not isinstance(block, dict):
        return Part("other", name=type(block).__name__)
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return Part("text", safe_text(block["text"]))
    if kind in ("thinking", "redacted_thinking"):
        return Part("thinking")
    if kind in ("toolCall", "tool_use", "toolUse", "functionCall"):
        args = block.get("arguments", block.get("input"))
        return Part("tool_call", _json_text(args if args is not None else {}), safe_line(str(block.get("name") or "?")))
    if kind == "image":
        return Part("image")
    return Part("other", name=safe_line(str(kind or "?")))


def _parts(content: Any) -> list[Part]:
    if isinstance(content, str):
        return [Part("text", safe_text(content))]
    if isinstance(content, list):
        return [_block_part(block) for block in content]
    return [] if content is None else [Part("other", name=type(content).__name__)]


def _item(line: dict[str, Any], seq: int) -> Item | None:
    message = message_of_line(line, seq)
    if message is None:
        return None
    role = message.get("role")
    role = role if isinstance(role, str) and _ROLE_RE.fullmatch(role) else "unknown"
    stamp = message.get("timestamp")
    at = stamp if is_int(stamp) else iso_ms(line.get("timestamp"))
    parts = _parts(message.get("content"))
    if role == "toolResult":
        parts = [Part("tool_result", p.text) if p.kind == "text" else p for p in parts]
        tool = safe_line(str(message.get("toolName") or "?"))
        return Item(role, at, parts, tool=tool, error=message.get("isError") is True)
    return Item(role, at, parts)


def transcript_items(lines: list[str]) -> list[Item]:
    """The messages of a transcript's stored lines, in order (other lines, such as a model
    change, are not messages and are left out; a line that is not JSON shows as such)."""
    items: list[Item] = []
    seq = 0
    for text in lines:
        try:
            line = loads(text)
        except (ValueError, RecursionError):
            items.append(Item("unknown", None, [Part("other", name="a line that is not JSON")]))
            continue
        if not isinstance(line, dict):
            continue
        item = _item(line, seq + 1)
        if item is not None:
            seq += 1
            items.append(item)
    return items
