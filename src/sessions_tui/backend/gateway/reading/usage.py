"""Usage and cost on an OpenClaw gateway: its `sessions.usage` answer as the seam's `UsageReport`.

`sessions.usage` (every agent, `agentScope: "all"`, or the one session asked; whole UTC days from the
query's `since` to today) answers each session's usage: per model (`modelUsage`: tokens, cost, turns
counted), per day (`dailyBreakdown`, with `dailyModelUsage`'s counts) and per UTC quarter hour
(`utcQuarterHourTokenUsage`, with `utcQuarterHourMessageCounts`). The report is summed from those, so it
groups by agent, model or session and buckets by day or hour as the engine's does. `usage.cost` answers
the same days' sums with no session, agent or model, so it is not asked.

What a gateway does not give is said in the report's `note`: it counts whole days (the report starts at
the start of `since`'s day), its cost is its own estimate from its config (its turns with no price,
`missingCostEntries`, are the unpriced ones), an hour's turns are its assistant messages in it; while its
usage cache is still reading transcripts (`cacheStatus` not `fresh`) its figures may be short, so it is
asked again after 1, 2 and 4 s first, as the Control UI does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

from sessions_tui.engine.usage import (
    UsageGroup,
    UsagePoint,
    UsageQuery,
    UsageReport,
    UsageTotals,
    model_name,
)

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
QUARTER_MS = HOUR_MS // 4
LISTED = 10_000
"""How many sessions `sessions.usage` is asked to list (its default is 50)."""


def _day(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d")


def _day_ms(date: Any) -> int | None:
    try:
        return int(datetime.strptime(str(date), "%Y-%m-%d").replace(tzinfo=UTC).timestamp() * 1000)
    except ValueError:
        return None


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else 0


def _float(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _dicts(value: Any) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def usage_params(query: UsageQuery, now: int) -> dict[str, Any]:
    """`sessions.usage`'s params for `query`: whole UTC days from `since`'s to today's; one session by
    its `key`, else every agent's."""
    params: dict[str, Any] = {"startDate": _day(min(query.since, now)), "endDate": _day(now), "limit": LISTED}
    if query.keys is not None and len(query.keys) == 1:
        params["key"] = query.keys[0]
    else:
        params["agentScope"] = "all"
    return params


def is_fresh(answer: Any) -> bool:
    """Whether the answer's figures are whole: the gateway's usage cache had read every transcript."""
    status = answer.get("cacheStatus") if isinstance(answer, Mapping) else None
    return not isinstance(status, Mapping) or status.get("status") in (None, "fresh")


def _totals(sums: Mapping[str, Any], turns: int) -> UsageTotals:
    return UsageTotals(
        turns=turns,
        input=_int(sums.get("input")),
        output=_int(sums.get("output")),
        cache_read=_int(sums.get("cacheRead")),
        total_tokens=_int(sums.get("totalTokens")),
        cost_usd=_float(sums.get("totalCost")),
        unpriced_turns=_int(sums.get("missingCostEntries")),
    )


def _add(into: dict[Any, UsageTotals], name: Any, totals: UsageTotals) -> None:
    into[name] = into.get(name, UsageTotals()).plus(totals)


def _daily(usage: Mapping[str, Any]) -> Iterable[tuple[int, UsageTotals]]:
    turns: dict[str, int] = {}
    for row in _dicts(usage.get("dailyModelUsage")):
        turns[str(row.get("date"))] = turns.get(str(row.get("date")), 0) + _int(row.get("count"))
    for row in _dicts(usage.get("dailyBreakdown")):
        if (start := _day_ms(row.get("date"))) is not None:
            yield start, _totals(row, turns.get(str(row.get("date")), 0))


def _hourly(usage: Mapping[str, Any]) -> Iterable[tuple[int, UsageTotals]]:
    turns: dict[tuple[str, int], int] = {}
    for row in _dicts(usage.get("utcQuarterHourMessageCounts")):
        turns[(str(row.get("date")), _int(row.get("quarterIndex")))] = _int(row.get("assistant"))
    for row in _dicts(usage.get("utcQuarterHourTokenUsage")):
        date, quarter = str(row.get("date")), _int(row.get("quarterIndex"))
        if (day := _day_ms(date)) is not None:
            yield (day + quarter * QUARTER_MS) // HOUR_MS * HOUR_MS, _totals(row, turns.get((date, quarter), 0))


