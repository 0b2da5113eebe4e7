"""A gateway session's live-status facts read from its rows, and the read mark it clears.

OpenClaw's rows say what the status needs: `hasActiveRun` (a run under way), `status` and
`lastRunError` (how the last run ended: `failed`, `timeout`, `killed` or an error), `endedAt`, and
`unread` (activity since the operator last read it, which `sessions.patch {unread: false}` clears:
its Control UI's mark-read). `waiting` is a running session with a running child (`spawnedBy`);
progress is its `updatedAt`. A gateway says no chain-guard refusals, so none of its sessions is
`looping`. The HTTP tool API's rows (sessions_list's) have no `unread`: a session whose last run
ended is `done` until opened here, a mark kept in this process only.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from sessions_tui.backend.contract.types import BackendUnavailable, Requester
from sessions_tui.backend.gateway.link.refusals import ConnectionLost, RequestFailed
from sessions_tui.engine.sessions.live_status import Activity

if TYPE_CHECKING:
    from sessions_tui.backend.gateway.reading.roster import Roster

log = logging.getLogger(__name__)
T = TypeVar("T")

FAILED = ("failed", "timeout", "killed", "error")


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _running(row: Mapping[str, Any]) -> bool:
    return row.get("hasActiveRun") is True or row.get("status") == "running"


def row_activity(row: Mapping[str, Any], waiting: bool, seen_at: int | None) -> Activity:
    """One row's facts; `seen_at`: when this process marked it seen (rows without `unread`)."""
    running = _running(row)
    failed = not running and (bool(row.get("lastRunError")) or row.get("status") in FAILED)
    ended_at = _int(row.get("endedAt"))
    if ended_at is None and not running and row.get("status") == "done":
        ended_at = _int(row.get("updatedAt"))
    if "unread" in row:  # the gateway's own read mark
        seen_at = None if row.get("unread") is True else ended_at
    return Activity(
        running=running,
        waiting=running and waiting,
        progress_at=_int(row.get("updatedAt")) if running else None,
        ended_at=ended_at,
        failed=failed,
        seen_at=seen_at,
    )


def rows_activity(
    rows: Iterable[Mapping[str, Any]], keys: list[str] | None, seen: Mapping[str, int]
) -> dict[str, Activity]:
    """The facts of `keys` (None: of every row that may not be idle) among rows keyed by `_key`."""
    rows = list(rows)
    parents = {str(r.get("spawnedBy")) for r in rows if r.get("spawnedBy") and _running(r)}
    wanted = None if keys is None else set(keys)
    out: dict[str, Activity] = {}
    for row in rows:
        key = str(row["_key"])
        if wanted is not None and key not in wanted:
            continue
        facts = row_activity(row, key in parents, seen.get(key))
        if wanted is not None or _maybe_not_idle(facts):
            out[key] = facts
    return out


def _maybe_not_idle(facts: Activity) -> bool:
    unread = facts.ended_at is not None and (facts.seen_at is None or facts.ended_at > facts.seen_at)
    return facts.running or facts.failed or unread


class _Socket(Protocol):
    """What `SocketActivity` needs of the socket backend."""

    _roster: Roster

    def now(self) -> int: ...

    def canonical(self, key: str) -> str: ...

    async def on_socket(self, act: Callable[[Any], Awaitable[T]]) -> T: ...


def _marks(socket: object) -> dict[str, int]:
    """This process's seen marks of a backend's sessions, kept on it (made on first use)."""
    marks: dict[str, int] = vars(socket).setdefault("_seen_marks", {})
    return marks


class SocketActivity:
    """`activity` and `mark_seen` of the socket backend: from its roster, the mark through
    `sessions.patch {unread: false}` (kept here too, so `done` clears at once and stays cleared
    if the gateway refuses the patch: an operator without the write scope)."""

    async def activity(self: _Socket, requester: Requester, keys: list[str] | None = None) -> dict[str, Activity]:
        return rows_activity(self._roster.rows(), keys, _marks(self))

    async def mark_seen(self: _Socket, key: str) -> None:
        key = self.canonical(key)
        _marks(self)[key] = self.now()
        try:
            await self.on_socket(lambda client: client.request("sessions.patch", {"key": key, "unread": False}))
        except (RequestFailed, ConnectionLost, TimeoutError, BackendUnavailable) as exc:
            log.info("sessions.patch unread=false refused: %s", exc)


async def listed_activity(
    backend: object, rows: Iterable[Mapping[str, Any]], keys: list[str] | None
) -> dict[str, Activity]:
    """The HTTP tool API backend's `activity`: its rows, this process's seen marks."""
    return rows_activity(rows, keys, _marks(backend))


def mark_listed_seen(backend: object, key: str, now: int) -> None:
    """The HTTP tool API backend's `mark_seen`: a mark in this process only (no `sessions.patch` there)."""
    _marks(backend)[key] = now
