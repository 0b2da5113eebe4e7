"""The status board: every session's live status for one requester, kept live from a backend's events.

Seeded by `Backend.activity(requester)` (only what is not idle), then kept by the events: a run
starting or ending, a message, a session's change, a send's progress, a refusal, each names the
sessions to read again (`activity(keys)`), gathered for `DEBOUNCE_S` so a burst is one read; the
running ones are read with them (their `waiting` follows their children and sends). Another
process's writes (`StoreChanged`) read the seed again. Streamed text only moves the running run's
progress, in memory. The clock alone changes a status at one moment (a run becoming stuck, a
refusal ageing out of `looping`): ONE timer waits for the earliest of those, never a tick over
every session. Each change is published as `StatusChanged` to the board's subscribers, on the
loop the board runs on. No Textual: the dashboard and a headless watcher use it alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import replace

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.values.vocabulary import (
    Activity,
    EngineEvent,
    LiveStatus,
    MessageAppended,
    PolicyRefused,
    RunEnded,
    RunStarted,
    RunStreamed,
    SendProgress,
    SessionChanged,
    StatusChanged,
    StoreChanged,
    live_status,
    next_change_at,
)

log = logging.getLogger(__name__)

DEBOUNCE_S = 0.05
"""How long the board gathers the keys events name before it reads them (one read per burst)."""

StatusCallback = Callable[[StatusChanged], None]


class StatusBoard:
    """The live statuses of the sessions `requester()` may see (see the module's docstring)."""

    def __init__(
        self,
        backend: Backend,
        requester: Callable[[], Requester],
        *,
        stuck_after_ms: int,
        debounce_s: float = DEBOUNCE_S,
    ) -> None:
        self.backend = backend
        self.requester = requester
        self.stuck_after_ms = stuck_after_ms
        self.debounce_s = debounce_s
        self._facts: dict[str, Activity] = {}  # only sessions not idle
        self._status: dict[str, LiveStatus] = {}
        self._first = False  # a seed's statuses are the board's first word on them: previous None
        self._counts: Counter[LiveStatus] = Counter()
        self._due: dict[str, int] = {}  # when the clock alone changes a key's status (running, looping ones)
        self._seen: dict[str, int] = {}  # what this board marked seen (a read begun before the mark lags it)
        self._subscribers: list[StatusCallback] = []
        self._pending: set[str] = set()
        self._reseed = False
        self._flush: asyncio.TimerHandle | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: int | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._unsubscribe: Callable[[], None] | None = None

    # -- what it says ----------------------------------------------------------------------------

    def status(self, key: str) -> LiveStatus:
        return self._status.get(key, "idle")

    def counts(self) -> dict[LiveStatus, int]:
        """How many sessions are in each status but idle (kept as statuses change: no pass over them)."""
        return {status: n for status, n in self._counts.items() if n > 0}

    def keys_with(self, *statuses: LiveStatus) -> list[str]:
        """The keys in any of `statuses` (idle: only those the board names, i.e. none)."""
        wanted = set(statuses)
        return sorted(key for key, status in self._status.items() if status in wanted)

    def subscribe(self, callback: StatusCallback) -> Callable[[], None]:
        """Have each `StatusChanged` delivered to `callback` (on the board's loop)."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    # -- life ------------------------------------------------------------------------------------

    async def start(self, *, listen: bool = True) -> None:
        """Read the seed and, with `listen`, follow the backend's events (delivered from any thread)."""
        self._loop = asyncio.get_running_loop()
        if listen and self._unsubscribe is None:
            loop = self._loop

            def deliver(event: EngineEvent) -> None:
                with contextlib.suppress(RuntimeError):  # the loop closed
                    loop.call_soon_threadsafe(self.on_event, event)

            self._unsubscribe = self.backend.subscribe(deliver)
        await self.reseed(first=True)

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        for handle in (self._flush, self._timer):
            if handle is not None:
                handle.cancel()
        self._flush = self._timer = None
        for task in self._tasks:
            task.cancel()

    async def reseed(self, *, first: bool = False) -> None:
        """Read every session that may not be idle again: another process wrote, or with `first` the
        requester changed (what it sees now is said with previous None: no news, as at the start)."""
        facts = await self.backend.activity(self.requester())
        self._first = first
        try:
            self._merge(facts, every=True)
        finally:
            self._first = False

    async def seen(self, key: str) -> None:
        """The operator opened `key`: `done` clears (marked through the backend, for every face)."""
        facts = self._facts.get(key)
        if facts is not None and facts.ended_at is not None:
            self._seen[key] = max(facts.ended_at, facts.seen_at or 0)
            self._merge({key: facts}, keys=[key])
        await self.backend.mark_seen(key)

    # -- events ----------------------------------------------------------------------------------

    def on_event(self, event: EngineEvent) -> None:
        """An engine event, on the board's loop."""
        if isinstance(event, RunStreamed):
            self._progress(event.session_key, event.ts or self.backend.now())
        elif isinstance(event, (RunStarted, RunEnded, SessionChanged, MessageAppended)):
            self._want(event.session_key)
        elif isinstance(event, SendProgress):
            self._want(event.target_key)
        elif isinstance(event, PolicyRefused):
            self._want(event.session_key, *([event.requester] if event.requester else []))
        elif isinstance(event, StoreChanged):
            self._reseed = True
            self._want()

    def _progress(self, key: str, at: int) -> None:
        facts = self._facts.get(key)
        if facts is not None and facts.running and (facts.progress_at or 0) < at:
            self._merge({key: replace(facts, progress_at=at)}, keys=[key])

    def _want(self, *keys: str) -> None:
        self._pending.update(keys)
        if self._flush is None:
            loop = self._loop or asyncio.get_running_loop()
            self._flush = loop.call_later(self.debounce_s, self._start_read)

    def _start_read(self) -> None:
        self._flush = None
        task = asyncio.ensure_future(self.read_pending())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def read_pending(self) -> None:
        """Read what the events since the last read named (tests await it instead of the timer)."""
        keys, self._pending = self._pending, set()
        reseed, self._reseed = self._reseed, False
        try:
            if reseed:
                await self.reseed()
                return
            if not keys:
                return
            running = [k for k, f in self._facts.items() if f.running]
            asked = sorted(keys | set(running))
            self._merge(await self.backend.activity(self.requester(), asked), keys=asked)
        except Exception:  # noqa: BLE001 - a backend that failed a read: the next event reads again
            log.warning("status board: a read failed", exc_info=True)

    # -- statuses --------------------------------------------------------------------------------

    def _merge(self, found: dict[str, Activity], *, keys: list[str] | None = None, every: bool = False) -> None:
        """New facts of `keys` (or `every` key: a seed); a key asked and not found is idle."""
        asked = set(self._facts) | set(found) if every else set(keys or ())
        now = self.backend.now()
        changes: list[StatusChanged] = []
        for key in asked:
            facts = found.get(key)
            old = self._facts.get(key)
            if facts is not None and old is not None and facts.running and old.running:
                # Streamed progress moved it in memory; the store's may not have come so far.
                facts = replace(facts, progress_at=max(facts.progress_at or 0, old.progress_at or 0) or None)
            mark = self._seen.get(key)
            if facts is not None and mark is not None and (facts.seen_at or 0) < mark:
                facts = replace(facts, seen_at=mark)
            status = live_status(facts, now, self.stuck_after_ms) if facts is not None else "idle"
            if facts is None or status == "idle":
                self._facts.pop(key, None)
            else:
                self._facts[key] = facts
            changes += self._set(key, status, now)
            self._due_of(key, now)
        self._schedule(now)
        self._publish(changes)

    def _due_of(self, key: str, now: int) -> None:
        facts = self._facts.get(key)
        at = next_change_at(facts, now, self.stuck_after_ms) if facts is not None else None
        if at is None:
            self._due.pop(key, None)
        else:
            self._due[key] = at

    def _set(self, key: str, status: LiveStatus, now: int) -> list[StatusChanged]:
        previous = self._status.get(key)
        if (previous or "idle") == status:
            return []
        if previous is not None:
            self._counts[previous] -= 1
        if status == "idle":
            self._status.pop(key, None)
        else:
            self._status[key] = status
            self._counts[status] += 1
        return [
            StatusChanged(ts=now, session_key=key, status=status, previous=None if self._first else previous or "idle")
        ]

    def recheck(self) -> None:
        """What the clock changed by now (the timer calls it; tests with a frozen clock do)."""
        self._timer = None
        self._timer_at = None
        now = self.backend.now()
        changes: list[StatusChanged] = []
        for key in [k for k, at in self._due.items() if at <= now]:  # only what the clock changed
            status = live_status(self._facts[key], now, self.stuck_after_ms)
            if status == "idle":
                del self._facts[key]
            changes += self._set(key, status, now)
            self._due_of(key, now)
        self._schedule(now)
        self._publish(changes)

    def _schedule(self, now: int) -> None:
        """The one timer, at the earliest moment the clock changes a status."""
        at = min(self._due.values()) if self._due else None
        if at == self._timer_at:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._timer_at = None, at
        if at is not None and self._loop is not None:
            self._timer = self._loop.call_later(max(0.0, (at - now) / 1000), self.recheck)

    @property
    def next_check_at(self) -> int | None:
        """When the timer fires (epoch ms), None when nothing but a new fact changes a status."""
        return self._timer_at

    def _publish(self, changes: list[StatusChanged]) -> None:
        for change in changes:
            for callback in list(self._subscribers):
                try:
                    callback(change)
                except Exception:  # noqa: BLE001 - a broken subscriber does not stop the others
                    log.exception("status board subscriber failed")
