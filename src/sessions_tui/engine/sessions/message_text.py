"""A transcript message as a person reads it in one line of text: its text parts, a tool call by
name, an image as `[image]`, thinking left out (a headless view prints it; a gateway's event carries it)."""

from __future__ import annotations

from typing import Any


def message_text(message: dict[str, Any]) -> str:
    """A transcript message's content as text: its text parts, a tool call or result by name, an
    image as `[image]` (thinking left out)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return str(message["text"]) if isinstance(message.get("text"), str) else ""
    parts: list[str] = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif not isinstance(part, dict):
            continue
        elif isinstance(part.get("text"), str) and part.get("type") != "thinking":
            parts.append(part["text"])
        elif part.get("type") in ("toolCall", "tool_use"):
            parts.append(f"[tool call {part.get('name') or '?'}]")
        elif part.get("type") == "image":
            parts.append("[image]")
    return "\n".join(p for p in parts if p)
