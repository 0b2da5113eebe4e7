"""The owner's commands a face recognises in what is typed: `/send on|off|inherit` in a session.

Loaded only by the faces that send (the composer, `sessions-tui send`); `backend.owner_command`
carries one out where the backend has `Capability.CONTROL`.
"""

from __future__ import annotations

from sessions_tui.engine.messaging.commands import is_send_command

__all__ = ["is_send_command"]
