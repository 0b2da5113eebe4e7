"""Usage sums by the hour and by the day, written as lines are: the row an assistant message adds; the fills.

Every assistant message that carries a `usage` adds to its hour's row in `usage_hours` and its day's
(UTC) in `usage_days` (per session, provider and model; a span of whole days reads the days, up to 24
times fewer rows), and to its hour's in `usage_agent_hours` (per agent, provider and model: a report not
by session reads a few rows an hour however many sessions worked in it) as its line is written (a turn,
an import, a seed), in the writer's transaction. A turn's cost is kept apart from its tokens: what a
provider reported (`usage.cost.total`) is summed as it was; the tokens of a turn that reported none are
summed on their own, so the config's price (`engine/usage.py`) applies to them when usage is read, and a
price changed later applies too. The reads are `tables/usage.py`'s.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from sessions_tui.engine.clock import ms_from_iso

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS

_SUMMED = """turns, input, output, cache_read, total, reported_cost, unreported_input, unreported_output,
unreported_cache_read, unreported_turns"""
_ADD = """
INSERT INTO {table} ({at}, {owner}, provider, model, {summed})
VALUES ({marks})
ON CONFLICT ({at}, {whose}, provider, model) DO UPDATE SET
    turns = {table}.turns + excluded.turns, input = {table}.input + excluded.input,
    output = {table}.output + excluded.output,
    cache_read = {table}.cache_read + excluded.cache_read, total = {table}.total + excluded.total,
    reported_cost = {table}.reported_cost + excluded.reported_cost,
    unreported_input = {table}.unreported_input + excluded.unreported_input,
    unreported_output = {table}.unreported_output + excluded.unreported_output,
    unreported_cache_read = {table}.unreported_cache_read + excluded.unreported_cache_read,
    unreported_turns = {table}.unreported_turns + excluded.unreported_turns
"""
_OF_SESSION = {
    "owner": "session_key, agent_id",
    "whose": "session_key",
    "marks": ", ".join("?" * 15),
    "summed": _SUMMED,
}
_OF_AGENT = {"owner": "agent_id", "whose": "agent_id", "marks": ", ".join("?" * 14), "summed": _SUMMED}
_ADD_HOUR = _ADD.format(table="usage_hours", at="hour", **_OF_SESSION)
_ADD_DAY = _ADD.format(table="usage_days", at="day", **_OF_SESSION)
_ADD_AGENT_HOUR = _ADD.format(table="usage_agent_hours", at="hour", **_OF_AGENT)


def _int(value: Any) -> int:
    """A token count as a transcript may write it (an int, or a whole float), 0 for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or value == float("inf"):
        return 0
    return int(value)


def _turn_time(line: dict[str, Any], msg: dict[str, Any]) -> int | None:
    stamp = msg.get("timestamp")
    if isinstance(stamp, int) and not isinstance(stamp, bool):
        return stamp
    for value in (stamp, line.get("timestamp")):
        if isinstance(value, str) and (ms := ms_from_iso(value)) is not None:
            return ms
    return None


def usage_of_line(line: dict[str, Any], key: str, agent_id: str, now: int) -> tuple[Any, ...] | None:
    """The row values an assistant message's `usage` adds (see `_ADD`), None for any other line."""
    msg = line.get("message")
    if not isinstance(msg, dict) or msg.get("role") != "assistant" or not isinstance(msg.get("usage"), dict):
        return None
    usage: dict[str, Any] = msg["usage"]
    input_, output, cache_read = _int(usage.get("input")), _int(usage.get("output")), _int(usage.get("cacheRead"))
    total = _int(usage.get("totalTokens")) or input_ + output
    cost = usage.get("cost")
    reported = cost.get("total") if isinstance(cost, dict) else None
    ts = _turn_time(line, msg)
    hour = (ts if ts is not None else now) // HOUR_MS * HOUR_MS
    provider, model = str(msg.get("provider") or ""), str(msg.get("model") or "")
    tokens = (input_, output, cache_read, total)
    if isinstance(reported, (int, float)) and not isinstance(reported, bool):
        return (hour, key, agent_id, provider, model, 1, *tokens, float(reported), 0, 0, 0, 0)
    return (hour, key, agent_id, provider, model, 1, *tokens, 0.0, input_, output, cache_read, 1)


def add_lines(conn: sqlite3.Connection, key: str, agent_id: str, lines: Iterable[dict[str, Any]], now: int) -> None:
    """Add the usage of the assistant messages among `lines` (in the caller's transaction)."""
    _add(conn, [row for line in lines if (row := usage_of_line(line, key, agent_id, now)) is not None])


def _summed(rows: list[tuple[Any, ...]], bucket_ms: int, *, of_session: bool = True) -> list[list[Any]]:
    """The turns' rows summed per bucket, session (or agent, without the session), provider and model: a
    batch of lines (an import, a seed) writes one row per hour or day it spans, not one per turn."""
    sums: dict[tuple[Any, ...], list[Any]] = {}
    for row in rows:
        at = row[0] // bucket_ms * bucket_ms
        group = (at, row[1] if of_session else row[2], row[3], row[4])
        found = sums.get(group)
        if found is None:
            sums[group] = [at, *row[1:]] if of_session else [at, *row[2:]]
        else:
            shift = 0 if of_session else 1
            for i in range(5, len(row)):
                found[i - shift] += row[i]
    return list(sums.values())


def _add(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
    """The turns' rows added to their hours' sums and to their days' (UTC), per session, and to their
    hours' per agent."""
    if rows:
        conn.executemany(_ADD_HOUR, _summed(rows, HOUR_MS))
        conn.executemany(_ADD_DAY, _summed(rows, DAY_MS))
        conn.executemany(_ADD_AGENT_HOUR, _summed(rows, HOUR_MS, of_session=False))


def fill_from_transcripts(conn: sqlite3.Connection, now: int) -> None:
    """Schema 12: the usage of every assistant message the transcripts already hold."""
    cursor = conn.execute(
        "SELECT s.key, s.agent_id, t.line FROM transcript AS t JOIN sessions AS s ON s.session_id = t.session_id"
        " WHERE t.msg_seq IS NOT NULL AND instr(t.line, '\"usage\"') > 0"
    )
    batch: list[tuple[Any, ...]] = []
    for key, agent_id, text in cursor:
        try:
            line = json.loads(text)
        except ValueError:
            continue
        if isinstance(line, dict) and (row := usage_of_line(line, key, agent_id, now)) is not None:
            batch.append(row)
    _add(conn, batch)


def fill_agent_hours(conn: sqlite3.Connection) -> None:
    """Schema 14: the hours per agent and model, summed from the hours per session a file of 12 holds."""
    conn.execute(
        f"INSERT INTO usage_agent_hours (hour, agent_id, provider, model, {_SUMMED})"
        " SELECT hour, agent_id, provider, model, sum(turns), sum(input), sum(output), sum(cache_read), sum(total),"
        " sum(reported_cost), sum(unreported_input), sum(unreported_output), sum(unreported_cache_read),"
        " sum(unreported_turns) FROM usage_hours GROUP BY hour, agent_id, provider, model"
    )
