"""The engine's value types the seam carries, listed once: what a face receives and raises by.

A backend's answers and events are plain data made of these; a face names them from here and never
from the engine. Events: what the engine reports as it happens. Ledger entries: the sends and
what became of them. Child and announce views: the spawn tree. Search hits and outcomes, browse
queries and pages: the table and search. Explanations: the rules a tool refuses by. Tool specs and
errors: what a tool takes and how it refuses input. Store errors: a damaged state database.
The types of export and OpenClaw import travel in export.py and openclaw.py, loaded only there.
"""

from __future__ import annotations

from sessions_tui.engine.events import (
    Announced,
    DeliveryChanged,
    EngineEvent,
    FollowStatus,
    MessageAppended,
    PolicyRefused,
    RunEnded,
    RunStarted,
    RunStreamed,
    SendLedgerChanged,
    SendProgress,
    SessionChanged,
    StoreChanged,
)
from sessions_tui.engine.lazy_model import LazyModel
from sessions_tui.engine.messaging.ledger import SEND_STATES, LedgerEntry, LedgerState, SendState
from sessions_tui.engine.store import SearchUnreadable, StoreDamaged, StoreError
from sessions_tui.engine.subagents.records import AnnouncementView, ChildView
from sessions_tui.tools.base import ToolInputError, ToolSpec
from sessions_tui.tools.browse import BrowsePage, BrowseQuery
from sessions_tui.tools.explain import Explanation, Verdict
from sessions_tui.tools.registry import TOOLS, UnknownToolError
from sessions_tui.tools.sessions_search import SearchHit, SearchOutcome

__all__ = [
    "SEND_STATES",
    "TOOLS",
    "Announced",
    "AnnouncementView",
    "BrowsePage",
    "BrowseQuery",
    "ChildView",
    "DeliveryChanged",
    "EngineEvent",
    "Explanation",
    "FollowStatus",
    "LazyModel",
    "LedgerEntry",
    "LedgerState",
    "MessageAppended",
    "PolicyRefused",
    "RunEnded",
    "RunStarted",
    "RunStreamed",
    "SearchHit",
    "SearchOutcome",
    "SearchUnreadable",
    "SendLedgerChanged",
    "SendProgress",
    "SendState",
    "SessionChanged",
    "StoreChanged",
    "StoreDamaged",
    "StoreError",
    "ToolInputError",
    "ToolSpec",
    "UnknownToolError",
    "Verdict",
]
