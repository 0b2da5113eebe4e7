"""What `sessions-tui serve` runs with: where it listens, its token, its limits, its tool lists."""

from __future__ import annotations

import ipaddress

from pydantic import ConfigDict, Field, SecretStr

from sessions_tui.backend.values.vocabulary import LazyModel

DEFAULT_PORT = 18789
"""OpenClaw's gateway port."""

MAX_BODY_BYTES = 2 * 1024 * 1024
"""The gateway's request body limit."""


HOOKS_MAX_BODY_BYTES = 256 * 1024
"""OpenClaw's hook body limit."""


class HookSettings(LazyModel):
    """How `POST <path>/agent` and `<path>/wake` answer (the config's `hooks` section, enabled):
    the hook token, the base path, the body limit, the failed-auth throttle (OpenClaw's: 20
    failures in a minute lock a client out for a minute, loopback too), and the channels a hook's
    reply may be delivered to."""

    model_config = ConfigDict(frozen=True)

    token: SecretStr
    path: str = "/hooks"
    max_body_bytes: int = HOOKS_MAX_BODY_BYTES
    body_timeout_s: float = 30.0
    auth_max_failures: int = 20
    auth_window_s: float = 60.0
    auth_lockout_s: float = 60.0
    channels: tuple[str, ...] = ()
    default_session_key: str | None = None
    """`hooks.defaultSessionKey`: part of what a replay must repeat."""


class ServerSettings(LazyModel):
    """The HTTP face's settings, from the command line, the config's `gateway` section and the environment."""

    model_config = ConfigDict(frozen=True)

    host: str = "127.0.0.1"
    port: int = Field(default=DEFAULT_PORT, ge=0, le=65535)
    token: SecretStr
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    max_body_bytes: int = MAX_BODY_BYTES
    body_timeout_s: float = 30.0
    """A request's body must arrive within this long (a slow or stalled upload ends with 408)."""
    header_timeout_s: float = 10.0
    """A connection must send a whole request head within this long, or it is closed."""
    keep_alive_s: int = 5
    auth_max_failures: int = 10
    auth_window_s: float = 60.0
    auth_lockout_s: float = 300.0
    event_queue: int = 2000
    """Events held for one slow stream reader before its stream is ended (it reconnects and re-reads)."""
    hooks: HookSettings | None = None
    """Inbound hooks (server/hooks.py); None: off, their path is not found."""


def is_loopback_host(host: str) -> bool:
    """Whether a listening host (or a client address) is this machine only."""
    text = host.strip().strip("[]").lower()
    if text == "localhost":
        return True
    try:
        return ipaddress.ip_address(text).is_loopback
    except ValueError:
        return False
