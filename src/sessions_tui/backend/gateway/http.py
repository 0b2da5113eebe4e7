"""A real OpenClaw gateway as a backend: its `POST /tools/invoke` only, polled for changes.

The fallback only: `--remote` speaks to a gateway over its WebSocket (`live.GatewaySocketBackend`,
live, never polled), and comes here for a gateway that refuses the WebSocket upgrade (an HTTP
status, or no HTTP/1.1 answer, for it) or when `--remote-http-only` asks (cli/remote.py `connect`).

The gateway has no operator API and no event stream over HTTP, so the dashboard's reads are made
from its `sessions_list` (every page of it, kept between polls), filtered, sorted and paged here
with the same rules as the local table. A poll every `POLL_S` asks only for the sessions active in
the last minute (one small page, however many sessions the gateway holds) and merges them in; the
whole list is read again every `FULL_S` (what was removed or archived) or when the recent ones do
not fit a page. What moved (each session's `updatedAt`) is reported as engine events. Transcripts come from its
`sessions_history`; a send is its `sessions_send`, which the gateway offers over HTTP only when
its `gateway.tools.allow` names it. Key spellings and visibility follow OpenClaw's defaults.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sessions_tui.backend.contract.types import (
    AbortOutcome,
    BackendUnavailable,
    Capability,
    Requester,
)
from sessions_tui.backend.gateway.acting.session_ops import WithoutSessionOps
from sessions_tui.backend.gateway.acting.without_cron import WithoutCron
from sessions_tui.backend.gateway.reading.activity import listed_activity, mark_listed_seen
from sessions_tui.backend.gateway.reading.listing import (
    LACKS,
    child_views,
    filter_rows,
    listed_rows,
    operator_pairs,
    owner_of,
    page_of,
    search_outcome,
    shape_row,
)
from sessions_tui.backend.remote.backend import RemoteBackend, RemoteError
from sessions_tui.engine.events import MessageAppended, SessionChanged, StoreChanged

if TYPE_CHECKING:
    from sessions_tui.engine.export import SessionExport
    from sessions_tui.engine.messaging.ledger import LedgerEntry
    from sessions_tui.engine.sessions.live_status import Activity
    from sessions_tui.engine.subagents.records import AnnouncementView, ChildView
    from sessions_tui.tools.reading.browse import BrowsePage, BrowseQuery
    from sessions_tui.tools.reading.sessions_search import SearchOutcome
    from sessions_tui.tools.requester.explain import Explanation

POLL_S = 2.0
FULL_S = 30.0
RECENT_MINUTES = 1  # what a poll asks for: well over POLL_S, so a slow answer misses nothing
PAGE = 200
MAX_SESSIONS = 20_000
GATEWAY_CAPABILITIES = frozenset({Capability.READ, Capability.TOOLS, Capability.SPAWN_TREE, Capability.SEARCH})


class OpenClawGatewayBackend(WithoutSessionOps, WithoutCron, RemoteBackend):
    """A `Backend` over an OpenClaw gateway's HTTP tool API."""

    def __init__(self, url: str, token: str | None, *, timeout_s: float = 30.0) -> None:
        super().__init__(url, token, timeout_s=timeout_s)
        self._rows: list[dict[str, Any]] | None = None
        self._rows_at = 0.0

    async def connect(self) -> None:
        """Check the token with the gateway's `agents_list` (a refusal raises `RemoteError`)."""
        await self.call_tool("agents_list", {}, Requester())

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What its HTTP tool API really gives: the session list, the tools (`gateway.tools.allow`
        decides which), the spawn tree from the list, and its own search."""
        return GATEWAY_CAPABILITIES

    def not_offered(self, capability: Capability) -> str:
        return f"{self.url}: {LACKS[capability]}" if capability in LACKS else super().not_offered(capability)

    def _lacking(self, capability: Capability) -> BackendUnavailable:
        """The refusal of a call for what the gateway has not (a face asks `capabilities` first)."""
        return BackendUnavailable(self.not_offered(capability))

    @property
    def config_warnings(self) -> list[str]:
        return []

    # -- the session list, as the dashboard reads it ---------------------------------------------

    async def _listed(self, requester: Requester, *, fresh: bool = False) -> list[dict[str, Any]]:
        loop = asyncio.get_running_loop()
        if not fresh and self._rows is not None and loop.time() - self._rows_at < 2 * POLL_S:
            return self._rows  # kept fresh by the poll while events are followed
        rows: list[dict[str, Any]] = []
        offset = 0
        while len(rows) < MAX_SESSIONS:
            page = await self.call_tool("sessions_list", {"limit": PAGE, "offset": offset}, requester)
            batch = listed_rows(page)
            rows.extend(self._row(r) for r in batch)
            next_offset = page.get("nextOffset")
            if not page.get("hasMore") or not batch or not isinstance(next_offset, int) or next_offset <= offset:
                break
            offset = next_offset
        self._rows, self._rows_at = rows, loop.time()
        return rows

    def _row(self, listed: dict[str, Any]) -> dict[str, Any]:
        return shape_row(listed, self.canonical, self.display)

    def _filtered(self, rows: list[dict[str, Any]], query: BrowseQuery) -> list[dict[str, Any]]:
        return filter_rows(rows, query, self.now())

    async def browse(
        self,
        requester: Requester,
        query: BrowseQuery,
        *,
        offset: int,
        limit: int,
        after: tuple[Any, str] | None = None,
        before: tuple[Any, str] | None = None,
        count: bool = True,
    ) -> BrowsePage:
        return page_of(await self._listed(requester), query, self.now(), offset, limit)

    async def browse_count(
        self, requester: Requester, query: BrowseQuery, cancelled: Callable[[], bool] | None = None
    ) -> int:
        return len(self._filtered(await self._listed(requester), query))

    async def browse_rows(self, requester: Requester, keys: list[str]) -> dict[str, dict[str, Any]]:
        wanted = set(keys)
        return {r["_key"]: r for r in await self._listed(requester) if r["_key"] in wanted}

    async def activity(self, requester: Requester, keys: list[str] | None = None) -> dict[str, Activity]:
        return await listed_activity(self, await self._listed(requester), keys)

    async def mark_seen(self, key: str) -> None:
        mark_listed_seen(self, self.canonical(key), self.now())

    async def state_is_empty(self) -> bool:
        return not await self._listed(Requester())

    # -- the operator's reads --------------------------------------------------------------------

    async def operator_sessions(self, search: str | None, limit: int) -> list[tuple[str, str]]:
        return operator_pairs(await self._listed(Requester()), search, limit, self.redact)

    async def children(self, requester_key: str) -> list[ChildView]:
        return child_views(await self._listed(Requester()), self.canonical(requester_key))

    # -- what it has not (`LACKS`): each refuses -------------------------------------------------

    async def announcements(self, requester_key: str) -> list[AnnouncementView]:
        raise self._lacking(Capability.ANNOUNCES)

    async def run_label(self, run_id: str) -> str | None:
        raise self._lacking(Capability.ANNOUNCES)

    async def sends(self, session: str | None, state: str | None, limit: int) -> list[LedgerEntry]:
        raise self._lacking(Capability.LEDGER)

    async def owner_key(self, key: str) -> str | None:
        return owner_of(await self._listed(Requester()), key, self.canonical)

    async def owner_command(self, key: str, text: str) -> str | None:
        raise self._lacking(Capability.CONTROL)

    async def abort_run(
        self, key: str, *, clear_queued: bool = False, requester: Requester | None = None
    ) -> AbortOutcome:
        raise self._lacking(Capability.ABORT)

    async def explain(self, requester: Requester, target: str, agent: str | None) -> Explanation:
        raise self._lacking(Capability.EXPLAIN)

    async def search(
        self, requester: Requester, query: str, *, session: str | None = None, limit: int = 100
    ) -> SearchOutcome:
        """The gateway's own `sessions_search` (25 hits at most, snippets unmarked, no message numbers)."""
        from sessions_tui.tools.reading.sessions_search import MAX_LIMIT, checked_query

        args: dict[str, Any] = {"query": checked_query(query), "limit": min(limit, MAX_LIMIT)}
        if session:
            args["sessionKey"] = session
        return search_outcome(await self.call_tool("sessions_search", args, requester), self.canonical, self.redact)

    async def export_session(self, key: str) -> SessionExport | None:
        raise self._lacking(Capability.EXPORT)

    # -- events: a poll of the session list ------------------------------------------------------

    async def _recent(self) -> list[dict[str, Any]] | None:
        """The sessions active in the last `RECENT_MINUTES` (the gateway's own clock decides), or
        None when they do not fit one page."""
        page = await self.call_tool("sessions_list", {"limit": PAGE, "activeMinutes": RECENT_MINUTES}, Requester())
        if page.get("hasMore"):
            return None
        return [self._row(r) for r in listed_rows(page)]

    def _merge(self, recent: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The kept list with the recent sessions' rows in place of theirs (a new one added),
        newest first as the gateway lists them."""
        by_key = {r["_key"]: r for r in self._rows or []}
        by_key.update((r["_key"], r) for r in recent)
        rows = sorted(by_key.values(), key=lambda r: -(r.get("updatedAt") or 0))
        self._rows, self._rows_at = rows, asyncio.get_running_loop().time()
        return rows

    async def _poll(self, whole: bool) -> list[dict[str, Any]]:
        if not whole:
            recent = await self._recent()
            if recent is not None:
                return self._merge(recent)
        return await self._listed(Requester(), fresh=True)

    async def _events(self) -> None:
        loop = asyncio.get_running_loop()
        seen: dict[str, Any] | None = None
        whole_due, read_whole_at = True, 0.0
        while True:
            whole = whole_due or loop.time() - read_whole_at >= FULL_S
            try:
                rows = await self._poll(whole)
            except (RemoteError, BackendUnavailable):
                whole_due = True  # what moved meanwhile may be older than a minute by the next answer
                await asyncio.sleep(POLL_S)
                continue
            if whole:
                whole_due, read_whole_at = False, loop.time()
            now = {r["_key"]: r.get("updatedAt") for r in rows}
            if seen is not None and now != seen:
                for key, updated in now.items():
                    if seen.get(key) != updated:
                        self._publish(SessionChanged(ts=self.now(), session_key=key))
                        self._publish(MessageAppended(ts=self.now(), session_key=key))
                self._publish(StoreChanged(ts=self.now()))
            seen = now
            await asyncio.sleep(POLL_S)
