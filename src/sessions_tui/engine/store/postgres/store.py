"""`Store` on PostgreSQL: the same object and repositories over a `PgDatabase`.

`PostgresStore` is the SQLite `Store` with its connection and transactions PostgreSQL's (database.py):
the session index (`sessions`, `browse.list_sessions`) and the transcripts (`transcripts`: appends,
lines, history windows; the text index's rows and the usage sums written with them); the run records
(`runs`, `run_controls`, `registry`, `outbox`, `audit`, `ledger`, and `left_to_pick_up` over them); search
(`text_index`, PostgreSQL's full-text search: text_search.py); the jobs and their runs (`cron`), the live
status (`activity`), usage reports (`usage`), the OpenClaw imports and follows (`imports`, `follows`), and
the session table's pages with their text filters and counts (`browse`: postgres/browse.py); and the
hosts sharing it (`processes`: postgres/hosts.py) and the changes they commit (`data_version`,
`watch_changes`: the events table).
"""

from __future__ import annotations

from pathlib import Path

from sessions_tui.engine.clock import Clock
from sessions_tui.engine.store.postgres.browse import PgBrowseRepository
from sessions_tui.engine.store.postgres.database import PgDatabase
from sessions_tui.engine.store.postgres.hosts import LEASE_MS
from sessions_tui.engine.store.postgres.text_search import PgTextIndexRepository
from sessions_tui.engine.store.store import Store


class PostgresStore(Store, PgDatabase):
    """The engine's records in one PostgreSQL database; mirror files in `state_dir`."""

    text_index_repository = PgTextIndexRepository
    browse_repository = PgBrowseRepository

    def __init__(
        self, url: str, state_dir: Path | str, clock: Clock | None = None, *, lease_ms: int = LEASE_MS
    ) -> None:
        self.url, self.lease_ms = url, lease_ms
        super().__init__(state_dir, clock)
