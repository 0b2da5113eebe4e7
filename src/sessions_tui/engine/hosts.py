"""The floor of the engine as its parts see it: config, store, event bus and clock.

The engine's parts (runs, turns, agent-to-agent messaging, sub-agents, the outbox, the audit log,
the owner's commands) are handed the engine itself,
but each declares only what it uses of it as a `typing.Protocol` built on these, so no part
imports `engine.py` back and the engine satisfies every protocol structurally.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from sessions_tui.engine.config import Config
from sessions_tui.engine.events import EventBus
from sessions_tui.engine.store.store import Store


class EngineFloor(Protocol):
    """What every part of the engine reads: the configuration, the store, the event bus and the clock."""

    @property
    def config(self) -> Config: ...

    @property
    def store(self) -> Store: ...

    @property
    def events(self) -> EventBus: ...

    def now(self) -> int: ...


class OwnedFloor(EngineFloor, Protocol):
    """The floor, and which process owns a session (a run's or a command's writer)."""

    def owner_of(self, key: str) -> Path | None: ...
