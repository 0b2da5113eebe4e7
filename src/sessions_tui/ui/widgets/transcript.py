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
from textual.widgets import Collapsible, Static

from sessions_tui.tools.base import ToolCall, ToolInputError
from sessions_tui.tools.registry import invoke
from sessions_tui.ui.errors import ReportsWorkerErrors
from sessions_tui.ui.text import ROLE_STYLES, clock_time, literal, one_line, span

HISTORY_LIMIT = 200
TOOL_TEXT_LINES = 12


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
        self._streaming = Text()
        self._last_end = 0
        self.next_offset: int | None = None  # where older history starts (None: all shown)

    def compose(self) -> ComposeResult:
        yield Static(span("No session selected. Pick one in the table and press enter.", style="dim"),
                     id="transcript-title")
        yield Static("", id="transcript-badges")
        yield VerticalScroll(id="messages")
        yield Static("", id="streaming")

    def open(self, key: str | None, shown_key: str = "") -> None:
        self.key = key
        self.shown_key = shown_key or (key or "")
        self.last_seq = 0
        self._clear_stream()
        self.reload()

    def _clear_stream(self) -> None:
        self._streaming = Text()
        self.query_one("#streaming", Static).update("")

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
        scroll = self.query_one("#messages", VerticalScroll)
        title = self.query_one("#transcript-title", Static)
        badges = self.query_one("#transcript-badges", Static)
        if "status" in result and "messages" not in result:
            title.update(Text.assemble((self.shown_key, "bold"), "  ") + literal(f"{result['status']}: {result['error']}",
                                                                                 style="#e06c75"))
            badges.update("")
            scroll.remove_children()
            self.last_seq = 0
            return
        messages = result.get("messages", [])
        if event.older:
            self.next_offset = result.get("nextOffset")
            if messages:
                scroll.mount_all([MessageView(m, self.tools, self.display_key) for m in messages], before=0)
            title.update(self._title(result))
            return
        if event.replace:
            self.next_offset = result.get("nextOffset")
        title.update(self._title(result))
        badges.update(self._badges(result))
        follow = event.replace or self._following(scroll)
        if event.replace:
            scroll.remove_children()
            fresh = messages
        else:
            fresh = [m for m in messages if self._seq(m) > self.last_seq]
        if fresh:
            scroll.mount_all([MessageView(m, self.tools, self.display_key) for m in fresh])
            self.last_seq = max(self.last_seq, *(self._seq(m) for m in fresh))
            self._clear_stream()
        if follow:
            self._follow_to_end(scroll)

    @staticmethod
    def _seq(message: dict[str, Any]) -> int:
        meta = message.get("__openclaw")
        return int(meta.get("seq", 0)) if isinstance(meta, dict) else 0

    def _title(self, result: dict[str, Any]) -> Text:
        text = Text()
        text.append(self.shown_key, style="bold")
        text.append(f"   {result.get('totalMessages', 0)} messages", style="dim")
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
        """Show what the running model is producing, until its message lands."""
        if not self._streaming.plain:
            self._streaming = span("assistant  ", style=ROLE_STYLES["assistant"]) + span("(streaming) ", style="dim")
        self._streaming.append_text(literal(delta, style="italic dim" if kind == "thinking" else ""))
        self.query_one("#streaming", Static).update(self._streaming)
        scroll = self.query_one("#messages", VerticalScroll)
        if self._following(scroll):
            self._follow_to_end(scroll)

    def _following(self, scroll: VerticalScroll) -> bool:
        """Whether the reader is still at the end (not scrolled up since the pane last followed)."""
        return scroll.scroll_y >= self._last_end - 1

    def _follow_to_end(self, scroll: VerticalScroll) -> None:
        # The end moves once new messages are laid out; remember where it was, so a scroll that
        # lands later still counts as "at the end" and only the reader scrolling up stops it.
        self._last_end = scroll.max_scroll_y
        scroll.scroll_end(animate=False, immediate=False)
