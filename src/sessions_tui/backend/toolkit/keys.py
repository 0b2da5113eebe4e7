"""What a person types that names a session, read as the engine reads it.

Session keys and ids in any spelling, the session kinds, the agent a key belongs to: config-free
helpers a face uses before it asks a backend (the owner's commands: commands.py).
"""

from __future__ import annotations

from sessions_tui.engine.sessions.keys import SESSION_KINDS, agent_id_of, looks_like_session_id, looks_like_session_key

__all__ = ["SESSION_KINDS", "agent_id_of", "looks_like_session_id", "looks_like_session_key"]
