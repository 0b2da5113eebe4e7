"""What `sessions-tui serve` runs with: where it listens, its token, its limits, its tool lists."""

from __future__ import annotations

import ipaddress

from pydantic import ConfigDict, Field, SecretStr

from sessions_tui.backend.values.vocabulary import LazyModel

DEFAULT_PORT = 18789
"""OpenClaw's gateway port."""

MAX_BODY_BYTES = 2 * 1024 * 1024
"""The gateway's request body limit."""


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


def is_loopback_host(host: str) -> bool:
    """Whether a listening host (or a client address) is this machine only."""
    text = host.strip().strip("[]").lower()
    if text == "localhost":
        return True
    try:
        return ipaddress.ip_address(text).is_loopback
    except ValueError:
        return False
