"""A gateway's session roster, live: read whole at each (re)connect, then kept by its events.

`load` calls `sessions.subscribe` with list parameters (its answer carries the first page of the
roster, and from then on the gateway sends `sessions.changed` for every session) and pages the
rest through `sessions.list` up to `MAX_SESSIONS`. `apply` merges what an event carries: the row
snapshot of a keyed `sessions.changed` (`payload.session`, with the `ancestorSessions` refreshed
beside it) or of a `session.message`, by key; a payload with no row (a delete, `cron-bindings-
loaded`, any broad change) asks for a re-read, which the backend debounces into one `sessions.list`
read (`reread`). Nothing is read while nothing changes.

Rows are kept as the table wants them (`listing.shape_row`). The roster is written on the backend's
I/O loop and read from any thread: a lock guards it, and a row is replaced, never changed in place.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from sessions_tui.backend.gateway.reading.listing import Row, listed_rows, shape_row

PAGE = 200
MAX_SESSIONS = 20_000
LIST_PARAMS: dict[str, Any] = {"limit": PAGE, "sortBy": "updatedAt"}
"""What the roster asks for: every session, newest first, a page at a time."""


class Calls(Protocol):
    """What the roster needs of a connection: a call and its answer (`GatewayClient.request`)."""

    async def request(self, method: str, params: Any = None, *, timeout: float | None = None) -> Any: ...


@dataclass
class Change:
    """What a merge or a re-read changed: the keys whose rows differ, and whether the set of keys did."""

    keys: list[str] = field(default_factory=list)
    membership: bool = False


class Roster:
    """The sessions of one gateway, by canonical key (see the module's docstring)."""

    def __init__(self, canonical: Callable[[str], str], display: Callable[[str], str]) -> None:
        self._canonical = canonical
        self._display = display
        self._rows: dict[str, Row] = {}
        self._lock = threading.Lock()
        self.server_ts: int | None = None
        """The gateway's clock when it answered the last read (`list.ts`), epoch ms."""

    def rows(self) -> list[Row]:
        """Every row, newest first (a copy: the roster goes on changing)."""
        with self._lock:
            rows = list(self._rows.values())
        rows.sort(key=lambda r: -(r.get("updatedAt") or 0))
        return rows

    def row(self, key: str) -> Row | None:
        with self._lock:
            return self._rows.get(key)

    def __len__(self) -> int:
        with self._lock:
            return len(self._rows)

    # -- reading whole ---------------------------------------------------------------------------

    async def load(self, calls: Calls) -> Change:
        """Subscribe to the roster and read it whole (at every connect, so a reconnect resynchronises)."""
        answer = await calls.request("sessions.subscribe", dict(LIST_PARAMS))
        listing = answer.get("list") if isinstance(answer, dict) else None
        return self._replace(await self._pages(calls, listing))

    async def reread(self, calls: Calls) -> Change:
        """Read the roster whole again through `sessions.list` (what a rowless change asks for)."""
        return self._replace(await self._pages(calls, None))

    async def _pages(self, calls: Calls, first: Any) -> list[Row]:
        rows: list[Row] = []
        page = first if isinstance(first, dict) else await calls.request("sessions.list", dict(LIST_PARAMS))
        offset = 0
        while True:
            if isinstance(page.get("ts"), int):
                self.server_ts = page["ts"]
            batch = listed_rows(page)
            rows.extend(batch)
            next_offset = page.get("nextOffset")
            if (
                len(rows) >= MAX_SESSIONS
                or not page.get("hasMore")
                or not batch
                or not isinstance(next_offset, int)
                or next_offset <= offset
            ):
                return rows[:MAX_SESSIONS]
            offset = next_offset
            page = await calls.request("sessions.list", {**LIST_PARAMS, "offset": offset})
            if not isinstance(page, dict):
                return rows

    def _replace(self, listed: Iterable[Row]) -> Change:
        fresh = {}
        for row in listed:
            shaped = shape_row(row, self._canonical, self._display)
            fresh[shaped["_key"]] = shaped
        with self._lock:
            old, self._rows = self._rows, fresh
        keys = [k for k, r in fresh.items() if old.get(k) != r] + [k for k in old if k not in fresh]
        return Change(keys=keys, membership=old.keys() != fresh.keys())

    # -- kept by events --------------------------------------------------------------------------

    def apply(self, payload: Any) -> Change | None:
        """Merge the rows an event carries (`sessions.changed`, `session.message`); None when it
        carries none and the roster must be read again."""
        if not isinstance(payload, dict):
            return None
        session = payload.get("session")
        if not isinstance(session, dict) or not isinstance(session.get("key"), str):
            return None
        ancestors = payload.get("ancestorSessions")
        snapshots = [session] + [a for a in ancestors or [] if isinstance(a, dict) and isinstance(a.get("key"), str)]
        change = Change()
        with self._lock:
            for snapshot in snapshots:
                shaped = shape_row(snapshot, self._canonical, self._display)
                key = shaped["_key"]
                before = self._rows.get(key)
                if before == shaped:
                    continue
                if before is None:
                    change.membership = True
                self._rows[key] = shaped
                change.keys.append(key)
        return change
