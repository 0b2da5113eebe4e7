"""A five-field cron expression (minute hour day-of-month month day-of-week) and the wall times it names.

The syntax is the one OpenClaw's scheduler takes (croner's): `*` and `?`, numbers, ranges `a-b`,
steps `*/n` and `a-b/n` (a bare `a/n` is refused, as croner refuses it), lists `a,b`, month names
(`jan`…`dec`) and weekday names (`sun`…`sat`, 0 and 7 both Sunday), and the nicknames `@yearly`,
`@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`. When both the day of the month
and the day of the week are restricted, a day matching either one matches (Vixie cron's rule, and
croner's: a field is unrestricted only when it is `*` or `?`).

Times here are wall times (naive `datetime`s): turning them into instants in a time zone, with the
changes of daylight saving time, is `schedules.py`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

NICKNAMES = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_MONTHS = {name: i + 1 for i, name in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())}
_WEEKDAYS = {name: i for i, name in enumerate("sun mon tue wed thu fri sat".split())}
_FIELDS: tuple[tuple[str, int, int, dict[str, int]], ...] = (  # name, lowest, highest, the names it takes
    ("minute", 0, 59, {}),
    ("hour", 0, 23, {}),
    ("day of month", 1, 31, {}),
    ("month", 1, 12, _MONTHS),
    ("day of week", 0, 7, _WEEKDAYS),
)
_SEARCH_YEARS = 8
"""How far ahead a match is looked for: `0 0 29 2 1` (a Monday the 29th of February) fits in it."""


class CronSyntaxError(ValueError):
    """The expression does not parse; the message says which field and why."""


@dataclass(frozen=True)
class CronExpression:
    """The values each field allows; `any_day`/`any_weekday`: that field is `*` or `?`."""

    text: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 Sunday … 6 Saturday
    any_day: bool
    any_weekday: bool

    @property
    def top_of_hour(self) -> bool:
        """Minute 0 of a recurring hour (OpenClaw staggers these by default: schedules.py)."""
        minute, hour = self.text.split()[:2]
        parts = hour.split(",")
        return (
            minute == "0"
            and all(_is_hour_part(part) for part in parts)
            and any(part.startswith(("*", "?")) for part in parts)
        )

    def day_matches(self, day: datetime) -> bool:
        if day.month not in self.months:
            return False
        in_month = day.day in self.days
        in_week = (day.isoweekday() % 7) in self.weekdays
        if self.any_day or self.any_weekday:
            return in_month and in_week  # the unrestricted one matches every day
        return in_month or in_week

    def matches(self, at: datetime) -> bool:
        return self.day_matches(at) and at.hour in self.hours and at.minute in self.minutes

    def next_after(self, wall: datetime) -> datetime | None:
        """The first wall time after `wall` (to the minute) the expression names; None within
        `_SEARCH_YEARS` (`0 0 31 2 *` names none)."""
        at = wall.replace(second=0, microsecond=0) + timedelta(minutes=1)
        limit = wall.year + _SEARCH_YEARS
        while at.year <= limit:
            if at.month not in self.months:
                at = (at.replace(day=1) + timedelta(days=32)).replace(day=1, hour=0, minute=0)
            elif not self.day_matches(at):
                at = (at + timedelta(days=1)).replace(hour=0, minute=0)
            elif at.hour not in self.hours:
                at = (at + timedelta(hours=1)).replace(minute=0)
            elif at.minute not in self.minutes:
                later = [m for m in self.minutes if m > at.minute]
                at = at.replace(minute=min(later)) if later else (at + timedelta(hours=1)).replace(minute=0)
            else:
                return at
        return None


def _is_hour_part(part: str) -> bool:
    """OpenClaw's HOUR_LIST_PART: a number, a range or a wildcard, with a step or not."""
    head, _, step = part.partition("/")
    if step and not step.isdigit():
        return False
    if head in ("*", "?"):
        return True
    low, _, high = head.partition("-")
    return low.isdigit() and (not high or high.isdigit())


def _value(text: str, field: str, low: int, high: int, names: dict[str, int]) -> int:
    word = text.lower()
    if word in names:
        return names[word]
    if not text.isdigit():
        raise CronSyntaxError(f"{field}: not a number or name: {text!r}")
    value = int(text)
    if not low <= value <= high:
        raise CronSyntaxError(f"{field}: {value} is out of range ({low}-{high})")
    return value


def _field(text: str, field: str, low: int, high: int, names: dict[str, int]) -> set[int]:
    values: set[int] = set()
    for part in text.split(","):
        if not part:
            raise CronSyntaxError(f"{field}: an empty list item in {text!r}")
        head, slash, step_text = part.partition("/")
        step = 1
        if slash:
            if not step_text.isdigit() or int(step_text) < 1:
                raise CronSyntaxError(f"{field}: not a step: {part!r}")
            step = int(step_text)
        if head in ("*", "?"):
            first, last = low, high
        elif "-" in head:
            a, _, b = head.partition("-")
            first, last = _value(a, field, low, high, names), _value(b, field, low, high, names)
            if first > last:
                raise CronSyntaxError(f"{field}: a range that runs backwards: {part!r}")
        else:
            if slash:
                raise CronSyntaxError(f"{field}: a step needs * or a range before it (*/n, a-b/n): {part!r}")
            first = last = _value(head, field, low, high, names)
        values.update(range(first, last + 1, step))
    return values


def parse_cron(text: str) -> CronExpression:
    """The expression `text`, or `CronSyntaxError` saying what is wrong with it."""
    expr = NICKNAMES.get(text.strip().lower(), text.strip())
    parts = expr.split()
    if len(parts) != 5:
        raise CronSyntaxError(f"a cron expression has five fields (minute hour day month weekday), not {len(parts)}")
    sets = [_field(part, *spec) for part, spec in zip(parts, _FIELDS, strict=True)]
    weekdays = {d % 7 for d in sets[4]}
    return CronExpression(
        text=expr,
        minutes=frozenset(sets[0]),
        hours=frozenset(sets[1]),
        days=frozenset(sets[2]),
        months=frozenset(sets[3]),
        weekdays=frozenset(weekdays),
        any_day=parts[2] in ("*", "?"),
        any_weekday=parts[4] in ("*", "?"),
    )
