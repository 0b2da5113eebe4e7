"""Live updates of the main screen: engine events and other processes' writes become row diffs.

Kept apart from `main.py` (layout, selection, the keys) because it is its own concern: what
changed is collected per tick and applied to the rows that differ, never a rebuild of the table; the
shown rows' sparklines (the last day's tokens) are read for the page at once, again a moment after rows change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from textual import work
from textual.message import Message
from textual.screen import Screen
from textual.worker import get_current_worker

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable, Capability, Requester
from sessions_tui.backend.toolkit.matching import TEXT_PREFIX, row_matches
from sessions_tui.backend.values.usage import UsageQuery
from sessions_tui.backend.values.views import BrowsePage, BrowseQuery
from sessions_tui.backend.values.vocabulary import (
    Announced,
    EngineEvent,
    FollowStatus,
    HookReceived,
    LinkChanged,
    MessageAppended,
    RunEnded,
    RunStarted,
    RunStreamed,
    SessionChanged,
    StatusChanged,
)
from sessions_tui.ui.errors import ReportsWorkerErrors
from sessions_tui.ui.messages import EngineEventMessage, StoreChanged
from sessions_tui.ui.paths import home_relative
from sessions_tui.ui.screens.main.table_count import TableCounted
from sessions_tui.ui.widgets.composer import Composer
from sessions_tui.ui.widgets.header import StatusHeader
from sessions_tui.ui.widgets.session_table import SessionTable
from sessions_tui.ui.widgets.spawn_panel import SpawnPanel
from sessions_tui.ui.widgets.table_line import SPARK_CELLS, SPARK_MS, sparkline
from sessions_tui.ui.widgets.transcript import TranscriptPane

if TYPE_CHECKING:
    from sessions_tui.backend.values.views import BrowseRow

PAGE_SIZE = 100
ACTIVITY_AFTER_SECONDS = 2.0  # rows changed: the sparklines read again this long after, once


class RowsFetched(Message):
    """Fresh rows for keys an engine event named (None: gone or not visible)."""

    def __init__(self, keys: list[str], found: dict[str, BrowseRow]) -> None:
        super().__init__()
        self.keys = keys
        self.found = found


class PageRefreshed(Message):
    """The shown page read again after another process wrote: applied as a diff."""

    def __init__(self, page: BrowsePage, generation: int) -> None:
        super().__init__()
        self.page = page
        self.generation = generation


class ActivityFetched(Message):
    """The shown rows' sparklines (key -> ▁…█), read for the page of `generation`."""

    def __init__(self, activity: dict[str, str], generation: int) -> None:
        super().__init__()
        self.activity = activity
        self.generation = generation


