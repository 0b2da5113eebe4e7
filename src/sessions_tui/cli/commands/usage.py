"""`sessions-tui usage`: tokens and estimated cost of model turns since a time, by agent, model or session, day or hour.

Text: a header (the span, the turns, the tokens, the estimated cost), a table of the groups (most
costly first), then one line per day or hour. A cost is what a provider reported, else the config's
price of the model (`models.providers.<p>.models[].cost`), so it is marked estimated; turns of a model
with neither are counted and said to be unpriced, their cost left out (`+?`). `--json` prints
`{since, by, every, total, groups: [{name, ...}], series: [{start, ...}]}`, each count with
`turns, inputTokens, outputTokens, cacheReadTokens, totalTokens, estimatedCostUsd, unpricedTurns`,
and `note` when the backend could not say it all as asked (an OpenClaw gateway counts whole days; a
server among several without usage is left out). Times are UTC.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Capability
from sessions_tui.backend.values.cron import ScheduleError, parse_duration_ms
from sessions_tui.backend.values.usage import UsageQuery, UsageReport, UsageTotals
from sessions_tui.cli.backends import face_backend
from sessions_tui.cli.errors import UsageError, require
from sessions_tui.counting import plural
from sessions_tui.terminal_text import json_text, visible_line

DEFAULT_SINCE = "7d"
NAME_WIDTH = 40


def since_ms(text: str, now: int) -> int:
    """`--since`: a duration back from now (`7d`, `12h`, `1d12h`) or a UTC date or time (`2026-04-01`,
    `2026-04-01T08:00`); `UsageError` for anything else or a time to come."""
    word = text.strip()
    try:
        return now - parse_duration_ms(word)
    except ScheduleError:
        pass
    try:
        moment = datetime.fromisoformat(word.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--since: not a duration or a date: {text!r} (e.g. 7d, 12h, 2026-04-01)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    at = int(moment.timestamp() * 1000)
    if at > now:
        raise UsageError(f"--since: {text!r} is still to come")
    return at


def totals_json(totals: UsageTotals) -> dict[str, Any]:
    return {
        "turns": totals.turns,
        "inputTokens": totals.input,
        "outputTokens": totals.output,
        "cacheReadTokens": totals.cache_read,
        "totalTokens": totals.total_tokens,
        "estimatedCostUsd": round(totals.cost_usd, 6),
        "unpricedTurns": totals.unpriced_turns,
    }


def report_json(report: UsageReport, show: Any) -> dict[str, Any]:
    """The report as `--json` prints it; a session's key as `show` masks it (a key may hold a secret)."""
    return {
        "since": report.since,
        "by": report.by,
        "every": report.every,
        "estimated": True,
        "total": totals_json(report.total),
        "groups": [
            {"name": show(g.name) if report.by == "session" else g.name, **totals_json(g.totals)} for g in report.groups
        ],
        "series": [{"start": p.start, **totals_json(p.totals)} for p in report.series],
        **({"note": report.note} if report.note else {}),
    }


def tokens(n: int) -> str:
    """A count of tokens short: 950, 12.3k, 4.56M."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.2f}M"


def cost(totals: UsageTotals) -> str:
    """`$1.23`, `$1.23+?` when some turns had no price, `?` when none had one."""
    if totals.unpriced_turns and totals.unpriced_turns == totals.turns:
        return "?"
    return f"${totals.cost_usd:,.2f}" + ("+?" if totals.unpriced_turns else "")


def _row(name: str, totals: UsageTotals) -> str:
    shown = name if len(name) <= NAME_WIDTH else name[: NAME_WIDTH - 1] + "…"
    return (
        f"{shown:<{NAME_WIDTH}} {totals.turns:>7} {tokens(totals.input):>8} {tokens(totals.output):>8}"
        f" {tokens(totals.total_tokens):>8} {cost(totals):>12}"
    )


def _when(ms: int, every: str) -> str:
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.strftime("%Y-%m-%d") if every == "day" else moment.strftime("%Y-%m-%d %H:00")


def report_lines(report: UsageReport, show: Any) -> list[str]:
    """The report as text: header, the groups' table, the series."""
    total = report.total
    since = datetime.fromtimestamp(report.since / 1000, UTC).strftime("%Y-%m-%d %H:%M")
    lines = [
        f"usage since {since} UTC: {plural(total.turns, 'turn')}, {tokens(total.total_tokens)} tokens, "
        f"estimated cost {cost(total)}"
    ]
    if report.note:
        lines.append(f"  ({report.note})")
    if not total.turns:
        return [visible_line(line) for line in lines]
    if total.unpriced_turns:
        unpriced = plural(total.unpriced_turns, "turn")
        lines.append(f"  ({unpriced} on models with no price in the config: their cost is left out)")
    columns = f"{'turns':>7} {'input':>8} {'output':>8} {'total':>8} {'est. cost':>12}"
    lines += ["", f"{report.by:<{NAME_WIDTH}} {columns}"]
    lines += [_row(show(g.name) if report.by == "session" else g.name, g.totals) for g in report.groups]
    lines += ["", f"{'by ' + report.every:<{NAME_WIDTH}} {columns}"]
    lines += [_row(_when(p.start, report.every), p.totals) for p in report.series]
    return [visible_line(line) for line in lines]


async def run_usage(backend: Backend, opts: argparse.Namespace, out: TextIO) -> int:
    """Print usage as `opts` asks; 0, or `UsageError` for a bad option."""
    since = since_ms(opts.since, backend.now())
    require(backend, Capability.USAGE)
    report = await backend.usage(UsageQuery(since=since, by=opts.by, every=opts.every))
    if opts.json:
        out.write(json_text(report_json(report, backend.redact), terminal=out.isatty()) + "\n")
        return 0
    out.write("\n".join(report_lines(report, backend.display)) + "\n")
    return 0


async def _run_usage(opts: argparse.Namespace) -> int:
    backend = face_backend(opts)
    try:
        return await run_usage(backend, opts, sys.stdout)
    finally:
        await backend.aclose()


def run(opts: argparse.Namespace) -> int:
    return asyncio.run(_run_usage(opts))
