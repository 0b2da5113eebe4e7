"""A session as Markdown: a title block, then each message with its role, time and parts.

Agent text is data, never Markdown: a message's text and a tool call's arguments go in a fenced
block whose fence is longer than any run of backticks in them (so no ``` inside can close it),
and the short texts in headings and the title block (key, label, tool names) have every character
that can start markup mid-line backslash-escaped (so no `*`, `<script>` or `[link](…)` in them means anything).
"""

from __future__ import annotations

import re

from sessions_tui.engine.export.items import Item, Part, export_facts, heading_words, safe_line, transcript_items
from sessions_tui.engine.export.model import SessionExport

# What can start markup in the middle of a line (emphasis, code, links, HTML, entities, tables, math).
_PUNCTUATION_RE = re.compile(r"([\\`*_{}\[\]<>()#!|~&$])")
_BACKTICKS_RE = re.compile(r"`+")


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
    return "## " + " · ".join(inline(word) for word in heading_words(number, item))


def render_markdown(export: SessionExport) -> str:
    """The whole document, ending in one newline."""
    items = transcript_items(export.lines)
    out = [f"# Session {inline(export.key)}", ""]
    out += [f"- **{name}:** {inline(value)}" for name, value in export_facts(export, len(items))]
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