class LiveRows(ReportsWorkerErrors, Screen[None]):
    """The table's live part: the screen subclass supplies the query, the page and what a diff
    means for the open session (`_update_counts`, `_rows_changed`)."""

    def __init__(self, backend: Backend, requester: Callable[[], Requester]) -> None:
        super().__init__()
        self.backend = backend
        self.requester = requester
        self.query_state = BrowseQuery()
        self.page_offset = 0
        self.total = 0
        self.pending_keys: set[str] = set()
        self.paused = False  # live updates held (`p`): what changed meanwhile is read on resume
        self.stale = False
        self.generation = 0  # of the page asked for last: older pages and counts are dropped
        # Keyset paging: the page shown was read after / before the rows `_from` names (none: the first
        # page) and starts and ends at `_first` / `_last` (a row's sort value and key).
        self._from: tuple[Any, Any] = (None, None)
        self._first: Any = None
        self._last: Any = None
        self.counted = False  # whether `total` is the count of the current filter (it comes after the page)
        # Streamed text is shown a word at a time, as far as its redaction so far shows it (a delta
        # may hold the start of a secret); None: the backend's events carry it safe already.
        self._streamed = backend.stream_redaction()
        self._activity_due = False  # the sparklines are to be read again shortly (`_activity_soon`)
        self._activity_off = False  # the backend answers no sparklines: not asked again

    def _update_counts(self) -> None:
        """Say how many rows are shown (the screen implements it)."""

    def _rows_changed(self, shown_was_listed: bool) -> None:
        """A diff was applied; `shown_was_listed`: the open session was in the table before it."""

    def _status_changed(self, event: StatusChanged) -> None:
        """A session's live status changed (the screen's status board said so: live_statuses.py)."""

    def _shown_is_listed(self) -> bool:
        key = self.query_one(TranscriptPane).key
        return key is not None and key in self.query_one(SessionTable).rows_by_key

    # -- engine events --------------------------------------------------------------------------

    def _noticed(self, event: EngineEvent) -> None:
        """What the notices make of an event (the screen implements it: screens/main/notifying.py)."""

    def on_engine_event_message(self, message: EngineEventMessage) -> None:
        event = message.event
        self._noticed(event)
        if isinstance(event, FollowStatus):
            self._follow_status(event)
            return
        if isinstance(event, LinkChanged):
            self._link_changed(event)
            return
        if isinstance(event, HookReceived):
            return  # a notice (its session's row comes with its own `SessionChanged`)
        if isinstance(event, StatusChanged):
            self._status_changed(event)
            return
        self.query_one(Composer).on_engine_event(event)
        self._spawn_panel_event(event)
        shown = self._shown_stream(event)
        if self.paused:
            self.stale = True
            return
        pane = self.query_one(TranscriptPane)
        if isinstance(event, RunStreamed):
            if event.session_key == pane.key and shown:
                pane.stream(event.kind, shown)
        elif isinstance(event, MessageAppended):
            if event.session_key == pane.key:
                pane.refresh_tail()
            self._changed(event.session_key)
        elif isinstance(event, (SessionChanged, RunStarted, RunEnded)):
            if isinstance(event, SessionChanged) and event.session_key == pane.key:
                pane.refresh_job()
            self._changed(event.session_key)

    def _shown_stream(self, event: EngineEvent) -> str:
        """What of a streamed delta may be shown now ("" for other events); every run's text is
        kept whole meanwhile, redacted only for the run the open transcript shows."""
        if self._streamed is None:
            return event.delta if isinstance(event, RunStreamed) else ""
        shown = (
            isinstance(event, RunStreamed)
            and not self.paused
            and event.session_key == self.query_one(TranscriptPane).key
        )
        return self._streamed.observe(event, shown=shown)

    def _follow_status(self, event: FollowStatus) -> None:
        """The header says which OpenClaw is followed; a failure is a toast and a header badge."""
        header = self.query_one(StatusHeader)
        was_failing = bool(header.follow_failure)
        header.follow_root = event.root
        header.follow_failure = event.failure or ""
        if event.failure and not was_failing:
            self.app.notify(
                f"Following OpenClaw failed: {home_relative(event.failure)}",
                title="OpenClaw",
                severity="error",
                timeout=10,
                markup=False,
            )
        elif was_failing and not event.failure:
            again = f"Following OpenClaw at {home_relative(event.root)} again."
            self.app.notify(again, title="OpenClaw", timeout=4, markup=False)

    def _link_changed(self, event: LinkChanged) -> None:
        """The header says when a gateway's link is not up; a pairing request or a refusal is a toast
        with its line (the command that approves this device)."""
        header = self.query_one(StatusHeader)
        header.link = "" if event.state == "connected" else event.state
        if event.line and event.line != header.link_line:
            pairing = event.state == "pairing"
            self.app.notify(
                event.line,
                title="OpenClaw gateway",
                severity="warning" if pairing else "error",
                timeout=30,
                markup=False,
            )
        header.link_line = event.line or ""

    def _spawn_panel_event(self, event: EngineEvent) -> None:
        panel = self.query_one(SpawnPanel)
        if isinstance(event, Announced) and event.kind == "subagent" and event.session_key == self.requester().key:
            panel.announced(event)
        if isinstance(event, (SessionChanged, RunEnded)):
            panel.refresh_runs()

    # -- row diffs ------------------------------------------------------------------------------

    def _changed(self, key: str) -> None:
        """Collect changed keys and refresh their rows once per tick (row diffs, not a rebuild)."""
        if not self.pending_keys:
            self.set_timer(0.05, self._flush_changes)
        self.pending_keys.add(key)

    def _flush_changes(self) -> None:
        keys, self.pending_keys = sorted(self.pending_keys), set()
        if keys:
            self._load_rows(keys)

    @work(group="rows", exit_on_error=False)
    async def _load_rows(self, keys: list[str]) -> None:
        # `Backend.browse_rows` is annotated with plain dicts still: they are `BrowseRow`s.
        found = cast("dict[str, BrowseRow]", await self.backend.browse_rows(self.requester(), keys))
        self.post_message(RowsFetched(keys, found))

    def on_rows_fetched(self, event: RowsFetched) -> None:
        table = self.query_one(SessionTable)
        query = self.query_state
        rows: dict[str, BrowseRow | None] = {}
        unshown_may_match = False
        for key in event.keys:
            row = event.found.get(key)
            shown = key in table.rows_by_key
            verdict = self._verdict(row, shown) if row is not None else False
            unshown_may_match |= verdict is None
            if not verdict:
                row = None
            if row is None and not shown:
                continue
            rows[key] = row
        if unshown_may_match:
            # Whether a changed session's messages now say the `~words` only the store can tell:
            # the page is read again (as a diff), which adds it if they do.
            self._refresh_page_as_diff()
        if not rows:
            return
        order = None
        if query.order_by == "updated" and self.page_offset == 0:
            merged = {**table.rows_by_key, **{k: v for k, v in rows.items() if v is not None}}
            for key, value in rows.items():
                if value is None:
                    merged.pop(key, None)
            # As the store orders a page (`updated_at`, then `key`, both one way): a tie placed
            # here as a reload would place it, not where the row happened to stand.
            order = sorted(merged, key=lambda k: (merged[k].get("updatedAt") or 0, k), reverse=query.descending)
            for key in order[PAGE_SIZE:]:
                rows[key] = None
            order = order[:PAGE_SIZE]
        before = len(table.rows_by_key)
        listed = self._shown_is_listed()
        table.apply(rows, self.backend.now(), order)
        self.total += len(table.rows_by_key) - before
        self._update_counts()
        self._rows_changed(listed)
        self._activity_soon()

    def _verdict(self, row: BrowseRow, shown: bool) -> bool | None:
        """Whether the filter keeps the row; None when only the store can tell: a transcript filter
        (`~words`) on a session not shown, whose messages may have come to say them (a shown row
        stays: the store's answer put it there)."""
        query = self.query_state
        if row.get("archived") and not query.include_archived:
            return False
        if query.kinds is not None and row.get("kind") not in query.kinds:
            return False
        if (query.keys is not None and row["_key"] not in query.keys) or row["_key"] in (query.except_keys or ()):
            return False  # a status filter's
        if query.active_minutes and (row.get("updatedAt") or 0) < self.backend.now() - query.active_minutes * 60_000:
            return False
        search = query.search
        if search and search.startswith(TEXT_PREFIX) and not row_matches(row, search):
            return True if shown else None
        return not search or row_matches(row, search)

    # -- the sparklines ---------------------------------------------------------------------------

    def load_activity(self) -> None:
        """Read the shown rows' last 24 hours of tokens (one usage read for the page, not one per row),
        where the backend has usage."""
        self._activity_due = False
        keys = list(self.query_one(SessionTable).rows_by_key)
        if keys and Capability.USAGE in self.backend.capabilities and not self._activity_off:
            self._load_activity(self.generation, keys, self.backend.now())

    def _activity_soon(self) -> None:
        """Rows changed (a run, a message): the sparklines are read again within a few seconds, once."""
        if not self._activity_due:
            self._activity_due = True
            self.set_timer(ACTIVITY_AFTER_SECONDS, self.load_activity)

    @work(exclusive=True, group="activity", exit_on_error=False)
    async def _load_activity(self, generation: int, keys: list[str], now: int) -> None:
        since = now // SPARK_MS * SPARK_MS - (SPARK_CELLS - 1) * SPARK_MS
        try:
            report = await self.backend.usage(UsageQuery(since=since, keys=tuple(keys), activity_ms=SPARK_MS))
        except BackendUnavailable:
            return
        if report.note is not None or report.groups:
            # Its whole report instead (an OpenClaw gateway's, several servers' summed): no sparklines
            # there, and not asked again for them.
            self._activity_off = True
            return
        shown = {one.key: sparkline(dict(one.tokens), now) for one in report.activity}
        self.post_message(ActivityFetched({key: line for key, line in shown.items() if line}, generation))

    def on_activity_fetched(self, event: ActivityFetched) -> None:
        if event.generation == self.generation:
            self.query_one(SessionTable).show_activity(event.activity)

    # -- other processes ------------------------------------------------------------------------

    def on_store_changed(self, _: StoreChanged) -> None:
        """Another process wrote: refresh the page (as row diffs) and the open transcript."""
        if self.paused:
            self.stale = True
            return
        self._refresh_page_as_diff()
        self.query_one(TranscriptPane).refresh_tail()
        self.query_one(SpawnPanel).refresh_runs()

    @work(exclusive=True, group="table", exit_on_error=False)
    async def _refresh_page_as_diff(self) -> None:
        """The shown page read again as it was read (by keyset, from the same row), not counted."""
        generation = self.generation
        after, before = self._from if self.page_offset else (None, None)
        page = await self.backend.browse(
            self.requester(),
            self.query_state,
            offset=self.page_offset,
            limit=PAGE_SIZE,
            after=after,
            before=before,
            count=False,
        )
        self.post_message(PageRefreshed(page, generation))

    @work(exclusive=True, group="count", exit_on_error=False)
    async def _count(self, generation: int) -> None:
        """The filtered set's size, after its page is painted; given up once another page or count
        is asked for."""
        worker = get_current_worker()
        total = await self.backend.browse_count(
            self.requester(), self.query_state, cancelled=lambda: generation != self.generation or worker.is_cancelled
        )
        if total >= 0:
            self.post_message(TableCounted(total, generation))

    def on_page_refreshed(self, event: PageRefreshed) -> None:
        """Applied as a diff, then counted again once painted (the last count shows meanwhile)."""
        if event.generation != self.generation:
            return  # read for a filter, sort or page no longer shown
        table = self.query_one(SessionTable)
        self._first, self._last = event.page.first, event.page.last
        fresh = {row["_key"]: row for row in event.page.rows}
        rows: dict[str, BrowseRow | None] = dict(fresh)
        for key in table.rows_by_key:
            if key not in fresh:
                rows[key] = None
        listed = self._shown_is_listed()
        table.apply(rows, self.backend.now(), list(fresh))
        self._update_counts()
        self._rows_changed(listed)
        self.call_after_refresh(self._count, self.generation)
        self._activity_soon()

    def resume(self) -> None:
        if self.stale:
            self.stale = False
            self._refresh_page_as_diff()
            self.query_one(TranscriptPane).refresh_tail()
