"""The transcript pane: the selected session's history as the acting-as session's tools see it.

Roles are styled, thinking is collapsed, images are placeholders with their size, tool calls and
results show only with tools on (`t`), and badges say when the history tool redacted, cut or
capped content. New messages are appended as they land; the pane follows them unless the reader
has scrolled up. Everything an agent wrote is shown literally.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from sessions_tui.tools.base import ToolCall, ToolInputError
from sessions_tui.tools.registry import invoke
from sessions_tui.ui.errors import ReportsWorkerErrors
from sessions_tui.ui.text import ROLE_STYLES, clock_time, literal, one_line, span

HISTORY_LIMIT = 200
TOOL_TEXT_LINES = 12
FIRST_BATCH = 30
"""Messages mounted at once when a session opens; the older ones of the page follow after the
first paint, above them, so the newest message shows without waiting for the whole page."""


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def _clip_lines(text: str, lines: int = TOOL_TEXT_LINES) -> str:
    parts = text.splitlines()
    if len(parts) <= lines:
        return text
    return "\n".join(parts[:lines]) + f"\n… ({len(parts) - lines} more lines)"


class MessageView(Vertical):
    """One transcript message."""

    def __init__(self, message: dict[str, Any], tools: bool, display: Any) -> None:
        super().__init__(classes=f"message role-{message.get('role', 'unknown')}")
        self.message = message
        self.tools = tools
        self.display_key = display

    def _header(self) -> Text:
        message = self.message
        role = message.get("role", "?")
        text = Text()
        text.append(role, style=ROLE_STYLES.get(role, "bold"))
        text.append(f"  {clock_time(message.get('timestamp'))}", style="dim")
        provenance = message.get("provenance")
        if isinstance(provenance, dict) and provenance.get("sourceTool"):
            source = provenance.get("sourceSessionKey")
            who = self.display_key(source) if isinstance(source, str) else "a person"
            text.append(f"  from {one_line(who, 60)} via {provenance['sourceTool']}", style="dim italic")
        announce = message.get("announce")
        if isinstance(announce, dict):
            text.append(f"  announce · {announce.get('status', '?')}", style="bold #c678dd")
        if message.get("stopReason") == "error":
            text.append("  error", style="bold #e06c75")
        return text

    def compose(self) -> ComposeResult:
        message = self.message
        yield Static(self._header(), classes="message-header")
        if message.get("role") in ("toolResult", "tool"):
            name = message.get("toolName", "tool")
            body = "\n".join(b.get("text", "") for b in _blocks(message.get("content")) if b.get("type") == "text")
            head = span(f"← {name}", style="bold #e5c07b" if not message.get("isError") else "bold #e06c75")
            yield Static(head + Text("\n") + literal(_clip_lines(body)), classes="tool-result")
            return
        if message.get("stopReason") == "error" and message.get("errorMessage"):
            yield Static(literal(f"✗ {message['errorMessage']}", style="#e06c75"), classes="message-error")
        for block in _blocks(message.get("content")):
            kind = block.get("type")
            if kind == "text":
                style = "dim" if message.get("internal") else ""
                yield Static(literal(block.get("text", ""), style=style), classes="message-text")
            elif kind == "thinking":
                thought = block.get("thinking", "")
                with Collapsible(title=f"thinking · {len(thought)} chars", collapsed=True, classes="thinking"):
                    yield Static(literal(thought, style="italic dim"))
            elif kind == "image":
                size = block.get("bytes")
                size_text = f" · {size:,} bytes" if isinstance(size, int) else ""
                mime = block.get("mimeType") or "image"
                yield Static(span(f"[{mime} omitted{size_text}]", style="dim"), classes="image")
            elif kind == "toolCall" and self.tools:
                arguments = json.dumps(block.get("arguments"), ensure_ascii=False)
                yield Static(span(f"→ {block.get('name')}(", style="bold #e5c07b") + literal(one_line(arguments, 300))
                             + span(")", style="bold #e5c07b"), classes="tool-call")


class MessageScroll(VerticalScroll):
    """The messages, anchored to the end: new ones keep the end in view until the reader scrolls
    up, and scrolling back to the end follows again. `home`/`end` jump (no animation)."""

    def action_scroll_home(self) -> None:
        self.release_anchor()
        self.scroll_home(animate=False, immediate=True)

    def action_scroll_end(self) -> None:
        self.scroll_end(animate=False, immediate=True)

    def keep_in_place(self, anchor: Widget | None) -> None:
        """After messages were put above `anchor`, scroll so it stays on the same screen row."""
        if anchor is None or not self.is_anchored or not self._anchor_released:
            return
        before = anchor.virtual_region.y - self.scroll_y

        def restore() -> None:
            self.scroll_to(y=anchor.virtual_region.y - before, animate=False, immediate=True, release_anchor=False)

        self.call_after_refresh(restore)

    def first_visible(self) -> Widget | None:
        """The message at the top of the view (what the reader is looking at)."""
        top = self.scroll_y
        for child in self.children:
            if child.virtual_region.bottom > top:
                return child
        return None


class TranscriptPane(ReportsWorkerErrors, Vertical):
    """Shows one session; `open`, `reload` and `refresh_tail` fetch through `sessions_history`."""

    class Loaded(Message):
        def __init__(self, key: str, result: dict[str, Any], replace: bool, older: bool = False) -> None:
            super().__init__()
            self.key = key
            self.result = result
            self.replace = replace
            self.older = older

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.key: str | None = None
        self.shown_key: str = ""
        self.tools = False
        self.last_seq = 0
        self.call_factory: Any = None  # () -> ToolCall, set by the screen
        self.display_key: Any = lambda k: k
        self._thinking = ""
        self._reply = ""
        self.next_offset: int | None = None  # where older history starts (None: all shown)

    def compose(self) -> ComposeResult:
        yield Static(span("No session selected. Pick one in the table and press enter.", style="dim"),
                     id="transcript-title")
        yield Static("", id="transcript-badges")
        yield MessageScroll(id="messages")
        yield Static("", id="streaming")

    def on_mount(self) -> None:
        self.query_one(MessageScroll).anchor()

    def open(self, key: str | None, shown_key: str = "") -> None:
        self.key = key
        self.shown_key = shown_key or (key or "")
        self.last_seq = 0
        self._clear_stream()
        if key is None:  # nothing to show: no old messages stay; the title says why (`shown_key`)
            self.next_offset = None
            self.query_one(MessageScroll).remove_children()
            self.query_one("#transcript-title", Static).update(literal(shown_key, style="dim"))
            self.query_one("#transcript-badges", Static).update("")
            return
        self.reload()

    def _clear_stream(self) -> None:
        self._thinking = self._reply = ""
        streaming = self.query_one("#streaming", Static)
        streaming.update("")
        streaming.display = False

    def reload(self) -> None:
        if self.key is not None:
            self._fetch(self.key, replace=True)

    def refresh_tail(self) -> None:
        if self.key is not None:
            self._fetch(self.key, replace=False)

    def set_tools(self, on: bool) -> None:
        self.tools = on
        self.reload()

    def load_older(self) -> bool:
        """Page back: the next older messages go on top. Returns whether there were any."""
        if self.key is None or self.next_offset is None:
            return False
        self._fetch(self.key, replace=False, offset=self.next_offset)
        return True

    @work(exclusive=True, group="transcript", exit_on_error=False)
    async def _fetch(self, key: str, replace: bool, offset: int = 0) -> None:
        call: ToolCall = self.call_factory()
        params: dict[str, Any] = {"sessionKey": key, "limit": HISTORY_LIMIT, "includeTools": self.tools}
        if offset:
            params["offset"] = offset
        try:
            result = await invoke(call, "sessions_history", params)
        except ToolInputError as exc:
            result = {"status": "error", "error": str(exc)}
        self.post_message(self.Loaded(key, result, replace, older=bool(offset)))

    def on_transcript_pane_loaded(self, event: Loaded) -> None:
        event.stop()
        if event.key != self.key:
            return
        result = event.result
        scroll = self.query_one(MessageScroll)
        title = self.query_one("#transcript-title", Static)
        badges = self.query_one("#transcript-badges", Static)
        if "status" in result and "messages" not in result:
            error = literal(f"{result['status']}: {result['error']}", style="#e06c75")
            title.update(Text.assemble((self.shown_key, "bold"), "  ") + error)
            badges.update("")
            scroll.remove_children()
            self.last_seq = 0
            return
        messages = result.get("messages", [])
        if event.older:
            self.next_offset = result.get("nextOffset")
            if messages:
                top = scroll.first_visible()
                scroll.mount_all(self._views(messages), before=0)
                scroll.keep_in_place(top)
            title.update(self._title(result))
            return
        if event.replace:
            self.next_offset = result.get("nextOffset")
        title.update(self._title(result))
        badges.update(self._badges(result))
        if event.replace:
            scroll.remove_children()
            scroll.scroll_end(animate=False, immediate=True)  # a new session opens at its end, following
            first, rest = messages[-FIRST_BATCH:], messages[:-FIRST_BATCH]
            scroll.mount_all(self._views(first))
            if rest:
                self.call_after_refresh(self._mount_above, self.key, rest)
            fresh = messages
        else:
            fresh = [m for m in messages if self._seq(m) > self.last_seq]
            if fresh:
                scroll.mount_all(self._views(fresh))
        if fresh:
            self.last_seq = max(self.last_seq, *(self._seq(m) for m in fresh))
            self._clear_stream()

    def _views(self, messages: list[dict[str, Any]]) -> list[MessageView]:
        return [MessageView(m, self.tools, self.display_key) for m in messages]

    def _mount_above(self, key: str | None, messages: list[dict[str, Any]]) -> None:
        """The older part of a page, put above what is shown without moving the reader's view."""
        if key != self.key:
            return
        scroll = self.query_one(MessageScroll)
        top = scroll.first_visible()
        scroll.mount_all(self._views(messages), before=0)
        scroll.keep_in_place(top)

    @staticmethod
    def _seq(message: dict[str, Any]) -> int:
        meta = message.get("__openclaw")
        return int(meta.get("seq", 0)) if isinstance(meta, dict) else 0

    def _title(self, result: dict[str, Any]) -> Text:
        text = Text()
        text.append(self.shown_key, style="bold")
        count = int(result.get("totalMessages") or 0)
        text.append(f"   {count:,} message{'' if count == 1 else 's'}", style="dim")
        if self.next_offset is not None:
            text.append("   m: older", style="dim")
        return text

    def _badges(self, result: dict[str, Any]) -> Text:
        text = Text()
        text.append("tools: ", style="dim")
        text.append("on" if self.tools else "off", style="bold" if self.tools else "")
        text.append(" (t)", style="dim")
        for flag, label in (("contentRedacted", "redacted"), ("contentTruncated", "truncated"),
                            ("hardCapped", "capped")):
            if result.get(flag):
                text.append(f"   {label} ", style="")
                text.append("●", style="bold #e5c07b")
        if result.get("droppedMessages") and not result.get("hardCapped"):
            text.append("   dropped ", style="")
            text.append("●", style="bold #e5c07b")
        return text

    def stream(self, kind: str, delta: str) -> None:
        """Show what the running model is producing, until its message lands: its thinking (dim,
        under its own label) apart from the reply, as the finished message shows them."""
        if kind == "thinking":
            self._thinking += delta
        else:
            self._reply += delta
        text = span("assistant  ", style=ROLE_STYLES["assistant"]) + span("(streaming)", style="dim")
        if self._thinking:
            text.append("\n")
            text.append_text(span("thinking · ", style="dim") + literal(self._thinking, style="italic dim"))
        if self._reply:
            text.append("\n")
            text.append_text(literal(self._reply))
        streaming = self.query_one("#streaming", Static)
        streaming.display = True
        streaming.update(text)
