"""Usage and its estimated cost: tokens and dollars of model turns since a time, by agent, model, session, time.

Read from the store's sums by the hour (`store/tables/usage.py`), never from transcripts. A turn's cost is
what its provider reported, else its tokens at the config's price of its model (`llm/pricing.py`); the
tokens of a model with neither are counted and said to be unpriced (`unpriced_turns`), never costed 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, get_args

from sessions_tui.engine.config import Config
from sessions_tui.engine.llm.pricing import PER, model_price
from sessions_tui.engine.store import Store
from sessions_tui.engine.store.tables.usage import UsageColumn, UsageRow, UsageSums
from sessions_tui.engine.store.usage_hours import DAY_MS, HOUR_MS

UsageGrouping = Literal["agent", "model", "session"]
UsageBucket = Literal["hour", "day"]
USAGE_GROUPINGS: tuple[UsageGrouping, ...] = get_args(UsageGrouping)
USAGE_BUCKETS: tuple[UsageBucket, ...] = get_args(UsageBucket)
_COLUMNS: dict[UsageGrouping, UsageColumn] = {"agent": "agent_id", "model": "model", "session": "session_key"}
_BUCKET_MS: dict[UsageBucket, int] = {"hour": HOUR_MS, "day": DAY_MS}


@dataclass(frozen=True)
class UsageQuery:
    """What usage to read: turns from `since` (ms; whole hours, so the hour it falls in counts), grouped
    `by` a column and bucketed `every` hour or day (UTC); `keys`, when given, only those sessions'."""

    since: int
    by: UsageGrouping = "agent"
    every: UsageBucket = "day"
    keys: tuple[str, ...] | None = None


@dataclass(frozen=True)
class UsageTotals:
    """Tokens and estimated cost of some turns. `cost_usd` is what is known (reported or priced);
    `unpriced_turns` of them had no price, so their cost is not in it."""

    turns: int = 0
    input: int = 0
    output: int = 0
    cache_read: int = 0
    total_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_turns: int = 0

    def plus(self, other: UsageTotals) -> UsageTotals:
        return UsageTotals(
            turns=self.turns + other.turns,
            input=self.input + other.input,
            output=self.output + other.output,
            cache_read=self.cache_read + other.cache_read,
            total_tokens=self.total_tokens + other.total_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            unpriced_turns=self.unpriced_turns + other.unpriced_turns,
        )


@dataclass(frozen=True)
class UsageGroup:
    """One agent's, model's (`provider/model`) or session's usage."""

    name: str
    totals: UsageTotals


@dataclass(frozen=True)
class UsagePoint:
    """One hour's or day's usage; `start` in ms."""

    start: int
    totals: UsageTotals


@dataclass(frozen=True)
class UsageReport:
    """Usage since `since`: in all, by group (most costly first, then most tokens), and over time (oldest first).
    `note`: what the backend that answered could not say as asked (an OpenClaw gateway's: whole days, its own
    estimate), None when it said it all."""

    since: int
    by: UsageGrouping
    every: UsageBucket
    total: UsageTotals = field(default_factory=UsageTotals)
    groups: tuple[UsageGroup, ...] = ()
    series: tuple[UsagePoint, ...] = ()
    note: str | None = None


def model_name(provider: str, model: str) -> str:
    """A model as the report names it: `provider/model`, or what of it is known."""
    if provider and model:
        return f"{provider}/{model}"
    return model or provider or "unknown"


def priced(config: Config, sums: UsageSums) -> UsageTotals:
    """Sums of one model as totals: the reported cost, plus the config's price of the rest."""
    cost, unpriced = sums.reported_cost, 0
    if sums.unreported_turns:
        price = model_price(config, sums.provider, sums.model)
        if price is None:
            unpriced = sums.unreported_turns
        else:
            uncached = max(0, sums.unreported_input - sums.unreported_cache_read)
            cost += (
                uncached * price.input
                + sums.unreported_cache_read * price.cache_read
                + sums.unreported_output * price.output
            ) / PER
    return UsageTotals(
        turns=sums.turns,
        input=sums.input,
        output=sums.output,
        cache_read=sums.cache_read,
        total_tokens=sums.total,
        cost_usd=cost,
        unpriced_turns=unpriced,
    )


def _folded(config: Config, rows: Iterable[UsageRow], name_of_model: bool) -> dict[str | int, UsageTotals]:
    out: dict[str | int, UsageTotals] = {}
    for row in rows:
        group = model_name(row.sums.provider, row.sums.model) if name_of_model else row.group
        out[group] = out.get(group, UsageTotals()).plus(priced(config, row.sums))
    return out


def usage_report(store: Store, config: Config, query: UsageQuery) -> UsageReport:
    """The usage `query` asks for (two reads of the hourly sums)."""
    column = _COLUMNS[query.by]
    by_group = _folded(config, store.usage.by_column(column, query.since, keys=query.keys), query.by == "model")
    by_time = _folded(config, store.usage.by_bucket(_BUCKET_MS[query.every], query.since, keys=query.keys), False)
    total = UsageTotals()
    for totals in by_group.values():
        total = total.plus(totals)
    groups = sorted(
        (UsageGroup(str(name), totals) for name, totals in by_group.items()),
        key=lambda g: (-g.totals.cost_usd, -g.totals.total_tokens, g.name),
    )
    series = sorted((UsagePoint(int(start), totals) for start, totals in by_time.items()), key=lambda p: p.start)
    return UsageReport(
        since=query.since, by=query.by, every=query.every, total=total, groups=tuple(groups), series=tuple(series)
    )
