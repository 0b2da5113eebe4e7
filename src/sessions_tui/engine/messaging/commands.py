"""The owner's standalone commands: `/send on|off|inherit`, answered as OpenClaw answers it
(`⚙️ Send policy set to on.`, `⚙️ Usage: /send on|off|inherit`; docs/decisions.md D15).

Only a person — the dashboard's operator or `sessions-tui send` — is the owner; from an agent
(`sessions_send`) the same text is an ordinary message.
"""

from __future__ import annotations

import re
from typing import Literal

from sessions_tui.engine.events import SessionChanged
from sessions_tui.engine.hosts import OwnedFloor

SEND_COMMAND_RE = re.compile(r"^/send(?:\s+([a-zA-Z]+))?\s*$", re.IGNORECASE)
_MODES: dict[str, Literal["allow", "deny", "inherit"]] = {
    "on": "allow",
    "allow": "allow",
    "off": "deny",
    "deny": "deny",
    "inherit": "inherit",
    "default": "inherit",
    "reset": "inherit",
}
_SAID = {"allow": "on", "deny": "off", "inherit": "inherit"}
USAGE_REPLY = "⚙️ Usage: /send on|off|inherit"


CommandsHost = OwnedFloor
"""What the owner's commands need of the engine: its store, event bus and clock, and session owners."""


class SessionPatchError(ValueError):
    pass


def is_send_command(text: str) -> bool:
    return bool(SEND_COMMAND_RE.match(text.strip()))


def set_send_policy(engine: CommandsHost, key: str, value: str | None) -> None:
    """`sessions.patch {sendPolicy}`: "allow", "deny", or None to inherit the config."""
    if value is not None and value not in ("allow", "deny"):
        raise SessionPatchError('invalid sendPolicy (use "allow"|"deny")')
    engine.store.sessions.patch(key, {"sendPolicy": value})
    engine.events.publish(SessionChanged(ts=engine.now(), session_key=key))


def run_owner_command(engine: CommandsHost, key: str, text: str) -> str | None:
    """Carry out a standalone owner command in a session; returns its reply, None if it is not one."""
    match = SEND_COMMAND_RE.match(text.strip())
    if not match:
        return None
    mode = _MODES.get((match.group(1) or "").lower())
    if mode is None:
        return USAGE_REPLY
    owner = engine.owner_of(key)
    if owner is not None:
        return f"⚙️ This session lives in OpenClaw ({owner}): set its send policy there."
    set_send_policy(engine, key, None if mode == "inherit" else mode)
    return f"⚙️ Send policy set to {_SAID[mode]}."
