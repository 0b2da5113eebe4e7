"""Transcript messages as a face shows them: a message's text in one piece."""

from __future__ import annotations

from sessions_tui.engine.sessions.message_text import message_text

__all__ = ["message_text"]
