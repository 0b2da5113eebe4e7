"""What a person types that names a session or commands one, read as the engine reads it.

Session keys and ids in any spelling, the session kinds, the agent a key belongs to, and whether
a text is the owner's `/send` command: config-free helpers a face uses before it asks a backend.
"""

from __future__ import annotations

from sessions_tui.engine.messaging.commands import is_send_command
from sessions_tui.engine.sessions.keys import SESSION_KINDS, agent_id_of, looks_like_session_id, looks_like_session_key

__all__ = ["SESSION_KINDS", "agent_id_of", "is_send_command", "looks_like_session_id", "looks_like_session_key"]
