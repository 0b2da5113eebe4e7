"""When the dashboard collects its garbage: a full collection waits for a quiet moment.

A full (generation 2) collection walks every object the dashboard made since start-up: 20–30 ms
on a 2-core machine, which doubled the time of the sort or keystroke it happened to land in. So
what start-up built is frozen once (it lives until exit anyway), automatic collections stop at
generation 1, and the full one runs when nothing has happened for `QUIET_S` (no key, no page read)
and `EVERY_S` have passed since the last. Cyclic garbage waits seconds longer; nothing waits on it.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

EVERY_S = 10.0
QUIET_S = 1.0
_NO_FULL_COLLECTIONS = 1_000_000  # generation-1 collections before an automatic full one: never, here


class Collector:
    """`install` at start-up (after the first paint), `active` on each key and page read, `tick`
    from a timer; `uninstall` gives the process its collector back."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._thresholds: tuple[int, int, int] | None = None
        self._last_full = self._last_active = clock()

    def install(self) -> None:
        gc.collect()
        gc.freeze()
        self._thresholds = gc.get_threshold()
        first, second, _ = self._thresholds
        gc.set_threshold(first, second, _NO_FULL_COLLECTIONS)
        self._last_full = self.clock()

    def uninstall(self) -> None:
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def active(self) -> None:
        """Something the user waits on happened: no full collection for `QUIET_S`."""
        self._last_active = self.clock()

    def tick(self) -> bool:
        """Run a full collection if one is due and it is quiet; returns whether it ran."""
        now = self.clock()
        if self._thresholds is None or now - self._last_full < EVERY_S or now - self._last_active < QUIET_S:
            return False
        gc.collect()
        self._last_full = self.clock()
        return True
