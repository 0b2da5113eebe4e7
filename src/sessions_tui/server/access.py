"""Who may call, and which tools: bearer tokens, a lockout for repeated failures, the HTTP deny list.

As OpenClaw's gateway: the shared-secret bearer token is compared in constant time; a client
address that fails `max_failures` times within `window_s` is refused with 429 and `Retry-After`
for `lockout_s` (loopback clients never are, but by the hooks' lockout: `exempt_loopback`); tools
that act (`sessions_send`, `sessions_spawn`, …) are off over HTTP unless `gateway.tools.allow`
names them, and `gateway.tools.deny` wins over allow.
"""

from __future__ import annotations

import hmac
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from sessions_tui.server.settings import is_loopback_host

DEFAULT_HTTP_DENY = (
    "exec",
    "spawn",
    "shell",
    "fs_write",
    "fs_delete",
    "fs_move",
    "apply_patch",
    "sessions_spawn",
    "sessions_send",
    "cron",
    "gateway",
    "nodes",
    "whatsapp_login",
)
"""Tools `POST /tools/invoke` never offers by default: they act rather than read."""


def tool_name(name: str) -> str:
    return name.strip().lower()


def http_denied(allow: Iterable[str], deny: Iterable[str]) -> frozenset[str]:
    """The tools refused over HTTP: the default list minus `allow`, plus `deny` (which wins)."""
    allowed = {tool_name(n) for n in allow}
    return frozenset({n for n in DEFAULT_HTTP_DENY if n not in allowed} | {tool_name(n) for n in deny})


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer …` header (the scheme in any case), else None."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def token_matches(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


@dataclass
class _Failures:
    at: list[float] = field(default_factory=list)
    locked_until: float | None = None


class AuthLockout:
    """Failed authentications by client address; locks an address out after too many.

    Entries are pruned as they expire, and their number is bounded (`max_entries`): a flood of
    addresses cannot grow memory without limit.
    """

    def __init__(
        self,
        max_failures: int,
        window_s: float,
        lockout_s: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_entries: int = 10_000,
        exempt_loopback: bool = True,
    ) -> None:
        self.max_failures = max_failures
        self.window_s = window_s
        self.lockout_s = lockout_s
        self._clock = clock
        self._max_entries = max_entries
        self.exempt_loopback = exempt_loopback
        self._by_client: dict[str, _Failures] = {}

    def _refresh(self, entry: _Failures, now: float) -> None:
        if entry.locked_until is not None and now >= entry.locked_until:
            entry.locked_until = None
            entry.at.clear()
        entry.at = [t for t in entry.at if t > now - self.window_s]

    def retry_after(self, client: str | None) -> int | None:
        """Seconds until a locked-out client may try again; None when it may now."""
        if client is None or self._exempt(client):
            return None
        entry = self._by_client.get(client)
        if entry is None:
            return None
        now = self._clock()
        self._refresh(entry, now)
        if entry.locked_until is None and len(entry.at) >= self.max_failures:
            entry.locked_until = now + self.lockout_s
        if entry.locked_until is None:
            return None
        return max(1, math.ceil(entry.locked_until - now))

    def _exempt(self, client: str) -> bool:
        return self.exempt_loopback and is_loopback_host(client)

    def failed(self, client: str | None) -> None:
        if client is None or self._exempt(client):
            return
        now = self._clock()
        entry = self._by_client.get(client)
        if entry is None:
            if len(self._by_client) >= self._max_entries:
                self._prune(now)
            if len(self._by_client) >= self._max_entries:
                return  # full of live lockouts: a new address is not remembered
            entry = self._by_client[client] = _Failures()
        self._refresh(entry, now)
        entry.at.append(now)
        if len(entry.at) >= self.max_failures:
            entry.locked_until = now + self.lockout_s

    def succeeded(self, client: str | None) -> None:
        if client is not None:
            self._by_client.pop(client, None)

    def _prune(self, now: float) -> None:
        for client, entry in list(self._by_client.items()):
            self._refresh(entry, now)
            if entry.locked_until is None and not entry.at:
                del self._by_client[client]
