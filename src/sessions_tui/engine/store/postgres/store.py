"""`Store` on PostgreSQL: the same object and repositories over a `PgDatabase`, and what is not there yet.

`PostgresStore` is the SQLite `Store` with its connection and transactions PostgreSQL's (database.py):
the session index (`sessions`, `browse.list_sessions`) and the transcripts (`transcripts`: appends,
lines, history windows; the text index's rows and the usage sums written with them), the jobs and their
runs (`cron`), the live status's seen marks (`activity`), usage reports (`usage`), and the OpenClaw imports
and follows (`imports`, `follows`). The rest of the
engine's records are not on PostgreSQL yet: asking for one raises `NotOnPostgres`, naming it, rather
than failing on a missing table.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from sessions_tui.engine.clock import Clock
from sessions_tui.engine.store import Store, StoreError
from sessions_tui.engine.store.postgres.database import PgDatabase

if TYPE_CHECKING:
    from sessions_tui.engine.store.tables.audit import AuditRepository
    from sessions_tui.engine.store.tables.ledger import LedgerRepository
    from sessions_tui.engine.store.tables.outbox import OutboxRepository
    from sessions_tui.engine.store.tables.registry import RegistryRepository
    from sessions_tui.engine.store.tables.run_controls import RunControlsRepository
    from sessions_tui.engine.store.tables.runs import RunsRepository

NOT_YET = (
    "runs",
    "run controls",
    "the sub-agent registry",
    "the outbox",
    "the audit",
    "the send ledger",
    "search",
)
"""What of the store is not on PostgreSQL yet (in the order a command meets them)."""


class NotOnPostgres(StoreError):
    """A part of the store asked for that is not on PostgreSQL yet; the message names it."""


def _not_yet(part: str) -> NoReturn:
    raise NotOnPostgres(f"{part}: not on PostgreSQL yet (the PostgreSQL store holds sessions and transcripts so far)")


class PostgresStore(Store, PgDatabase):
    """The session index and transcripts in one PostgreSQL database; mirror files in `state_dir`."""

    def __init__(self, url: str, state_dir: Path | str, clock: Clock | None = None) -> None:
        self.url = url
        super().__init__(state_dir, clock)

    @cached_property
    def runs(self) -> RunsRepository:
        _not_yet("runs")

    @cached_property
    def run_controls(self) -> RunControlsRepository:
        _not_yet("run controls")

    @cached_property
    def registry(self) -> RegistryRepository:
        _not_yet("the sub-agent registry")

    @cached_property
    def outbox(self) -> OutboxRepository:
        _not_yet("the outbox")

    @cached_property
    def audit(self) -> AuditRepository:
        _not_yet("the audit")

    @cached_property
    def ledger(self) -> LedgerRepository:
        _not_yet("the send ledger")

    def left_to_pick_up(self, now: int) -> bool:
        _not_yet("runs")
