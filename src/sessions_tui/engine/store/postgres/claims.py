"""Claiming due rows across hosts with `FOR UPDATE SKIP LOCKED`: each due row (an outbox delivery, an
announce, a due cron job) handled by exactly one host (SPEC D26).

Generic over a table: a `Claimable` names it, its key and its due time (ms since the epoch), and
`create` gives it three columns of the claim's (`claimed_by`, `claimed_until`, `done_at`). `claim`
takes a batch of due rows no one holds — rows another host is claiming at that moment are skipped,
not waited for — and marks them this host's until `now + timeout_ms`; `done` marks them handled,
`release` hands them back on a failure (due again at once or at a later retry time). A host that
dies holding a claim stops nothing: after the timeout its rows are due to be claimed again. So a
row is marked done once; what it does outside the database (a delivery's POST) is at least once
when a host dies between doing it and `done` (a delivery's idempotency key covers that).

Not in the engine's path yet: while every write transaction holds the store's one write lock
(database.py), the repositories claim in write transactions that take turns across hosts, which is
exactly once already; these claims are for when writes stop taking turns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from psycopg import sql

from sessions_tui.engine.store.postgres.source import Source, transaction

K = TypeVar("K", int, str)

CLAIM_TIMEOUT_MS = 60_000
"""How long a claim holds by default: a host that has not marked its rows by then is taken for dead."""


@dataclass(frozen=True)
class Claimable:
    """A table whose due rows hosts claim: its name, its key column, and its due-time column."""

    table: str
    key: str = "id"
    due: str = "due_at"


def create(source: Source, claimable: Claimable) -> None:
    """The claim's columns on the table, and an index on what is due and unfinished (idempotent)."""
    t = sql.Identifier(claimable.table)
    index = sql.Identifier(f"{claimable.table}_claimable")
    with transaction(source) as conn:
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"claims:{claimable.table}",))
        conn.execute(
            sql.SQL(
                "ALTER TABLE {t} ADD COLUMN IF NOT EXISTS claimed_by text,"
                " ADD COLUMN IF NOT EXISTS claimed_until bigint, ADD COLUMN IF NOT EXISTS done_at bigint"
            ).format(t=t)
        )
        conn.execute(
            sql.SQL("CREATE INDEX IF NOT EXISTS {index} ON {t} ({due}, {key}) WHERE done_at IS NULL").format(
                index=index, t=t, due=sql.Identifier(claimable.due), key=sql.Identifier(claimable.key)
            )
        )


class Claims(Generic[K]):
    """Claims on one table's due rows; `K` the type of its key."""

    def __init__(self, source: Source, claimable: Claimable, timeout_ms: int = CLAIM_TIMEOUT_MS) -> None:
        if timeout_ms <= 0:
            raise ValueError(f"timeout_ms must be positive, not {timeout_ms}")
        self.source, self.claimable, self.timeout_ms = source, claimable, timeout_ms
        self._names: dict[str, Any] = {
            "t": sql.Identifier(claimable.table),
            "key": sql.Identifier(claimable.key),
            "due": sql.Identifier(claimable.due),
        }

    def claim(self, host: str, now: int, limit: int = 100) -> list[K]:
        """Up to `limit` due rows, unfinished and unclaimed (or their claim timed out), made `host`'s
        until `now + timeout_ms`, earliest due first; their keys. Rows another host is claiming right
        now are skipped: two hosts claiming at once get different rows."""
        query = sql.SQL(
            "WITH picked AS ("
            " SELECT {key} FROM {t} WHERE done_at IS NULL AND {due} <= %(now)s"
            " AND (claimed_until IS NULL OR claimed_until <= %(now)s)"
            " ORDER BY {due}, {key} LIMIT %(limit)s FOR UPDATE SKIP LOCKED)"
            " UPDATE {t} SET claimed_by = %(host)s, claimed_until = %(until)s"
            " FROM picked WHERE {t}.{key} = picked.{key} RETURNING {t}.{key}, {t}.{due}"
        ).format(**self._names)
        params = {"now": now, "limit": limit, "host": host, "until": now + self.timeout_ms}
        with transaction(self.source) as conn:
            rows = conn.execute(query, params).fetchall()
        rows.sort(key=lambda row: (row[1], row[0]))
        return [cast(K, row[0]) for row in rows]

    def done(self, host: str, keys: list[K], now: int) -> list[K]:
        """Mark `host`'s claimed rows handled; the keys marked (a claim that timed out and went to
        another host is not `host`'s any more, and is left to that host)."""
        query = sql.SQL(
            "UPDATE {t} SET done_at = %(now)s, claimed_until = NULL"
            " WHERE {key} = ANY(%(keys)s) AND claimed_by = %(host)s AND done_at IS NULL RETURNING {key}"
        ).format(**self._names)
        with transaction(self.source) as conn:
            rows = conn.execute(query, {"now": now, "keys": list(keys), "host": host}).fetchall()
        return [cast(K, row[0]) for row in rows]

    def release(self, host: str, keys: list[K], retry_at: int | None = None) -> list[K]:
        """Hand `host`'s claimed rows back after a failure: due again at once, or at `retry_at` (a
        backoff); the keys released."""
        query = sql.SQL(
            "UPDATE {t} SET claimed_by = NULL, claimed_until = NULL, {due} = COALESCE(%(retry_at)s, {due})"
            " WHERE {key} = ANY(%(keys)s) AND claimed_by = %(host)s AND done_at IS NULL RETURNING {key}"
        ).format(**self._names)
        with transaction(self.source) as conn:
            rows = conn.execute(query, {"retry_at": retry_at, "keys": list(keys), "host": host}).fetchall()
        return [cast(K, row[0]) for row in rows]

    def pending(self, now: int) -> int:
        """How many rows are unfinished and due by `now` (claimed or not)."""
        query = sql.SQL("SELECT count(*) FROM {t} WHERE done_at IS NULL AND {due} <= %(now)s").format(**self._names)
        with transaction(self.source) as conn:
            row = conn.execute(query, {"now": now}).fetchone()
        return int(row[0]) if row else 0
