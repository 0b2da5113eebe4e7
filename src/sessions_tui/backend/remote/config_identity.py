"""Keys, identity and the clock of a backend whose sessions live elsewhere, answered here from a
config it holds (a `sessions-tui serve`'s public config; an OpenClaw gateway's defaults) and the
other side's clock: the `Identifying` half of `Backend` that needs no I/O."""

from __future__ import annotations

import time

from sessions_tui.backend.contract.types import Requester, RequesterView
from sessions_tui.backend.local.describe import describe_requester
from sessions_tui.engine.config.policies import ConfigPolicies
from sessions_tui.engine.sessions.keys import DEFAULT_AGENT_ID


class ConfigIdentity:
    """Mixed into a backend that sets `_policies` (the config's rules; its redactor the built-in
    rules) and keeps `_skew_ms` (the other side's clock minus this machine's)."""

    _policies: ConfigPolicies
    _skew_ms: int = 0

    def _clock_from(self, other_ms: int, asked: float) -> None:
        """The skew, from the other side's time `other_ms` in an answer asked at `asked` (time.time()),
        taken as meant for the middle of the round trip."""
        self._skew_ms = other_ms - int((asked + time.time()) / 2 * 1000)

    def now(self) -> int:
        """The other side's clock: ages and countdowns agree with the times its rows and events carry."""
        return int(time.time() * 1000) + self._skew_ms

    @property
    def stuck_after_minutes(self) -> int:
        return self._policies.config.ui.stuck_after_minutes

    def canonical(self, key: str) -> str:
        return self._policies.canonical(key)

    def display(self, key: str, viewer_agent_id: str | None = None) -> str:
        return self._policies.shown_key(key, viewer_agent_id or DEFAULT_AGENT_ID)

    def main_session_key(self) -> str:
        return self._policies.main_session_key()

    def is_sandboxed(self, key: str) -> bool:
        return self._policies.is_sandboxed(key)

    def describe_requester(self, requester: Requester) -> RequesterView:
        return describe_requester(self._policies, requester)

    def redact(self, text: str) -> str:
        return self._policies.redactor.redact(text)
