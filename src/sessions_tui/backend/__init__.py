"""The one way the faces (the dashboard, the command line) reach the engine.

`Backend` (base.py) is the seam; `LocalBackend` (local.py) puts the embedded engine behind it.
The names below are what the faces need besides: the engine's typed events, key helpers, the
tools' specs and errors, and the local state directory's paths and config errors.

Each name is loaded from its module when it is first used (PEP 562), so a command loads only what
it touches: `sessions-tui tool` never loads the dashboard's reads or the OpenClaw side.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sessions_tui.backend.base import (
        Backend,
        BackendUnavailable,
        EventCallback,
        ImportSummary,
        Requester,
        RequesterView,
    )
    from sessions_tui.backend.local import LocalBackend, open_local
    from sessions_tui.backend.opening import StateDirError, database_error_line
    from sessions_tui.engine.config import (
        CONFIG_FILE_NAME,
        CONFIG_PATH_ENV,
        ConfigError,
        config_path_origin,
        resolve_config_path,
        resolve_state_dir,
    )
    from sessions_tui.engine.config.secret_refs import secret_text
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
    from sessions_tui.engine.export import (
        FORMATS,
        ExportFormat,
        LayoutError,
        SessionExport,
        default_file_name,
        is_layout_target,
        render_export,
        write_export,
    )
    from sessions_tui.engine.inputs.files import kind_of
    from sessions_tui.engine.inputs.json_text import NotJsonNumber, json_problem, loads_body, loads_json
    from sessions_tui.engine.lazy_model import LazyModel
    from sessions_tui.engine.messaging.commands import is_send_command
    from sessions_tui.engine.messaging.ledger import SEND_STATES, LedgerEntry, LedgerState, SendState
    from sessions_tui.engine.openclaw.follow import FollowTick
    from sessions_tui.engine.openclaw.layout import NoOpenClawState, require_agents
    from sessions_tui.engine.redaction.redact import default_redactor
    from sessions_tui.engine.search.matching import TEXT_PREFIX, row_matches
    from sessions_tui.engine.sessions.keys import (
        SESSION_KINDS,
        agent_id_of,
        looks_like_session_id,
        looks_like_session_key,
    )
    from sessions_tui.engine.store import DB_NAME, SearchUnreadable, StoreDamaged, StoreError
    from sessions_tui.engine.store.tables.text_index import HIT_END, HIT_START, marked_parts
    from sessions_tui.engine.subagents.records import AnnouncementView, ChildView
    from sessions_tui.tools.base import ToolInputError, ToolSpec
    from sessions_tui.tools.browse import BrowsePage, BrowseQuery
    from sessions_tui.tools.explain import Explanation, Verdict
    from sessions_tui.tools.registry import TOOLS, UnknownToolError
    from sessions_tui.tools.sessions_search import SearchHit, SearchOutcome, wire_hit

_HOMES = {
    "sessions_tui.backend.base": "Backend BackendUnavailable EventCallback ImportSummary Requester RequesterView",
    "sessions_tui.backend.local": "LocalBackend open_local",
    "sessions_tui.backend.opening": "StateDirError database_error_line",
    "sessions_tui.engine.messaging.commands": "is_send_command",
    "sessions_tui.engine.config": (
        "CONFIG_FILE_NAME CONFIG_PATH_ENV ConfigError config_path_origin resolve_config_path resolve_state_dir"
    ),
    "sessions_tui.engine.events": (
        "Announced DeliveryChanged EngineEvent FollowStatus MessageAppended PolicyRefused RunEnded RunStarted "
        "RunStreamed SendLedgerChanged SendProgress SessionChanged StoreChanged"
    ),
    "sessions_tui.engine.export": (
        "FORMATS ExportFormat LayoutError SessionExport default_file_name is_layout_target render_export write_export"
    ),
    "sessions_tui.engine.inputs.files": "kind_of",
    "sessions_tui.engine.inputs.json_text": "NotJsonNumber json_problem loads_body loads_json",
    "sessions_tui.engine.sessions.keys": "SESSION_KINDS agent_id_of looks_like_session_id looks_like_session_key",
    "sessions_tui.engine.openclaw.follow": "FollowTick",
    "sessions_tui.engine.openclaw.layout": "NoOpenClawState require_agents",
    "sessions_tui.engine.redaction.redact": "default_redactor",
    "sessions_tui.engine.lazy_model": "LazyModel",
    "sessions_tui.engine.messaging.ledger": "SEND_STATES LedgerEntry LedgerState SendState",
    "sessions_tui.engine.config.secret_refs": "secret_text",
    "sessions_tui.engine.search.matching": "TEXT_PREFIX row_matches",
    "sessions_tui.engine.store": "DB_NAME SearchUnreadable StoreDamaged StoreError",
    "sessions_tui.engine.store.tables.text_index": "HIT_END HIT_START marked_parts",
    "sessions_tui.engine.subagents.registry": "AnnouncementView ChildView",
    "sessions_tui.tools.base": "ToolInputError ToolSpec",
    "sessions_tui.tools.browse": "BrowsePage BrowseQuery",
    "sessions_tui.tools.explain": "Explanation Verdict",
    "sessions_tui.tools.registry": "TOOLS UnknownToolError",
    "sessions_tui.tools.sessions_search": "SearchHit SearchOutcome wire_hit",
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names.split()}

__all__ = [
    "CONFIG_FILE_NAME",
    "CONFIG_PATH_ENV",
    "DB_NAME",
    "FORMATS",
    "HIT_END",
    "HIT_START",
    "SEND_STATES",
    "SESSION_KINDS",
    "TEXT_PREFIX",
    "TOOLS",
    "Announced",
    "AnnouncementView",
    "Backend",
    "BackendUnavailable",
    "BrowsePage",
    "BrowseQuery",
    "ChildView",
    "ConfigError",
    "DeliveryChanged",
    "EngineEvent",
    "EventCallback",
    "ExportFormat",
    "Explanation",
    "FollowStatus",
    "FollowTick",
    "ImportSummary",
    "LayoutError",
    "LazyModel",
    "LedgerEntry",
    "LedgerState",
    "LocalBackend",
    "MessageAppended",
    "NoOpenClawState",
    "NotJsonNumber",
    "PolicyRefused",
    "Requester",
    "RequesterView",
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
    "SessionExport",
    "StateDirError",
    "StoreChanged",
    "StoreDamaged",
    "StoreError",
    "ToolInputError",
    "ToolSpec",
    "UnknownToolError",
    "Verdict",
    "agent_id_of",
    "config_path_origin",
    "database_error_line",
    "default_file_name",
    "default_redactor",
    "is_send_command",
    "json_problem",
    "kind_of",
    "loads_body",
    "loads_json",
    "looks_like_session_id",
    "looks_like_session_key",
    "marked_parts",
    "open_local",
    "is_layout_target",
    "render_export",
    "require_agents",
    "row_matches",
    "resolve_config_path",
    "secret_text",
    "resolve_state_dir",
    "wire_hit",
    "write_export",
]


def __getattr__(name: str) -> Any:
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return __all__
