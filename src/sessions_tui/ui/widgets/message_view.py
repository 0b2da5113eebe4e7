"""One transcript message as one widget, and the preview of the message a run is streaming.

A message is drawn as a single renderable (header, then its blocks, each indented) instead of a
container of a widget per block: Textual spends a few milliseconds on every widget it mounts,
and a page holds 200 messages, so one widget each is what lets a big session open at once.
Thinking stays collapsed behind a clickable `▶ thinking · N chars` line (a click action on that
line), images are placeholders with their size, tool calls and results show only with tools on.
Everything an agent wrote goes through `literal`: shown as text, never markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from sessions_tui.counting import plural
from sessions_tui.ui.text import ROLE_STYLES, clock_time, literal, one_line, span
from sessions_tui.ui.theme import themed

TOOL_TEXT_LINES = 12
BODY, NESTED = 2, 4  # indents of a message's blocks and of what is nested in a block
TOOL_STYLE = "bold $warning"
ERROR_STYLE = "$error"

Part = tuple[int, Text]  # (indent, text): one block of a message as drawn


def blocks_of(content: Any) -> list[dict[str, Any]]:
    """A message's content as blocks (a plain string is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def clip_lines(text: str, lines: int = TOOL_TEXT_LINES) -> str:
    parts = text.splitlines()
    if len(parts) <= lines:
        return text
    return "\n".join(parts[:lines]) + f"\n… ({plural(len(parts) - lines, 'more line')})"


def draw(parts: list[Part]) -> RenderableType:
    """The parts one under the other, each wrapped at its own indent."""
    return Group(*(Padding(text, (0, 0, 0, indent)) if indent else text for indent, text in parts))


def message_seq(message: dict[str, Any]) -> int:
    """The message's place in its transcript (0 when the history tool gave none, e.g. a placeholder)."""
    meta = message.get("__openclaw")
    seq = meta.get("seq", 0) if isinstance(meta, dict) else 0
    return seq if isinstance(seq, int) else 0


