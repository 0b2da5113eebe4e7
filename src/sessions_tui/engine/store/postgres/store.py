"""`Store` on PostgreSQL: the same object and repositories over a `PgDatabase`, and what is not there yet.

`PostgresStore` is the SQLite `Store` with its connection and transactions PostgreSQL's (database.py):
the session index (`sessions`, `browse.list_sessions`) and the transcripts (`transcripts`: appends,
lines, history windows; the text index's rows and the usage sums written with them); the run records
(`runs`, `run_controls`, `registry`, `outbox`, `audit`, `ledger`, and `left_to_pick_up` over them); search
(`text_index`, PostgreSQL's full-text search: text_search.py); the jobs and their runs (`cron`), the live
status (`activity`), usage reports (`usage`), the OpenClaw imports and follows (`imports`, `follows`), and
the session table's pages with their text filters and counts (`browse`: postgres/browse.py).
What is not there yet (`NOT_YET`: the hosts' coordination wired into the engine) keeps every command off
PostgreSQL, saying so (backend/toolkit/state_dir.py).
"""

from __future__ import annotations

from pathlib import Path

from sessions_tui.engine.clock import Clock
from sessions_tui.engine.store import Store
from sessions_tui.engine.store.postgres.browse import PgBrowseRepository
from sessions_tui.engine.store.postgres.database import PgDatabase
from sessions_tui.engine.store.postgres.hosts import LEASE_MS
from sessions_tui.engine.store.postgres.text_search import PgTextIndexRepository

NOT_YET = ("the hosts' leases, claims and events wired into the engine",)
"""What of the store is not on PostgreSQL yet (in the order a command meets them)."""


class PostgresStore(Store, PgDatabase):
    """The engine's records in one PostgreSQL database; mirror files in `state_dir`."""

    text_index_repository = PgTextIndexRepository
    browse_repository = PgBrowseRepository

    def __init__(
        self, url: str, state_dir: Path | str, clock: Clock | None = None, *, lease_ms: int = LEASE_MS
    ) -> None:
        self.url, self.lease_ms = url, lease_ms
        super().__init__(state_dir, clock)
