"""Textual messages the dashboard posts: engine events and changes to the state directory."""

from __future__ import annotations

from textual.message import Message

from sessions_tui.backend.values.vocabulary import EngineEvent


class EngineEventMessage(Message):
    """An engine event, delivered into the UI's message queue."""

    def __init__(self, event: EngineEvent) -> None:
        super().__init__()
        self.event = event


class StoreChanged(Message):
    """Another process wrote to the state directory."""


class StoreDamageFound(Message):
    """The state database is damaged (found by this process or another): nothing more is written
    to it. `refused`: a write of the user's was refused for it (said each time)."""

    def __init__(self, notice: str, *, refused: bool) -> None:
        super().__init__()
        self.notice = notice
        self.refused = refused
