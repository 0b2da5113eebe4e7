"""The main screen's live statuses: its status board, the STATUS column, the header's counts, the
`status:` filter, and `done` cleared when a session is opened.

The board (backend/toolkit/status_board.py) follows the backend's events itself; each change it
publishes reaches the screen as an `EngineEventMessage(StatusChanged)`, and only the rows it names
are shown again. A `status:` filter is a key restriction of the browse query (the board's keys in
those statuses, or with `idle` every key but those in the others), kept as the statuses change.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import work

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.toolkit.status_board import StatusBoard
from sessions_tui.backend.values.vocabulary import LIVE_STATUSES, LiveStatus, StatusChanged
from sessions_tui.backend.values.vocabulary import StoreChanged as StoreWritten
from sessions_tui.ui.messages import EngineEventMessage, StoreChanged
from sessions_tui.ui.screens.main.live_rows import LiveRows
from sessions_tui.ui.widgets.header import StatusHeader
from sessions_tui.ui.widgets.session_table import SessionTable
from sessions_tui.ui.widgets.transcript import TranscriptPane


class LiveStatuses(LiveRows):
    """The statuses part of the main screen (see the module's docstring)."""

    def __init__(self, backend: Backend, requester: Callable[[], Requester]) -> None:
        super().__init__(backend, requester)
        self.board = StatusBoard(backend, requester, stuck_after_ms=backend.stuck_after_minutes * 60_000)
        self.status_filter: frozenset[LiveStatus] | None = None

    async def start_statuses(self) -> None:
        """Seed the board (before the first page: its rows show their statuses at once) and follow it."""
        self.query_one(SessionTable).live_status = self.board.status

        def publish(change: StatusChanged) -> None:
            self.post_message(EngineEventMessage(change))

        self.board.subscribe(publish)
        try:
            await self.board.start()
        except Exception:  # noqa: BLE001 - a seed that failed (a server gone): the events fill it in
            self.board.on_event(StoreWritten())
        self._show_status_counts()

    def on_unmount(self) -> None:
        self.board.close()

    def _status_changed(self, event: StatusChanged) -> None:
        """Only the rows it names are shown again; the header counts; a status filter follows."""
        self.query_one(SessionTable).refresh_statuses([event.session_key])
        self._show_status_counts()
        if event.status == "done" and event.session_key == self.query_one(TranscriptPane).key and not self.paused:
            self.mark_seen(event.session_key)  # it ended on screen: read as it came
        if self.status_filter is not None and self.apply_status_filter():
            self._refresh_page_as_diff()

    def _show_status_counts(self) -> None:
        counts = self.board.counts()
        self.query_one(StatusHeader).statuses = tuple((s, counts[s]) for s in LIVE_STATUSES if counts.get(s))

    def apply_status_filter(self) -> bool:
        """The browse query's keys for the status filter; whether they changed."""
        statuses = self.status_filter
        keys: list[str] | None = None
        skipped: list[str] | None = None
        if statuses is not None and "idle" in statuses:
            skipped = self.board.keys_with(*(s for s in LIVE_STATUSES if s not in statuses))
        elif statuses is not None:
            keys = self.board.keys_with(*statuses)
        query = self.query_state
        if (keys, skipped) == (query.keys, query.except_keys):
            return False
        query.keys, query.except_keys = keys, skipped
        return True

    def on_store_changed(self, message: StoreChanged) -> None:
        """Another process wrote: the board reads its seed again too."""
        super().on_store_changed(message)
        self.board.on_event(StoreWritten())

    def opened(self, key: str) -> None:
        """A session is opened: a `done` one is read now."""
        if self.board.status(key) == "done":
            self.mark_seen(key)

    @work(group="seen", exit_on_error=False)
    async def mark_seen(self, key: str) -> None:
        """Its `done` clears, for every face (the backend keeps the mark)."""
        await self.board.seen(key)

    @work(exclusive=True, group="statuses", exit_on_error=False)
    async def reseed_statuses(self) -> None:
        """Acting as another session: the statuses of what it may see."""
        await self.board.reseed(first=True)
