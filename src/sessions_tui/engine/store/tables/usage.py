"""Usage by the hour, read: the sums of model turns' tokens and cost since a time, by a column or by time bucket.

The rows are written as transcript lines are (`store/usage_hours.py`), so reading usage over any span
reads a few rows per session and hour or day, never the transcripts; a read that needs no session (not
by session, not of some sessions) reads the hours per agent and model, fewer still.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from sessions_tui.engine.store.connection import Database
from sessions_tui.engine.store.usage_hours import DAY_MS, HOUR_MS

UsageColumn = Literal["agent_id", "session_key", "model"]

_COLUMNS = """agent_id, provider, model, turns, input, output, cache_read, total, reported_cost,
unreported_input, unreported_output, unreported_cache_read, unreported_turns"""
_SUMS = """sum(turns), sum(input), sum(output), sum(cache_read), sum(total), sum(reported_cost),
sum(unreported_input), sum(unreported_output), sum(unreported_cache_read), sum(unreported_turns)"""


@dataclass(frozen=True)
class UsageSums:
    """Usage summed over some rows of one provider's model: tokens, the cost providers reported, and
    the tokens of the turns that reported none (to be priced by the config)."""

    provider: str
    model: str
    turns: int = 0
    input: int = 0
    output: int = 0
    cache_read: int = 0
    total: int = 0
    reported_cost: float = 0.0
    unreported_input: int = 0
    unreported_output: int = 0
    unreported_cache_read: int = 0
    unreported_turns: int = 0


@dataclass(frozen=True)
class UsageRow:
    """One group's sums: `group` is the grouping column's value (or the bucket's start, in ms)."""

    group: str | int
    sums: UsageSums


def _sums(provider: Any, model: Any, values: tuple[Any, ...]) -> UsageSums:
    ints = [int(v or 0) for v in values]
    return UsageSums(
        provider=str(provider),
        model=str(model),
        turns=ints[0],
        input=ints[1],
        output=ints[2],
        cache_read=ints[3],
        total=ints[4],
        reported_cost=float(values[5] or 0.0),
        unreported_input=ints[6],
        unreported_output=ints[7],
        unreported_cache_read=ints[8],
        unreported_turns=ints[9],
    )


class UsageRepository:
    """The `usage_hours`, `usage_days` and `usage_agent_hours` tables: sums read by a column or by time
    bucket, since a time."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @staticmethod
    def _span(
        since: int,
        keys: Iterable[str] | None,
        agents: Iterable[str] | None = None,
        *,
        hours_only: bool = False,
        by_session: bool = False,
    ) -> tuple[str, list[Any]]:
        """The rows from `since`'s hour on, as one table (`at`: the row's start): the hours up to the
        next whole day, then whole days (every hour when `hours_only`); with neither `keys` nor
        `by_session`, the hours per agent (no session column); only `keys`' and `agents`' when given."""
        hour = since // HOUR_MS * HOUR_MS
        of_agents = sorted(set(agents)) if agents is not None else []
        agent_sql = f" AND agent_id IN ({','.join('?' * len(of_agents))})" if agents is not None else ""
        if keys is None and not by_session:
            return f"SELECT hour AS at, {_COLUMNS} FROM usage_agent_hours WHERE hour >= ?{agent_sql}", [
                hour,
                *of_agents,
            ]
        day = -(-hour // DAY_MS) * DAY_MS
        chosen = sorted(set(keys)) if keys is not None else None
        of_keys = f" AND session_key IN ({','.join('?' * len(chosen))})" if chosen is not None else ""
        of_keys += agent_sql
        narrowed = [*(chosen or []), *of_agents]
        columns = f"session_key, {_COLUMNS}"
        if hours_only:
            return f"SELECT hour AS at, {columns} FROM usage_hours WHERE hour >= ?{of_keys}", [hour, *narrowed]
        sql = (
            f"SELECT hour AS at, {columns} FROM usage_hours WHERE hour >= ? AND hour < ?{of_keys}"
            f" UNION ALL SELECT day AS at, {columns} FROM usage_days WHERE day >= ?{of_keys}"
        )
        return sql, [hour, day, *narrowed, day, *narrowed]

    def by_column(
        self, column: UsageColumn, since: int, keys: Iterable[str] | None = None, agents: Iterable[str] | None = None
    ) -> list[UsageRow]:
        """The sums per value of `column` (and per provider and model, to be priced), hours from `since`'s on."""
        span, args = self._span(since, keys, agents, by_session=column == "session_key")
        sql = f"SELECT {column}, provider, model, {_SUMS} FROM ({span}) AS span GROUP BY {column}, provider, model"
        with self.db.read() as conn:
            return [UsageRow(row[0], _sums(row[1], row[2], tuple(row[3:]))) for row in conn.execute(sql, args)]

    def by_bucket(
        self, bucket_ms: int, since: int, keys: Iterable[str] | None = None, agents: Iterable[str] | None = None
    ) -> list[UsageRow]:
        """The sums per time bucket of `bucket_ms` (an hour or a day, from the epoch in UTC), by provider and model."""
        span, args = self._span(since, keys, agents, hours_only=bucket_ms < DAY_MS)
        sql = (
            f"SELECT at / ? * ?, provider, model, {_SUMS} FROM ({span}) AS span GROUP BY 1, provider, model ORDER BY 1"
        )
        with self.db.read() as conn:
            return [
                UsageRow(int(row[0]), _sums(row[1], row[2], tuple(row[3:])))
                for row in conn.execute(sql, [bucket_ms, bucket_ms, *args])
            ]

    def tokens_by_session(self, keys: Iterable[str], since: int, bucket_ms: int) -> dict[str, dict[int, int]]:
        """The tokens of each of `keys` per bucket of `bucket_ms` (from the epoch, UTC) from `since`'s hour
        on: session -> bucket start -> tokens (a sparkline's; buckets without a turn left out)."""
        chosen = sorted(set(keys))
        if not chosen:
            return {}
        sql = (
            f"SELECT session_key, hour / ? * ?, sum(total) FROM usage_hours WHERE hour >= ?"
            f" AND session_key IN ({','.join('?' * len(chosen))}) GROUP BY 1, 2"
        )
        out: dict[str, dict[int, int]] = {}
        with self.db.read() as conn:
            for key, start, total in conn.execute(sql, [bucket_ms, bucket_ms, since // HOUR_MS * HOUR_MS, *chosen]):
                out.setdefault(str(key), {})[int(start)] = int(total or 0)
        return out
