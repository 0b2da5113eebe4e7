"""Usage over several servers (`SeveralBackends.usage`): each server's report asked at once, and summed.

Sessions and agents are each server's own, so their groups are marked with the server's label
(`LABEL/KEY`, `LABEL/main`); a model is the same model wherever it ran, so its groups are summed across
servers. The series is summed per hour or day, the totals in all. A server without usage (an older
sessions-tui, a gateway over HTTP) is left out and the report's note says so, as it carries each
server's own note (an OpenClaw gateway's whole days); when none has usage, the call is refused.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import replace

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable, Capability
from sessions_tui.engine.usage import UsageGroup, UsagePoint, UsageQuery, UsageReport, UsageTotals


def summed(query: UsageQuery, reports: Mapping[str, UsageReport], left_out: Mapping[str, str]) -> UsageReport:
    """The servers' reports (by label) as one; `left_out`: each server not asked, with its line."""
    groups: dict[str, UsageTotals] = {}
    series: dict[int, UsageTotals] = {}
    total = UsageTotals()
    notes = [f"{label}: not counted: {line}" for label, line in left_out.items()]
    for label, report in reports.items():
        total = total.plus(report.total)
        for group in report.groups:
            name = group.name if query.by == "model" else f"{label}/{group.name}"
            groups[name] = groups.get(name, UsageTotals()).plus(group.totals)
        for point in report.series:
            series[point.start] = series.get(point.start, UsageTotals()).plus(point.totals)
        if report.note:
            notes.append(f"{label}: {report.note}")
    ordered = sorted(
        (UsageGroup(name, totals) for name, totals in groups.items()),
        key=lambda g: (-g.totals.cost_usd, -g.totals.total_tokens, g.name),
    )
    return UsageReport(
        since=min((r.since for r in reports.values()), default=query.since),
        by=query.by,
        every=query.every,
        total=total,
        groups=tuple(ordered),
        series=tuple(UsagePoint(start, totals) for start, totals in sorted(series.items())),
        note="; ".join(notes) or None,
    )


async def several_usage(
    backends: Mapping[str, Backend], query: UsageQuery, split: Callable[[str], tuple[str, str | None]]
) -> UsageReport:
    """Each server's report that has usage (of the query's keys on it only, when it names some), summed."""
    keys: dict[str, list[str]] = {}
    for key in query.keys or ():
        label, bare = split(key)
        keys.setdefault(label, []).append(bare or "")
    asked = {
        label: backend
        for label, backend in backends.items()
        if Capability.USAGE in backend.capabilities and (query.keys is None or label in keys)
    }
    left_out = {
        label: backend.not_offered(Capability.USAGE)
        for label, backend in backends.items()
        if Capability.USAGE not in backend.capabilities and (query.keys is None or label in keys)
    }
    if not asked:
        line = next(iter(left_out.values()), None) or "none of these servers has usage and cost"
        raise BackendUnavailable(line)
    answers = await asyncio.gather(
        *(
            b.usage(query if query.keys is None else replace(query, keys=tuple(keys[label])))
            for label, b in asked.items()
        )
    )
    return summed(query, dict(zip(asked, answers, strict=True)), left_out)
