"""A session as Markdown: a title block, then each message with its role, time and parts.

Agent text is data, never Markdown: a message's text and a tool call's arguments go in a fenced
block whose fence is longer than any run of backticks in them (so no ``` inside can close it),
and the short texts in headings and the title block (key, label, tool names) have every character
that can start markup mid-line backslash-escaped (so no `*`, `<script>` or `[link](…)` in them means anything).
"""

from __future__ import annotations

import re

from sessions_tui.engine.export.items import Item, Part, safe_line, time_text, transcript_items
from sessions_tui.engine.export.model import SessionExport

# What can start markup in the middle of a line (emphasis, code, links, HTML, entities, tables, math).
_PUNCTUATION_RE = re.compile(r"([\\`*_{}\[\]<>()#!|~&$])")
_BACKTICKS_RE = re.compile(r"`+")
_ROLE_NAMES = {"user": "user", "assistant": "assistant", "toolResult": "tool result", "system": "system"}


def inline(text: str) -> str:
    """Agent text for a heading or a list item: one line, every Markdown character escaped."""
    return _PUNCTUATION_RE.sub(r"\\\1", safe_line(text))


def fenced(text: str, info: str = "text") -> str:
    """A fenced block no line of `text` can close."""
    longest = max((len(run) for run in _BACKTICKS_RE.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}"


def _part(part: Part) -> str:
    if part.kind == "text":
        return fenced(part.text) if part.text.strip() else ""
    if part.kind == "thinking":
        return "*(thinking omitted)*"
    if part.kind == "image":
        return "\\[image\\]"
    if part.kind == "tool_call":
        return f"**Tool call** {inline(part.name)}\n\n{fenced(part.text, 'json')}"
    if part.kind == "tool_result":
        return fenced(part.text)
    return f"*\\[{inline(part.name)}\\]*"


def _heading(number: int, item: Item) -> str:
    role = _ROLE_NAMES.get(item.role, item.role)
    words = [f"{number}. {inline(role)}"]
    if item.tool:
        words.append(inline(item.tool))
    if item.error:
        words.append("error")
    when = time_text(item.at)
    if when:
        words.append(when)
    return "## " + " · ".join(words)


def render_markdown(export: SessionExport) -> str:
    """The whole document, ending in one newline."""
    items = transcript_items(export.lines)
    data = [("Server", export.server), ("Label", export.label), ("Agent", export.agent_id), ("Channel", export.channel)]
    data.append(("Session id", export.session_id))
    ours = [
        ("Created", time_text(export.created_at)),
        ("Updated", time_text(export.updated_at)),
        ("Messages", str(len(items))),
    ]
    out = [f"# Session {inline(export.key)}", ""]
    out += [f"- **{name}:** {inline(value)}" for name, value in data if value]
    out += [f"- **{name}:** {value}" for name, value in ours if value]
    if export.redacted:
        out.append("- **Redacted:** secrets are masked")
    else:
        out.append("- **Not redacted:** this file may hold secrets")
    for number, item in enumerate(items, start=1):
        out += ["", "---", "", _heading(number, item)]
        for part in item.parts:
            shown = _part(part)
            if shown:
                out += ["", shown]
    return "\n".join(out) + "\n"
