"""The `store` section, sessions-tui's own: how a host behaves on a store shared by several (PostgreSQL)."""

from pydantic import Field

from sessions_tui.engine.config.base import ConfigModel, FlooredInt

__all__ = ["LEASE_SECONDS", "StoreConfig"]

LEASE_SECONDS = 15
"""A host's lease by default."""


class StoreConfig(ConfigModel):
    """`store`: on a PostgreSQL store (`--store`), how long a host that stops renewing keeps what it runs."""

    lease_seconds: FlooredInt = Field(
        default=LEASE_SECONDS,
        alias="leaseSeconds",
        description="On a PostgreSQL store shared by several hosts: how long a host that stopped renewing "
        "(it died, or stalled) keeps its runs, deliveries and announces before another host ends its runs "
        "as interrupted and takes the rest over; renewed every third of it. 3–3600; default 15.",
    )