def usage_report(query: UsageQuery, answer: Any) -> UsageReport:
    """The report `query` asks for, summed from a `sessions.usage` answer's sessions (those of
    `query.keys` only, when it names some)."""
    payload: Mapping[str, Any] = answer if isinstance(answer, Mapping) else {}
    keys = set(query.keys) if query.keys is not None else None
    sessions = [s for s in _dicts(payload.get("sessions")) if keys is None or s.get("key") in keys]
    groups: dict[Any, UsageTotals] = {}
    series: dict[Any, UsageTotals] = {}
    total = UsageTotals()
    for session in sessions:
        usage = session.get("usage")
        if not isinstance(usage, Mapping):
            continue
        models = _dicts(usage.get("modelUsage"))
        mine = _totals(usage, sum(_int(m.get("count")) for m in models))
        total = total.plus(mine)
        if query.by == "model":
            for used in models:
                name = model_name(str(used.get("provider") or ""), str(used.get("model") or ""))
                totals = used.get("totals")
                _add(groups, name, _totals(totals if isinstance(totals, Mapping) else {}, _int(used.get("count"))))
        else:
            _add(groups, str(session.get("agentId" if query.by == "agent" else "key") or "unknown"), mine)
        for start, totals in _daily(usage) if query.every == "day" else _hourly(usage):
            _add(series, start, totals)
    since = query.since // DAY_MS * DAY_MS
    return UsageReport(
        since=since,
        by=query.by,
        every=query.every,
        total=total,
        groups=tuple(
            sorted(
                (UsageGroup(str(name), totals) for name, totals in groups.items()),
                key=lambda g: (-g.totals.cost_usd, -g.totals.total_tokens, g.name),
            )
        ),
        series=tuple(UsagePoint(int(start), totals) for start, totals in sorted(series.items())),
        note=_note(query, payload, since, len(sessions)),
    )


def _note(query: UsageQuery, payload: Mapping[str, Any], since: int, listed: int) -> str:
    said = [
        f"an OpenClaw gateway counts whole days (UTC): from {_day(since)}; its cost is its own estimate",
    ]
    if query.every == "hour":
        said.append("an hour's turns are its assistant messages")
    aggregates = payload.get("aggregates")
    counted = aggregates.get("sessionCount") if isinstance(aggregates, Mapping) else None
    if query.keys is None and isinstance(counted, int) and counted > listed:
        said.append(f"it listed {listed} of {counted} sessions with usage: the report sums those")
    if not is_fresh(payload):
        said.append("it was still reading its transcripts (its usage cache not fresh): the figures may be short")
    return "; ".join(said)


NO_ACTIVITY = "an OpenClaw gateway is not asked for the table's sparklines: its usage is read whole (sessions.usage)"
"""The answer to a query for each session's activity (`activity_ms`), given without a request: the
table asks for it as it opens and again as rows change, and on a gateway `sessions.usage` reads
every transcript (a second of the gateway's CPU when it has just started, asked again while its
cache warms), for sparklines the report would not carry. The Usage view asks for the report itself."""


class _Calls(Protocol):
    usage_retry_s: tuple[float, ...]

    def _call(self, method: str, params: Any = None) -> Awaitable[Any]: ...

    def now(self) -> int: ...

    def canonical(self, key: str) -> str: ...


class GatewayUsage:
    """`Metering` over the gateway's `sessions.usage` (the mixin of `GatewaySocketBackend`)."""

    usage_retry_s: tuple[float, ...] = (1.0, 2.0, 4.0)
    """While the gateway's usage cache is not fresh: how long to wait before each ask again."""

    async def usage(self: _Calls, query: UsageQuery) -> UsageReport:
        if query.activity_ms is not None:  # the table's sparklines: not asked of a gateway (`NO_ACTIVITY`)
            return UsageReport(since=query.since, by=query.by, every=query.every, note=NO_ACTIVITY)
        if query.keys is not None:
            from dataclasses import replace

            query = replace(query, keys=tuple(self.canonical(key) for key in query.keys))
        params = usage_params(query, self.now())
        answer = await self._call("sessions.usage", params)
        for wait in self.usage_retry_s:
            if is_fresh(answer):
                break
            await asyncio.sleep(wait)
            answer = await self._call("sessions.usage", params)
        return usage_report(query, answer)
