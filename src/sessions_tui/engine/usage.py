"""Usage and its estimated cost: tokens and dollars of model turns since a time, by agent, model, session, time,
and down a session's spawn tree.

Read from the store's sums by the hour (`store/tables/usage.py`), never from transcripts. A turn's cost is
what its provider reported, else its tokens at the config's price of its model (`llm/pricing.py`); the
tokens of a model with neither are counted and said to be unpriced (`unpriced_turns`), never costed 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, get_args

from sessions_tui.engine.config import Config
from sessions_tui.engine.llm.pricing import PER, model_price
from sessions_tui.engine.sessions.keys import agent_id_of
from sessions_tui.engine.store.tables.usage import UsageColumn, UsageRow, UsageSums
from sessions_tui.engine.store.usage_hours import DAY_MS, HOUR_MS

if TYPE_CHECKING:
    from sessions_tui.engine.store.store import Store

UsageGrouping = Literal["agent", "model", "session"]
UsageBucket = Literal["hour", "day"]
USAGE_GROUPINGS: tuple[UsageGrouping, ...] = get_args(UsageGrouping)
USAGE_BUCKETS: tuple[UsageBucket, ...] = get_args(UsageBucket)
_COLUMNS: dict[UsageGrouping, UsageColumn] = {"agent": "agent_id", "model": "model", "session": "session_key"}
_BUCKET_MS: dict[UsageBucket, int] = {"hour": HOUR_MS, "day": DAY_MS}
MAX_DEPTH = 16  # a spawn tree's levels read at most (as the spawn panel's)
TREE_LIMIT = 200  # a spawn tree's sessions read at most


@dataclass(frozen=True)
class UsageQuery:
    """What usage to read: turns from `since` (ms; whole hours, so the hour it falls in counts), grouped
    `by` a column and bucketed `every` hour or day (UTC); `keys`, when given, only those sessions';
    `agents`, when given, only those agents' sessions. `tree_of`: also the roll-up of that session's
    spawn tree (`UsageReport.tree`). `requester`: as that session's tools would see it (its visibility,
    `sandboxed` or not), None: the operator's, everything; the engine does not read it: the backend
    narrows `keys` and `agents` to what the requester may see first (tools/reading/usage_view.py).
    `activity_ms`: only each session's tokens per bucket of that many ms (`UsageReport.activity`: a
    table's sparklines, one read for a page of `keys`), no groups, series or tree."""

    since: int
    by: UsageGrouping = "agent"
    every: UsageBucket = "day"
    keys: tuple[str, ...] | None = None
    agents: tuple[str, ...] | None = None
    tree_of: str | None = None
    requester: str | None = None
    sandboxed: bool = False
    activity_ms: int | None = None


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
class UsageNode:
    """A session of a spawn tree: `depth` 1 for a child of the tree's root; its own usage and its
    subtree's (its own plus every descendant's)."""

    key: str
    parent: str
    depth: int
    own: UsageTotals
    tree: UsageTotals


@dataclass(frozen=True)
class UsageActivity:
    """A session's tokens per bucket (its start in ms, oldest first; buckets without a turn left out)."""

    key: str
    tokens: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class UsageReport:
    """Usage since `since`: in all, by group (most costly first, then most tokens), and over time (oldest
    first); with `tree_of`, that session's spawn tree (parent first, then its subtree, oldest child first).
    `note`: what the backend that answered could not say as asked (an OpenClaw gateway's: whole days, its own
    estimate), None when it said it all."""

    since: int
    by: UsageGrouping
    every: UsageBucket
    total: UsageTotals = field(default_factory=UsageTotals)
    groups: tuple[UsageGroup, ...] = ()
    series: tuple[UsagePoint, ...] = ()
    tree_of: str | None = None
    tree: tuple[UsageNode, ...] = ()
    activity: tuple[UsageActivity, ...] = ()
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
    """The usage `query` asks for (two reads of the hourly sums; with `activity_ms`, one)."""
    if query.activity_ms is not None:
        return UsageReport(since=query.since, by=query.by, every=query.every, activity=_activity(store, query))
    column = _COLUMNS[query.by]
    keys, agents = query.keys, query.agents
    by_group = _folded(config, store.usage.by_column(column, query.since, keys, agents), query.by == "model")
    by_time = _folded(config, store.usage.by_bucket(_BUCKET_MS[query.every], query.since, keys, agents), False)
    total = UsageTotals()
    for totals in by_group.values():
        total = total.plus(totals)
    groups = sorted(
        (UsageGroup(str(name), totals) for name, totals in by_group.items()),
        key=lambda g: (-g.totals.cost_usd, -g.totals.total_tokens, g.name),
    )
    series = sorted((UsagePoint(int(start), totals) for start, totals in by_time.items()), key=lambda p: p.start)
    return UsageReport(
        since=query.since,
        by=query.by,
        every=query.every,
        total=total,
        groups=tuple(groups),
        series=tuple(series),
        tree_of=query.tree_of,
        tree=usage_tree(store, config, query) if query.tree_of is not None else (),
    )


def _activity(store: Store, query: UsageQuery) -> tuple[UsageActivity, ...]:
    keys = [k for k in query.keys or () if _seen(query, k)]
    sums = store.usage.tokens_by_session(keys, query.since, query.activity_ms or HOUR_MS)
    return tuple(UsageActivity(key, tuple(sorted(sums[key].items()))) for key in keys if key in sums)


def _seen(query: UsageQuery, key: str) -> bool:
    """Whether `query`'s narrowing lets `key` through."""
    return (query.keys is None or key in query.keys) and (query.agents is None or agent_id_of(key) in query.agents)


def usage_tree(store: Store, config: Config, query: UsageQuery, *, limit: int = TREE_LIMIT) -> tuple[UsageNode, ...]:
    """The spawn tree under `query.tree_of` (its sessions spawned by or parented to it, theirs…, at most
    `MAX_DEPTH` deep and `limit` sessions; a session `query` does not let through left out with its
    subtree), each with its own usage since `query.since` and its subtree's."""
    root = query.tree_of
    if root is None:
        return ()
    parent_of: dict[str, str] = {}
    children: dict[str, list[str]] = {}
    level, seen = [root], {root}
    for _ in range(MAX_DEPTH):
        found = [(k, p) for k, p in store.sessions.children_of(level) if k not in seen and _seen(query, k)]
        found = found[: max(0, limit - len(parent_of))]
        for key, parent in found:
            seen.add(key)
            parent_of[key] = parent
            children.setdefault(parent, []).append(key)
        level = [key for key, _ in found]
        if not level:
            break
    if not parent_of:
        return ()
    own = _folded(config, store.usage.by_column("session_key", query.since, keys=parent_of), False)
    nodes: list[UsageNode] = []

    def walk(parent: str, depth: int) -> UsageTotals:
        below = UsageTotals()
        for key in children.get(parent, []):
            index = len(nodes)
            mine = own.get(key, UsageTotals())
            nodes.append(UsageNode(key, parent, depth, mine, mine))
            tree = mine.plus(walk(key, depth + 1))
            nodes[index] = UsageNode(key, parent, depth, mine, tree)
            below = below.plus(tree)
        return below

    walk(root, 1)
    return tuple(nodes)
