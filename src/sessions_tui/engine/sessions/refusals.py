"""Why something may not go into a session: the send policy, or the session is OpenClaw's."""

from __future__ import annotations

from pathlib import Path


class SendBlocked(Exception):
    """The send policy refused a way into a session; `reason` names the rule or override."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"send blocked by session policy: {reason}")
        self.reason = reason


class OwnedByOpenClaw(SendBlocked):
    """The session belongs to the OpenClaw it was imported or followed from (docs/decisions.md D17)."""

    def __init__(self, key: str, owner: Path) -> None:
        Exception.__init__(
            self,
            f"{key} lives in OpenClaw ({owner}): sessions-tui only mirrors it and never runs it; "
            "send to it through that OpenClaw",
        )
        self.reason = f"the session lives in OpenClaw ({owner})"
