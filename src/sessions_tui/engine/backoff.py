"""How long to wait before retrying a network call: one policy for every caller.

The model client and the outbox both retry transient failures. They share this one rule so the
waits cannot drift apart: the first retry waits `base` seconds, each later one twice as long as
the one before, never longer than `cap`. A server that says how long to wait (a numeric
`Retry-After`) is believed, within the same cap. There is no jitter: each caller retries one
request of its own, not a crowd of clients hitting one server at once.
"""

from __future__ import annotations

import math

__all__ = ["parse_retry_after", "retry_delay"]


def retry_delay(retry: int, *, base: float, cap: float, retry_after: float | None = None) -> float:
    """Seconds to wait before retry number `retry` (0 is the first retry).

    `base * 2**retry`, at most `cap`; a `retry_after` the server gave replaces it (also at most
    `cap`). Negative inputs count as zero.
    """
    cap = max(0.0, cap)
    if retry_after is not None:
        return min(max(0.0, retry_after), cap)
    return min(cap, max(0.0, base) * 2.0 ** max(0, retry))


def parse_retry_after(value: str | None) -> float | None:
    """The seconds of a `Retry-After` header, or None when it is absent or not a number.

    An HTTP-date form gives None too: the caller then uses its own back-off.
    """
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return seconds
