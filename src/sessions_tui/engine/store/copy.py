"""Moving a store: every table of one store copied as it is into an empty other (SQLite ⇄ PostgreSQL), then counted.

`copy_store(source, target)` reads the source in one snapshot and writes each table's rows into the target
in batches (`BATCH_ROWS` a transaction): every column as stored (transcript lines verbatim), ids and `rowid`s
kept so every reference between tables still holds; on PostgreSQL each identity is then moved past the ids
copied (the next row gets a new one). The columns are the PostgreSQL schema's own (its generated ones apart:
each store makes those itself), which are SQLite's column for column (postgres/schema.py). A target that
holds sessions, or any row but the two a new store writes for itself, is refused (`CopyRefused`, naming
it); then each table's rows are counted on both sides (`CopyReport`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sessions_tui.engine.store.connection import Database, StoreError

if TYPE_CHECKING:
    import sqlite3

TABLES = (
    "sessions",
    "transcript",
    "transcript_text",
    "transcript_text_state",
    "session_generations",
    "usage_hours",
    "usage_days",
    "usage_agent_hours",
    "runs",
    "run_controls",
    "subagent_runs",
    "outbox",
    "audit",
    "send_ledger",
    "send_ledger_state",
    "cron_jobs",
    "cron_runs",
    "session_seen",
    "imports",
    "openclaw_follows",
)
"""Every table of the store (both stores hold each), in the order they are copied."""
OWN_ROWS = ("transcript_text_state", "session_seen")
"""The tables a new store writes a row into for itself (the text index's state, the seen marks' horizon):
replaced by the source's."""
BATCH_ROWS = 1000


class CopyRefused(StoreError):
    """A copy that would mix two stores (a target that is not empty): the message names what it holds."""


@dataclass(frozen=True)
class TableCount:
    """One table's rows in the source and, after the copy, in the target."""

    table: str
    source: int
    target: int


@dataclass(frozen=True)
class CopyReport:
    """What a copy moved: each table's counts, in `TABLES`' order."""

    counts: tuple[TableCount, ...]

    @property
    def mismatched(self) -> tuple[str, ...]:
        """The tables whose counts differ (none after a good copy)."""
        return tuple(count.table for count in self.counts if count.source != count.target)


@dataclass(frozen=True)
class _Column:
    name: str
    identity: bool


def _is_postgres(db: Database) -> bool:
    from sessions_tui.engine.store.postgres.database import PgDatabase

    return isinstance(db, PgDatabase)


def _columns(pg: Database, table: str) -> list[_Column]:
    """The PostgreSQL schema's columns of `table` that a row is written with (not the generated ones)."""
    with pg.peek() as conn:
        rows = conn.execute(
            "SELECT column_name, is_identity FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND table_name = ? AND is_generated = 'NEVER' ORDER BY ordinal_position",
            (table,),
        ).fetchall()
    return [_Column(str(row[0]), row[1] == "YES") for row in rows]


def _count(conn: sqlite3.Connection, table: str) -> int:
    return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def check_empty(target: Database) -> None:
    """Refuse a target that holds anything but what a new store writes for itself."""
    with target.read() as conn:
        sessions = _count(conn, "sessions")
        if sessions:
            raise CopyRefused(f"it already holds {sessions} session{'s' if sessions != 1 else ''}")
        for table in TABLES:
            if table not in OWN_ROWS and _count(conn, table):
                raise CopyRefused(f"it already holds rows in {table}")


def copy_store(source: Database, target: Database, batch_rows: int = BATCH_ROWS) -> CopyReport:
    """Every table of `source` into the empty `target` (one of them on PostgreSQL, whose columns are
    copied), in batches; then each table counted on both sides."""
    pg = source if _is_postgres(source) else target
    check_empty(target)
    with target.write() as conn:
        for table in OWN_ROWS:
            conn.execute(f"DELETE FROM {table}")
    onto_postgres = _is_postgres(target)
    sqlite = source if pg is target else target
    with source.read() as reading:
        for table in TABLES:
            columns = _shared(_columns(pg, table), sqlite, table)
            names = ", ".join(column.name for column in columns)
            marks = ", ".join("?" for _ in columns)
            overriding = " OVERRIDING SYSTEM VALUE" if onto_postgres else ""
            insert = f"INSERT INTO {table} ({names}){overriding} VALUES ({marks})"
            for rows in _batches(reading.execute(f"SELECT {names} FROM {table}"), batch_rows):
                with target.write() as conn:
                    conn.executemany(insert, rows)
            if onto_postgres:
                _move_identities(target, table, columns)
        counts = tuple(TableCount(table, _count(reading, table), 0) for table in TABLES)
    _settle_text_index(source, target, onto_postgres)
    with target.read() as conn:
        return CopyReport(tuple(TableCount(c.table, c.source, _count(conn, c.table)) for c in counts))


def _shared(columns: list[_Column], sqlite: Database, table: str) -> list[_Column]:
    """The columns the SQLite side has too (PostgreSQL's own, such as the text index's `inline`, are not
    copied: they are settled after)."""
    with sqlite.peek() as conn:
        present = {str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")}
    return [column for column in columns if column.name in present or column.name == "rowid"]  # SQLite's own


def _settle_text_index(source: Database, target: Database, onto_postgres: bool) -> None:
    """The text index's state as the target reads it: PostgreSQL's appends index their own lines while
    it is caught up (`inline`) and only catch-up moves the watermark, SQLite's watermark moves with every
    line indexed; an index caught up on one side is caught up on the other."""
    with source.read() as conn:
        through = int(conn.execute("SELECT indexed_through FROM transcript_text_state WHERE id = 1").fetchone()[0])
        newest = int(conn.execute("SELECT coalesce(max(rowid), 0) FROM transcript").fetchone()[0])
        if not onto_postgres and conn.execute("SELECT inline FROM transcript_text_state WHERE id = 1").fetchone()[0]:
            through = max(through, newest)
    with target.write() as conn:
        if onto_postgres:
            conn.execute("UPDATE transcript_text_state SET inline = ? WHERE id = 1", (through >= newest,))
        else:
            conn.execute("UPDATE transcript_text_state SET indexed_through = ? WHERE id = 1", (through,))


def _batches(rows: Any, size: int) -> Iterator[list[Sequence[Any]]]:
    batch: list[Sequence[Any]] = []
    for row in rows:
        batch.append(tuple(row))
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _move_identities(pg: Database, table: str, columns: list[_Column]) -> None:
    """Each identity of `table` moved past the largest id copied: the next row gets a new one."""
    for column in columns:
        if column.identity:
            with pg.write() as conn:
                conn.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', '{column.name}'), max({column.name})) "
                    f"FROM {table} HAVING max({column.name}) IS NOT NULL"
                )
