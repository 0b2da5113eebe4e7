"""When a job is due: OpenClaw's three time schedules (`at`, `every`, `cron`) and their next run.

The rules are OpenClaw's scheduler's (`src/cron/schedule.ts`, `jobs-scheduling.ts`, `stagger.ts`):

- `{"kind": "at", "at": ISO}`: once. A timestamp without an offset is UTC. Due at that time, and
  still due after it until it has run `ok` (a one-shot missed while nothing ran runs at the next start).
- `{"kind": "every", "everyMs": N, "anchorMs"?: T}`: every N ms from the anchor (default: the job's
  creation); after a run, N ms after that run's start, unless that is past already.
- `{"kind": "cron", "expr": "m h dom mon dow", "tz"?: ZONE, "staggerMs"?: N}`: the expression's wall
  times in the zone (default: this host's). Daylight saving time as OpenClaw has it: a wall time that
  does not exist (the hour skipped in spring) is not run; one that happens twice (the hour repeated
  in autumn) runs once, at its first occurrence. Recurring top-of-hour expressions (minute 0, a
  wildcard hour) are staggered by up to 5 minutes unless `staggerMs` says otherwise (0: exact): by a
  fixed offset per job id, sha256 of the id modulo the window.

Durations (`30s`, `20m`, `1h30m`, `1d`) and `--at` times (ISO, or a duration from now) parse here too.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from functools import lru_cache
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import ConfigDict, Field

from sessions_tui.engine.cron.expression import CronExpression, CronSyntaxError, parse_cron
from sessions_tui.engine.lazy_model import LazyModel

DEFAULT_TOP_OF_HOUR_STAGGER_MS = 300_000
_UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)", re.IGNORECASE)
_SEARCH_STEPS = 4000
"""Wall times tried for one next run (each a matching minute skipped by a change of time): bounded."""


class ScheduleError(ValueError):
    """A schedule that cannot be used: a bad expression, zone, duration or time."""


class _Schedule(LazyModel):
    model_config = ConfigDict(defer_build=True, populate_by_name=True, extra="ignore")


class AtSchedule(_Schedule):
    kind: Literal["at"] = "at"
    at: str


class EverySchedule(_Schedule):
    kind: Literal["every"] = "every"
    every_ms: int = Field(alias="everyMs", ge=1)
    anchor_ms: int | None = Field(default=None, alias="anchorMs", ge=0)


class CronSchedule(_Schedule):
    kind: Literal["cron"] = "cron"
    expr: str
    tz: str | None = None
    stagger_ms: int | None = Field(default=None, alias="staggerMs", ge=0)


Schedule = Annotated[AtSchedule | EverySchedule | CronSchedule, Field(discriminator="kind")]


def parse_duration_ms(text: str) -> int:
    """`30s`, `20m`, `1h30m`, `1d`, `500ms` (a bare number: milliseconds) in milliseconds, at least 1."""
    word = text.strip()
    if word.isdigit():
        total = int(word)
    else:
        parts = _DURATION.findall(word)
        if not parts or _DURATION.sub("", word).strip():
            raise ScheduleError(f"not a duration: {text!r} (e.g. 30s, 20m, 1h, 1d)")
        total = round(sum(float(n) * _UNITS_MS[unit.lower()] for n, unit in parts))
    if total < 1:
        raise ScheduleError(f"not a positive duration: {text!r}")
    return total


def zone(name: str | None) -> ZoneInfo:
    """The IANA zone `name`, or this host's (`/etc/localtime`, else UTC) for None."""
    if name:
        try:
            return _zone(name.strip())
        except (ZoneInfoNotFoundError, ValueError):
            raise ScheduleError(f"not a time zone: {name!r} (an IANA name, e.g. Europe/Vienna)") from None
    return _host_zone()


@lru_cache(maxsize=64)
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


@lru_cache(maxsize=1)
def _host_zone() -> ZoneInfo:
    try:
        with open("/etc/localtime", "rb") as file:
            return ZoneInfo.from_file(file, key="localtime")
    except OSError:
        return ZoneInfo("UTC")


