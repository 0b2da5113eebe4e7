"""The one way the faces (the dashboard, the command line) reach the engine.

`Backend` (base.py) is the seam; `LocalBackend` (local.py) puts the embedded engine behind it.
The names below are what the faces need besides: the engine's typed events, key helpers, the
tools' specs and errors, and the local state directory's paths and config errors.
"""

from sessions_tui.backend.base import Backend, EventCallback, ImportSummary, Requester, RequesterView
from sessions_tui.backend.local import LocalBackend, open_local
from sessions_tui.backend.opening import StateDirError
from sessions_tui.engine.commands import is_send_command
from sessions_tui.engine.config import (
    CONFIG_FILE_NAME,
    CONFIG_PATH_ENV,
    ConfigError,
    config_path_origin,
    resolve_config_path,
    resolve_state_dir,
)
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
    SendProgress,
    SessionChanged,
)
from sessions_tui.engine.files import kind_of
from sessions_tui.engine.keys import SESSION_KINDS, agent_id_of, looks_like_session_id, looks_like_session_key
from sessions_tui.engine.openclaw.follow import FollowTick
from sessions_tui.engine.openclaw.layout import NoOpenClawState, require_agents
from sessions_tui.engine.session_search import row_matches
from sessions_tui.engine.store import DB_NAME, StoreError
from sessions_tui.engine.subagents import AnnouncementView, ChildView
from sessions_tui.tools.base import ToolInputError, ToolSpec
from sessions_tui.tools.browse import BrowsePage, BrowseQuery
from sessions_tui.tools.registry import TOOLS, UnknownToolError

__all__ = [
    "CONFIG_FILE_NAME",
    "CONFIG_PATH_ENV",
    "DB_NAME",
    "SESSION_KINDS",
    "TOOLS",
    "Announced",
    "AnnouncementView",
    "Backend",
    "BrowsePage",
    "BrowseQuery",
    "ChildView",
    "ConfigError",
    "DeliveryChanged",
    "EngineEvent",
    "EventCallback",
    "FollowStatus",
    "FollowTick",
    "ImportSummary",
    "LocalBackend",
    "MessageAppended",
    "NoOpenClawState",
    "PolicyRefused",
    "Requester",
    "RequesterView",
    "RunEnded",
    "RunStarted",
    "RunStreamed",
    "SendProgress",
    "SessionChanged",
    "StateDirError",
    "StoreError",
    "ToolInputError",
    "ToolSpec",
    "UnknownToolError",
    "agent_id_of",
    "config_path_origin",
    "is_send_command",
    "kind_of",
    "looks_like_session_id",
    "looks_like_session_key",
    "open_local",
    "require_agents",
    "row_matches",
    "resolve_config_path",
    "resolve_state_dir",
]
