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
"""

from __future__ import annotations

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
from sessions_tui.engine.messaging.ledger import SEND_STATES, LedgerEntry, LedgerState, SendState
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
from sessions_tui.engine.store import SearchUnreadable, StoreDamaged, StoreError
from sessions_tui.tools.base import ToolInputError, ToolSpec
from sessions_tui.tools.registry import TOOLS, UnknownToolError

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
