"""Textual messages the dashboard posts: engine events and the viewer's own changes."""

from __future__ import annotations

from textual.message import Message

from sessions_tui.engine.events import EngineEvent


class EngineEventMessage(Message):
    """An engine event, delivered into the UI's message queue."""

    def __init__(self, event: EngineEvent) -> None:
        super().__init__()
        self.event = event


class StoreChanged(Message):
    """Another process wrote to the state directory."""


class RequesterChanged(Message):
    """The acting-as identity changed: everything the tools show may differ."""

    def __init__(self, key: str, sandboxed: bool) -> None:
        super().__init__()
        self.key = key
        self.sandboxed = sandboxed


class SessionOpened(Message):
    def __init__(self, key: str | None) -> None:
        super().__init__()
        self.key = key
