"""`Store`: one state directory's SQLite database (`connection.Database`: its connection, transactions,
paths and damage) composed of one repository per table family (the package's docstring lists them)."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from sessions_tui.engine.clock import Clock
from sessions_tui.engine.store.browsing.browse import BrowseRepository
from sessions_tui.engine.store.connection import Database
from sessions_tui.engine.store.tables.sessions import SessionsRepository
from sessions_tui.engine.store.tables.text_index import TextIndexRepository

if TYPE_CHECKING:  # the tables a listing does not read load when first used (`Store`)
    from sessions_tui.engine.store.tables.activity import ActivityRepository
    from sessions_tui.engine.store.tables.audit import AuditRepository
    from sessions_tui.engine.store.tables.cron import CronRepository
    from sessions_tui.engine.store.tables.follows import FollowsRepository
    from sessions_tui.engine.store.tables.imports import ImportsRepository
    from sessions_tui.engine.store.tables.ledger import LedgerRepository
    from sessions_tui.engine.store.tables.outbox import OutboxRepository
    from sessions_tui.engine.store.tables.registry import RegistryRepository
    from sessions_tui.engine.store.tables.run_controls import RunControlsRepository
    from sessions_tui.engine.store.tables.runs import RunsRepository
    from sessions_tui.engine.store.tables.transcripts import TranscriptsRepository
    from sessions_tui.engine.store.tables.usage import UsageRepository


class Store(Database):
    """The session index and transcripts of one state directory, and the engine's records beside them:
    the database's connection and transactions, and one repository per table family on it."""

    text_index_repository: type[TextIndexRepository] = TextIndexRepository
    """The text index's repository (PostgreSQL's searches with its own full-text search)."""
    browse_repository: type[BrowseRepository] = BrowseRepository
    """The session table's pages (PostgreSQL's: its own text filters and counts)."""

    def __init__(self, state_dir: Path | str, clock: Clock | None = None) -> None:
        super().__init__(state_dir, clock)
        self.sessions = SessionsRepository(self)
        self.text_index = self.text_index_repository(self)
        self.browse = self.browse_repository(self)

    # The transcripts, the OpenClaw imports and follows, and the engine's own records, each built
    # (and its module loaded) when first used: a `tool` call that lists sessions touches none of them.

    @cached_property
    def transcripts(self) -> TranscriptsRepository:
        from sessions_tui.engine.store.tables.transcripts import TranscriptsRepository

        return TranscriptsRepository(self, self.sessions, self.text_index)

    @cached_property
    def imports(self) -> ImportsRepository:
        from sessions_tui.engine.store.tables.imports import ImportsRepository

        return ImportsRepository(self, self.sessions, self.transcripts, self.text_index)

    @cached_property
    def follows(self) -> FollowsRepository:
        from sessions_tui.engine.store.tables.follows import FollowsRepository

        return FollowsRepository(self)

    @cached_property
    def runs(self) -> RunsRepository:
        from sessions_tui.engine.store.tables.runs import RunsRepository

        return RunsRepository(self)

    @cached_property
    def run_controls(self) -> RunControlsRepository:
        from sessions_tui.engine.store.tables.run_controls import RunControlsRepository

        return RunControlsRepository(self)

    @cached_property
    def registry(self) -> RegistryRepository:
        from sessions_tui.engine.store.tables.registry import RegistryRepository

        return RegistryRepository(self)

    @cached_property
    def outbox(self) -> OutboxRepository:
        from sessions_tui.engine.store.tables.outbox import OutboxRepository

        return OutboxRepository(self)

    @cached_property
    def audit(self) -> AuditRepository:
        from sessions_tui.engine.store.tables.audit import AuditRepository

        return AuditRepository(self)

    @cached_property
    def ledger(self) -> LedgerRepository:
        from sessions_tui.engine.store.tables.ledger import LedgerRepository

        return LedgerRepository(self)

    @cached_property
    def cron(self) -> CronRepository:
        from sessions_tui.engine.store.tables.cron import CronRepository

        return CronRepository(self)

    @cached_property
    def activity(self) -> ActivityRepository:
        from sessions_tui.engine.store.tables.activity import ActivityRepository

        return ActivityRepository(self)

    @cached_property
    def usage(self) -> UsageRepository:
        from sessions_tui.engine.store.tables.usage import UsageRepository

        return UsageRepository(self)

    def left_to_pick_up(self, now: int) -> bool:
        """Whether the store holds anything start-up may have to pick up (engine time `now`): a run
        queued or running, a send's flow under way, a delivery pending, a run control unanswered,
        a sub-agent run unannounced, or a child due for archiving. One read: a process that finds
        none loads nothing of what picks them up."""
        with self.read() as conn:
            row = conn.execute(
                "SELECT EXISTS (SELECT 1 FROM runs WHERE status IN ('queued', 'running'))"
                " OR EXISTS (SELECT 1 FROM send_ledger WHERE flow_pid IS NOT NULL)"
                " OR EXISTS (SELECT 1 FROM outbox WHERE state = 'pending')"
                " OR EXISTS (SELECT 1 FROM run_controls WHERE done_at IS NULL)"
                " OR EXISTS (SELECT 1 FROM subagent_runs WHERE announce_state != 'done')"
                " OR EXISTS (SELECT 1 FROM subagent_runs AS r JOIN sessions AS s ON s.key = r.child_key"
                " WHERE r.archive_at IS NOT NULL AND r.archive_at <= ? AND s.archived_at IS NULL)",
                (now,),
            ).fetchone()
        return bool(row[0])

    def close(self) -> None:
        self.browse.close()
        super().close()
