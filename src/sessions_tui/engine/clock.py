"""Time as the engine sees it: one injectable clock, so tests and snapshots can freeze it."""

from __future__ import annotations

import time
from datetime import UTC, datetime


class Clock:
    """Wall-clock milliseconds since the epoch."""

    def now_ms(self) -> int:
        return int(time.time() * 1000)


class FrozenClock(Clock):
    """A clock that only moves when told to."""

    def __init__(self, now_ms: int) -> None:
        self._now = int(now_ms)

    def now_ms(self) -> int:
        return self._now

    def advance(self, ms: int) -> None:
        self._now += int(ms)


def iso_from_ms(ms: int) -> str:
    """JavaScript's `Date.toISOString()`: `2026-11-22T00:26:37.123Z`."""
    dt = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def ms_from_iso(text: str) -> int | None:
    """Milliseconds from an ISO timestamp, None when it does not parse."""
    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp() * 1000)