class MessageView(Widget):
    """One transcript message; click a thinking line to open or close it."""

    DEFAULT_CSS = """
    MessageView {
        height: auto;
        margin: 0 0 1 0;
    }
    MessageView.role-toolResult, MessageView.role-tool {
        padding: 0 0 0 2;
    }
    """

    def __init__(self, message: dict[str, Any], tools: bool, display: Callable[[str], str]) -> None:
        role = message.get("role")  # any text in an imported transcript: a class name only if known
        super().__init__(classes=f"message role-{role if isinstance(role, str) and role in ROLE_STYLES else 'other'}")
        self.message = message
        self.tools = tools
        self.display_key = display
        self.open_thinking: set[int] = set()  # indexes of the thinking blocks shown open
        self._parts: list[Part] | None = None

    def on_mount(self) -> None:
        self.watch(self.app, "theme", self._retheme, init=False)

    def _retheme(self) -> None:
        """The parts hold the theme's colours: build them again in the new one."""
        self._parts = None
        self.refresh()

    @property
    def seq(self) -> int:
        return message_seq(self.message)

    @property
    def entry_id(self) -> str | None:
        """The id of the transcript line the message is (`__openclaw.id`), if the history gave it."""
        meta = self.message.get("__openclaw")
        found = meta.get("id") if isinstance(meta, dict) else None
        return found if isinstance(found, str) else None

    @property
    def plain(self) -> str:
        """What the message shows, as plain text (one line per block)."""
        return "\n".join(text.plain for _, text in self.parts())

    def thinking_blocks(self) -> list[int]:
        """Indexes of the message's thinking blocks (what `toggle_thinking` takes)."""
        return [i for i, b in enumerate(blocks_of(self.message.get("content"))) if b.get("type") == "thinking"]

    def action_toggle_thinking(self, index: int) -> None:
        self.open_thinking ^= {index}
        self._parts = None
        self.refresh(layout=True)

    def render(self) -> RenderableType:
        return draw(self.parts())

    def parts(self) -> list[Part]:
        if self._parts is None:
            self._parts = self._build()
        return self._parts

    def _header(self) -> Text:
        message = self.message
        role = message.get("role")
        role = role if isinstance(role, str) else "?"
        text = Text()
        text.append(one_line(role, 40), style=themed(ROLE_STYLES.get(role, "bold")))
        text.append(f"  {clock_time(message.get('timestamp'))}", style="dim")
        provenance = message.get("provenance")
        if isinstance(provenance, dict) and provenance.get("sourceTool"):
            source = provenance.get("sourceSessionKey")
            who = self.display_key(source) if isinstance(source, str) else "a person"
            text.append(f"  from {one_line(who, 60)} via {one_line(provenance['sourceTool'], 40)}", style="dim italic")
        announce = message.get("announce")
        if isinstance(announce, dict):
            text.append(f"  announce · {one_line(announce.get('status', '?'), 20)}", style=themed("bold $accent"))
        if message.get("stopReason") == "error":
            text.append("  error", style=themed("bold $error"))
        meta = message.get("__openclaw")
        earlier = meta.get("previousSessionId") if isinstance(meta, dict) else None
        if isinstance(earlier, str):  # a reset: where the transcript before it is kept
            text.append(f"  earlier transcript {one_line(earlier, 40)} (export it by that id)", style="dim")
        return text

    def _build(self) -> list[Part]:
        message = self.message
        if message.get("role") in ("toolResult", "tool"):
            name = one_line(message.get("toolName", "tool"), 60)
            body = "\n".join(b.get("text", "") for b in blocks_of(message.get("content")) if b.get("type") == "text")
            head = span(f"← {name}", style=TOOL_STYLE if not message.get("isError") else f"bold {ERROR_STYLE}")
            return [(0, self._header()), (NESTED, head + Text("\n") + literal(clip_lines(body)))]
        parts: list[Part] = [(0, self._header())]
        if message.get("stopReason") == "error" and message.get("errorMessage"):
            parts.append((BODY, literal(f"✗ {message['errorMessage']}", style=ERROR_STYLE)))
        for index, block in enumerate(blocks_of(message.get("content"))):
            parts.extend(self._block(index, block))
        return parts

    def _block(self, index: int, block: dict[str, Any]) -> list[Part]:
        kind = block.get("type")
        if kind == "text":
            return [(BODY, literal(block.get("text", ""), style="dim" if self.message.get("internal") else ""))]
        if kind == "thinking":
            thought = block.get("thinking", "")
            thought = thought if isinstance(thought, str) else str(thought)
            is_open = index in self.open_thinking
            label = span(f"{'▼' if is_open else '▶'} thinking · {plural(len(thought), 'char')}", style="dim")
            label.stylize(Style.from_meta({"@click": f"toggle_thinking({index})"}))
            return [(BODY, label), (NESTED, literal(thought, style="italic dim"))] if is_open else [(BODY, label)]
        if kind == "image":
            size = block.get("bytes")
            size_text = f" · {plural(size, 'byte')}" if isinstance(size, int) else ""
            mime = one_line(block.get("mimeType") or "image", 60)
            return [(BODY, span(f"[{mime} omitted{size_text}]", style="dim"))]
        if kind == "toolCall" and self.tools:
            arguments = json.dumps(block.get("arguments"), ensure_ascii=False)
            call = (
                span(f"→ {one_line(block.get('name'), 60)}(", style=TOOL_STYLE)
                + literal(one_line(arguments, 300))
                + span(")", style=TOOL_STYLE)
            )
            return [(NESTED, call)]
        return []


class StreamView(Widget):
    """What a run is producing, until its message lands: the thinking under its own label (dim,
    italic) apart from the reply below it, as the finished message shows them. It sits after the
    last message, so the pane's end follows it as it grows."""

    DEFAULT_CSS = """
    StreamView {
        height: auto;
        margin: 0 0 1 0;
        display: none;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.thinking = ""
        self.reply = ""

    @property
    def plain(self) -> str:
        return "\n".join(text.plain for _, text in self.parts())

    def add(self, kind: str, delta: str) -> None:
        if kind == "thinking":
            self.thinking += delta
        else:
            self.reply += delta
        self.display = True
        self.refresh(layout=True)

    def clear(self) -> None:
        self.thinking = self.reply = ""
        self.display = False

    def parts(self) -> list[Part]:
        parts: list[Part] = [(0, span("assistant", style=ROLE_STYLES["assistant"]) + span("  streaming…", style="dim"))]
        if self.thinking:
            parts.append((BODY, span("thinking", style="dim")))
            parts.append((NESTED, literal(self.thinking, style="italic dim")))
        if self.reply:
            parts.append((BODY, literal(self.reply)))
        return parts

    def render(self) -> RenderableType:
        return draw(self.parts())
