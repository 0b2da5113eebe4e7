"""The `store` section, sessions-tui's own: how a host behaves on a store shared by several (PostgreSQL)."""

from pydantic import Field

from sessions_tui.engine.config.model.base import ConfigModel, FlooredInt

__all__ = ["LEASE_SECONDS", "StoreConfig"]

LEASE_SECONDS = 15
"""A host's lease by default."""


class StoreConfig(ConfigModel):
    """`store`: where the sessions are stored when no `--store` or `$SESSIONS_TUI_STORE` says, and on a
    PostgreSQL store how long a host that stops renewing keeps what it runs."""

    location: str | None = Field(
        default=None,
        description='Where the sessions are stored: "postgresql://[user@]host[:port]/dbname" (its password from '
        'PGPASSWORD or a password file, never here: a URL holding one is refused) or "sqlite" (the state '
        "directory's own); `--store` and $SESSIONS_TUI_STORE come first. Default: the state directory's SQLite.",
    )

    lease_seconds: FlooredInt = Field(
        default=LEASE_SECONDS,
        alias="leaseSeconds",
        description="On a PostgreSQL store shared by several hosts: how long a host that stopped renewing "
        "(it died, or stalled) keeps its runs, deliveries and announces before another host ends its runs "
        "as interrupted and takes the rest over; renewed every third of it. 3–3600; default 15.",
    )
