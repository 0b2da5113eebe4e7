"""`Store` on PostgreSQL: the same object and repositories over a `PgDatabase`, and what is not there yet.

`PostgresStore` is the SQLite `Store` with its connection and transactions PostgreSQL's (database.py):
the session index (`sessions`, `browse.list_sessions`) and the transcripts (`transcripts`: appends,
lines, history windows; the text index's rows and the usage sums written with them); the run records
(`runs`, `run_controls`, `registry`, `outbox`, `audit`, `ledger`, and `left_to_pick_up` over them); and
search (`text_index`, PostgreSQL's full-text search: text_search.py). The rest of the engine's records
are not on PostgreSQL yet: asking for one raises `NotOnPostgres`, naming it, rather than failing on a
missing table.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from sessions_tui.engine.clock import Clock
from sessions_tui.engine.store import Store, StoreError
from sessions_tui.engine.store.postgres.database import PgDatabase
from sessions_tui.engine.store.postgres.text_search import PgTextIndexRepository

if TYPE_CHECKING:
    from sessions_tui.engine.store.tables.activity import ActivityRepository
    from sessions_tui.engine.store.tables.cron import CronRepository
    from sessions_tui.engine.store.tables.usage import UsageRepository

NOT_YET = (
    "cron jobs",
    "the live status",
    "usage reports",
    "imports",
)
"""What of the store is not on PostgreSQL yet (in the order a command meets them)."""


class NotOnPostgres(StoreError):
    """A part of the store asked for that is not on PostgreSQL yet; the message names it."""


def _not_yet(part: str) -> NoReturn:
    raise NotOnPostgres(
        f"{part}: not on PostgreSQL yet (the PostgreSQL store holds sessions, transcripts and run records so far)"
    )


class PostgresStore(Store, PgDatabase):
    """The session index, transcripts and run records in one PostgreSQL database; mirror files in `state_dir`."""

    text_index_repository = PgTextIndexRepository

    def __init__(self, url: str, state_dir: Path | str, clock: Clock | None = None) -> None:
        self.url = url
        super().__init__(state_dir, clock)

    @cached_property
    def cron(self) -> CronRepository:
        _not_yet("cron jobs")

    @cached_property
    def activity(self) -> ActivityRepository:
        _not_yet("the live status")

    @cached_property
    def usage(self) -> UsageRepository:
        _not_yet("usage reports")