def parse_at_ms(text: str, tz: str | None = None) -> int:
    """An `at` time in epoch ms: ISO 8601 (without an offset: in `tz`, else UTC)."""
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ScheduleError(f"not a time: {text!r} (ISO 8601, e.g. 2027-02-01T16:00:00Z, or 20m from now)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone(tz) if tz else UTC)
    return int(moment.timestamp() * 1000)


def at_from_text(text: str, now_ms: int, tz: str | None = None) -> str:
    """The `at` of `--at TEXT`: a duration from now (`20m`) or a time; stored as ISO in UTC."""
    try:
        at_ms = now_ms + parse_duration_ms(text)
    except ScheduleError:
        at_ms = parse_at_ms(text, tz)
    return iso_utc(at_ms)


def iso_utc(ms: int) -> str:
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


@lru_cache(maxsize=1024)
def cron_expression(expr: str) -> CronExpression:
    try:
        return parse_cron(expr)
    except CronSyntaxError as exc:
        raise ScheduleError(f"cron expression {expr!r}: {exc}") from None


def check(schedule: AtSchedule | EverySchedule | CronSchedule) -> None:
    """Raise `ScheduleError` for a schedule that can never be computed."""
    if isinstance(schedule, CronSchedule):
        cron_expression(schedule.expr)
        zone(schedule.tz)
    elif isinstance(schedule, AtSchedule):
        parse_at_ms(schedule.at)


def _instant_ms(wall: datetime, where: ZoneInfo) -> int | None:
    """The first instant the wall time `wall` is in `where`; None when it never is (a gap)."""
    aware = wall.replace(tzinfo=where, fold=0)
    back = aware.astimezone(UTC).astimezone(where).replace(tzinfo=None)
    if back != wall:
        return None
    return int(aware.timestamp() * 1000)


def next_cron_ms(expr: str, tz: str | None, now_ms: int) -> int | None:
    """The first instant after `now_ms` at which the expression's wall time comes, in the zone (see
    the module's text for daylight saving time); None when it names none."""
    cron, where = cron_expression(expr), zone(tz)
    wall: datetime | None = datetime.fromtimestamp(now_ms / 1000, tz=where).replace(tzinfo=None)
    for _ in range(_SEARCH_STEPS):
        assert wall is not None
        wall = cron.next_after(wall)
        if wall is None:
            return None
        at = _instant_ms(wall, where)
        if at is not None and at > now_ms:
            return at
    return None


def stable_offset_ms(job_id: str, stagger_ms: int) -> int:
    """OpenClaw's per-job stagger: the first four bytes of sha256(id), big-endian, modulo the window."""
    if stagger_ms <= 1:
        return 0
    return int.from_bytes(hashlib.sha256(job_id.encode()).digest()[:4], "big") % stagger_ms


def stagger_of(schedule: CronSchedule) -> int:
    if schedule.stagger_ms is not None:
        return schedule.stagger_ms
    return DEFAULT_TOP_OF_HOUR_STAGGER_MS if cron_expression(schedule.expr).top_of_hour else 0


def next_staggered_cron_ms(schedule: CronSchedule, job_id: str, now_ms: int) -> int | None:
    offset = stable_offset_ms(job_id, stagger_of(schedule))
    if offset <= 0:
        return next_cron_ms(schedule.expr, schedule.tz, now_ms)
    cursor = max(0, now_ms - offset)
    for _ in range(4):
        base = next_cron_ms(schedule.expr, schedule.tz, cursor)
        if base is None:
            return None
        if base + offset > now_ms:
            return base + offset
        cursor = max(cursor + 1, base + 1000)
    return None


def next_run_ms(
    schedule: AtSchedule | EverySchedule | CronSchedule,
    *,
    job_id: str,
    now_ms: int,
    created_at_ms: int,
    last_run_at_ms: int | None = None,
    last_ok: bool = False,
) -> int | None:
    """When the job is due next after `now_ms` (OpenClaw's `computeJobNextRunAtMs`); None: never again.
    `last_run_at_ms`: when its last run started; `last_ok`: whether that run ended `ok`."""
    if isinstance(schedule, AtSchedule):
        at = parse_at_ms(schedule.at)
        if last_ok and last_run_at_ms is not None:
            return at if at > last_run_at_ms else None
        return at  # due, even past, until it has run ok
    if isinstance(schedule, EverySchedule):
        anchor = schedule.anchor_ms if schedule.anchor_ms is not None else created_at_ms
        every = schedule.every_ms
        if last_run_at_ms is not None and last_run_at_ms >= anchor and last_run_at_ms + every > now_ms:
            return last_run_at_ms + every
        if now_ms < anchor:
            return anchor
        return anchor + ((now_ms - anchor) // every + 1) * every
    return next_staggered_cron_ms(schedule, job_id, now_ms)


def describe(schedule: AtSchedule | EverySchedule | CronSchedule) -> str:
    """The schedule in a few words: `cron 0 7 * * * (Europe/Vienna)`, `every 30s`, `at 2027-…Z`."""
    if isinstance(schedule, AtSchedule):
        return f"at {schedule.at}"
    if isinstance(schedule, EverySchedule):
        return f"every {duration_text(schedule.every_ms)}"
    zone_text = f" ({schedule.tz})" if schedule.tz else ""
    return f"cron {schedule.expr}{zone_text}"


def duration_text(ms: int) -> str:
    """`30s`, `20m`, `1h30m`, `1d`, `1500ms`: the shortest exact spelling."""
    if ms % 1000:
        return f"{ms}ms"
    out = []
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms >= size:
            out.append(f"{ms // size}{unit}")
            ms %= size
    return "".join(out) or "0s"
