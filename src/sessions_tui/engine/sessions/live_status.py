"""A session's live status — what needs the operator, at a glance — and the one rule that derives it.

`working` a run streams or calls tools; `waiting` the running run waits on a child run, a tool or a
reply it asked for; `idle` nothing to say; `done` the last run finished since the operator last
opened the session (unread); `failed` the last run ended in an error, a timeout or a kill; `stuck`
a run has made no progress for `ui.stuckAfterMinutes`; `looping` the chain guard refused a hop into
or out of the session within `LOOPING_WINDOW_MS` (SPEC D25).

The facts come from wherever a backend learns them (the engine's runs and events, a server's event
stream, a gateway's session rows); `live_status` is pure, so every backend and the headless watcher
say the same status for the same facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

LiveStatus = Literal["working", "waiting", "idle", "done", "failed", "stuck", "looping"]
LIVE_STATUSES: tuple[LiveStatus, ...] = get_args(LiveStatus)

STUCK_AFTER_MINUTES = 2
"""`ui.stuckAfterMinutes`'s default: OpenClaw's own two-minute threshold for a session processing
with no observed progress (its docs, concepts/agent-loop.md, "Stuck session diagnostics")."""

LOOPING_WINDOW_MS = 10 * 60_000
"""How long a chain-guard refusal into or out of a session keeps it `looping`."""


@dataclass(frozen=True, slots=True)
class Activity:
    """What is known of one session's activity (times in ms since the epoch).

    `running`: a run is active in it (queued runs count once started); `waiting`: that run waits on
    a child run, a tool or a reply; `progress_at`: the last sign of progress of the active run (its
    start, a streamed delta, a message, a tool event); `ended_at` and `failed`: how the last run
    ended; `refused_at`: the last chain-guard refusal of a hop into or out of it; `seen_at`: when the
    operator last opened it (None: never — a watcher gives the time it began watching instead, so
    what ended before it was there is not news)."""

    running: bool = False
    waiting: bool = False
    progress_at: int | None = None
    ended_at: int | None = None
    failed: bool = False
    refused_at: int | None = None
    seen_at: int | None = None


def live_status(activity: Activity, now_ms: int, stuck_after_ms: int) -> LiveStatus:
    """The status `activity` shows at `now_ms`. Looping outranks the rest (an echo storm is the
    thing to stop), then stuck, waiting, working; of a session with no run, a failed last run, then
    an unread finished one, else idle. `stuck_after_ms` <= 0: never stuck."""
    if activity.refused_at is not None and now_ms - activity.refused_at < LOOPING_WINDOW_MS:
        return "looping"
    if activity.running:
        since = activity.progress_at
        if stuck_after_ms > 0 and since is not None and now_ms - since >= stuck_after_ms:
            return "stuck"
        return "waiting" if activity.waiting else "working"
    if activity.failed:
        return "failed"
    if activity.ended_at is not None and (activity.seen_at is None or activity.ended_at > activity.seen_at):
        return "done"
    return "idle"


def next_change_at(activity: Activity, now_ms: int, stuck_after_ms: int) -> int | None:
    """When `live_status` will next change by the clock alone (a run becoming stuck, a refusal
    ageing out of `looping`), or None: only a new fact changes it. A watcher sleeps until the
    earliest of these instead of looking at every session on a timer."""
    times: list[int] = []
    if activity.refused_at is not None and now_ms - activity.refused_at < LOOPING_WINDOW_MS:
        times.append(activity.refused_at + LOOPING_WINDOW_MS)
    if activity.running and stuck_after_ms > 0 and activity.progress_at is not None:
        stuck_at = activity.progress_at + stuck_after_ms
        if stuck_at > now_ms:
            times.append(stuck_at)
    return min(times) if times else None
