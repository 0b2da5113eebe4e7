"""The engine's value types every face carries, listed once: events, the ledger, tools, store errors.

A backend's answers and events are plain data made of these and of the reads' views (views.py); a
face names them from here and never from the engine. Events: what the engine reports as it
happens. Ledger entries: the sends and what became of them. Tool specs and errors: what a tool
takes and how it refuses input. Store errors: a damaged state database, a search it cannot read.
The thinking levels a session takes. The `ui.notify` settings every face notifies by.
A session's live status and the rule that derives it.
Hooks: what an inbound hook asks (`HookRun`, `HookWake`) and what it is answered.
`LazyModel`: the model base they are built on (validators built on first use). Loaded by every
command, so nothing here pulls in the dashboard's reads; the types of export and OpenClaw import
travel in export.py and openclaw.py.

A name loads its home module when it is first read: the imports below are the type checker's, and
`_HOMES` says the same for the running program (a test holds the two and `__all__` together). So a
command loads what it uses of the vocabulary, not all of it: a `tool` call loads no hooks.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sessions_tui.engine.config.sections.ui import DesktopChannel, NotifyConfig, WatchDefault
    from sessions_tui.engine.events import (
        Announced,
        CronRunStarted,
        DeliveryChanged,
        EngineEvent,
        FollowStatus,
        HookReceived,
        LinkChanged,
        MessageAppended,
        PolicyRefused,
        RunEnded,
        RunStarted,
        RunStreamed,
        SendLedgerChanged,
        SendProgress,
        SessionChanged,
        StatusChanged,
        StoreChanged,
    )
    from sessions_tui.engine.hooks.values import HookAdmitted, HookCompletion, HookRun, HookWake, WakeOutcome
    from sessions_tui.engine.lazy_model import LazyModel
    from sessions_tui.engine.messaging.ledger import LedgerEntry, LedgerState
    from sessions_tui.engine.messaging.send_states import SEND_STATES, SendState
    from sessions_tui.engine.session_operations import THINKING_LEVELS
    from sessions_tui.engine.sessions.live_status import (
        LIVE_STATUSES,
        LOOPING_WINDOW_MS,
        STUCK_AFTER_MINUTES,
        Activity,
        LiveStatus,
        live_status,
        next_change_at,
    )
    from sessions_tui.engine.store.connection import SearchUnreadable, StoreDamaged, StoreError
    from sessions_tui.tools.calling.base import ToolInputError, ToolSpec
    from sessions_tui.tools.calling.registry import TOOLS, UnknownToolError

_HOMES: dict[str, tuple[str, ...]] = {
    "sessions_tui.engine.config.sections.ui": ("DesktopChannel", "NotifyConfig", "WatchDefault"),
    "sessions_tui.engine.events": (
        "Announced",
        "CronRunStarted",
        "DeliveryChanged",
        "EngineEvent",
        "FollowStatus",
        "HookReceived",
        "LinkChanged",
        "MessageAppended",
        "PolicyRefused",
        "RunEnded",
        "RunStarted",
        "RunStreamed",
        "SendLedgerChanged",
        "SendProgress",
        "SessionChanged",
        "StatusChanged",
        "StoreChanged",
    ),
    "sessions_tui.engine.hooks.values": ("HookAdmitted", "HookCompletion", "HookRun", "HookWake", "WakeOutcome"),
    "sessions_tui.engine.lazy_model": ("LazyModel",),
    "sessions_tui.engine.messaging.ledger": ("LedgerEntry", "LedgerState"),
    "sessions_tui.engine.messaging.send_states": ("SEND_STATES", "SendState"),
    "sessions_tui.engine.session_operations": ("THINKING_LEVELS",),
    "sessions_tui.engine.sessions.live_status": (
        "LIVE_STATUSES",
        "LOOPING_WINDOW_MS",
        "STUCK_AFTER_MINUTES",
        "Activity",
        "LiveStatus",
        "live_status",
        "next_change_at",
    ),
    "sessions_tui.engine.store.connection": ("SearchUnreadable", "StoreDamaged", "StoreError"),
    "sessions_tui.tools.calling.base": ("ToolInputError", "ToolSpec"),
    "sessions_tui.tools.calling.registry": ("TOOLS", "UnknownToolError"),
}
"""Each module the vocabulary takes names from, and the names it takes."""

_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    """A name of the vocabulary, read from its home module (and kept here for the next read)."""
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME_OF})


__all__ = [
    "LIVE_STATUSES",
    "LOOPING_WINDOW_MS",
    "STUCK_AFTER_MINUTES",
    "SEND_STATES",
    "THINKING_LEVELS",
    "TOOLS",
    "Activity",
    "Announced",
    "CronRunStarted",
    "DeliveryChanged",
    "DesktopChannel",
    "EngineEvent",
    "FollowStatus",
    "HookAdmitted",
    "HookCompletion",
    "HookReceived",
    "HookRun",
    "HookWake",
    "LazyModel",
    "LedgerEntry",
    "LedgerState",
    "LinkChanged",
    "LiveStatus",
    "MessageAppended",
    "NotifyConfig",
    "PolicyRefused",
    "RunEnded",
    "RunStarted",
    "RunStreamed",
    "SearchUnreadable",
    "SendLedgerChanged",
    "SendProgress",
    "SendState",
    "SessionChanged",
    "StatusChanged",
    "StoreChanged",
    "StoreDamaged",
    "StoreError",
    "ToolInputError",
    "ToolSpec",
    "UnknownToolError",
    "WatchDefault",
    "WakeOutcome",
    "live_status",
    "next_change_at",
]
