"""The main screen: filters and the session table, the transcript or spawn panel, the composer,
and the keys that act on them (the app keeps the app-wide ones: help, quit, the next pane).

The views it opens (Sends, Why, Search, Export, act as, Steer; Stop and the operations' questions from
screens/main/operations.py) are pushed from here, on its keys or on a widget's message: widgets never
open a screen.
"""

from __future__ import annotations

import time
from typing import Any

from textual import on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import ContentSwitcher, DataTable, Input, Static

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.toolkit.matching import status_term
from sessions_tui.backend.values.views import BrowsePage, SearchHit
from sessions_tui.backend.values.vocabulary import LIVE_STATUSES
from sessions_tui.ui.cursor_keys import move_cursor
from sessions_tui.ui.dashboard import Dashboard
from sessions_tui.ui.refusals import refusing_verdict
from sessions_tui.ui.screens.dialogs.acting_as import OPERATOR, ActingAsScreen
from sessions_tui.ui.screens.dialogs.export import ExportScreen
from sessions_tui.ui.screens.dialogs.kill import KillScreen
from sessions_tui.ui.screens.dialogs.steer import SteerScreen
from sessions_tui.ui.screens.explain import ExplainScreen
from sessions_tui.ui.screens.ledger.sends import SendsScreen
from sessions_tui.ui.screens.main.live_rows import PAGE_SIZE
from sessions_tui.ui.screens.main.main_keys import KIND_KEYS, MAIN_KEYS, NEEDS
from sessions_tui.ui.screens.main.notifying import Notifying
from sessions_tui.ui.screens.main.panes import focus_pane, layout_mode, set_layout, title_panes
from sessions_tui.ui.screens.main.sorting import clicked, sort_words, stepped
from sessions_tui.ui.screens.main.table_count import TableCounted, no_page_note, page_info
from sessions_tui.ui.screens.search.search import SearchScreen
from sessions_tui.ui.text import literal
from sessions_tui.ui.widgets.composer import Composer
from sessions_tui.ui.widgets.filter_bar import FilterBar
from sessions_tui.ui.widgets.footer import DashboardFooter
from sessions_tui.ui.widgets.header import StatusHeader
from sessions_tui.ui.widgets.session_table import SessionTable, TableHeader
from sessions_tui.ui.widgets.spawn_panel import SpawnPanel
from sessions_tui.ui.widgets.transcript import TranscriptPane

OPEN_DELAY_SECONDS = 0.12
OPEN_AFTER_TYPING_SECONDS = 0.4


class MainScreen(Notifying):
    """Everything the dashboard shows at once; engine events arrive here as messages."""

    BINDINGS = MAIN_KEYS

    class PageLoaded(Message):
        def __init__(self, page: BrowsePage, generation: int, store_empty: bool = False) -> None:
            super().__init__()
            self.page = page
            self.generation = generation
            self.store_empty = store_empty  # no session at all in the state directory

    def __init__(self, backend: Backend, dashboard: Dashboard) -> None:
        """`dashboard` (the app) says who the tools run as at the moment of each call (acting as
        changes it) and names keys."""
        super().__init__(backend, dashboard)
        self.dashboard = dashboard
        self.display_key = dashboard.display_key
        self.pages_loaded = 0  # how many pages the table has shown (benchmarks wait on it)
        self._open_timer: Timer | None = None
        self._page_shown_at = 0.0
        self._typed_at = 0.0
        self._reopen = False  # open the cursor's session after the next page even if already open
        self.store_empty = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A key whose action needs what the backend has not is hidden and does nothing."""
        needed = NEEDS.get(action)
        return needed is None or needed in self.backend.capabilities

    # -- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusHeader(id="status-header")
        yield FilterBar(id="filter-bar")
        with Horizontal(id="body"):
            with Vertical(id="table-column"):
                yield TableHeader(id="table-header")
                yield SessionTable(id="sessions")
                yield Static("", id="page-info")
            with ContentSwitcher(initial="transcript", id="side"):
                yield TranscriptPane(self.backend, self.requester, self.display_key, id="transcript")
                yield SpawnPanel(self.backend, self.requester, id="spawn")
        yield Composer(self.backend, self.requester, self.display_key, id="composer")
        yield DashboardFooter()

    async def on_mount(self) -> None:
        header = self.query_one(StatusHeader)
        header.state_dir = self.backend.location
        # The first page (one bounded query, not counted) is read before the first paint, so the
        # table never opens empty; every later one runs in a worker.
        self.generation += 1
        await self.start_statuses()
        first = await self.backend.browse(self.requester(), self.query_state, offset=0, limit=PAGE_SIZE, count=False)
        self.on_main_screen_page_loaded(self.PageLoaded(first, self.generation, await self._store_empty(first)))
        self.requester_changed(reload=False)
        self.query_one(SessionTable).focus()
        title_panes(self)
        self.query_one(TableHeader).show_sort(self.query_state.order_by, self.query_state.descending)
        self.set_interval(5.0, self._tick_times)

    # -- the requester --------------------------------------------------------------------------

    def requester_changed(self, reload: bool = True) -> None:
        """Acting as someone else: the table, transcript and composer show what they would."""
        header = self.query_one(StatusHeader)
        header.acting_as = self.requester_name()
        header.sandboxed = self.dashboard.sandboxed
        self.query_one(SpawnPanel).configure(self.dashboard.requester_key)
        if reload:
            self.query_one(Composer).clear_results()  # the last send was another requester's
            self._reopen = True  # the same session may now be named differently, or be gone
            self.reseed_statuses()
            self.reload_table()

    def requester_name(self) -> str:
        """Who the tools run as, named from the default agent's point of view: another agent's
        main shows as `agent:research:main`, never as a bare `main` that reads as agent main's."""
        return self.backend.display(self.dashboard.requester_key)

    def action_acting_as(self) -> None:
        """`a`: act as another session, sandboxed or not, chosen in the picker."""

        def chosen(result: tuple[str, bool] | None) -> None:
            if result is None:
                return
            key, sandboxed = result
            if key == OPERATOR:
                self.dashboard.act_as_operator()
            else:
                self.dashboard.act_as(key, sandboxed)
            self.requester_changed()
            who = "the operator" if key == OPERATOR else self.requester_name()
            self.app.notify(f"Acting as {who}" + (" (sandboxed)" if sandboxed else ""), timeout=3, markup=False)

        dashboard = self.dashboard
        current = dashboard.requester_key if dashboard.chosen else OPERATOR
        self.app.push_screen(ActingAsScreen(self.backend, current, dashboard.sandboxed), chosen)

    # -- table ----------------------------------------------------------------------------------

    def reload_table(self) -> None:
        """Read the shown page again (the first one after a filter or sort change), then count."""
        self.dashboard.collector.active()  # a page is on its way: no full collection until it is shown
        self.generation += 1
        self._from = self._from if self.page_offset else (None, None)
        self._load_page(self.generation, self.page_offset, *self._from)

    @work(exclusive=True, group="table", exit_on_error=False)
    async def _load_page(self, generation: int, offset: int, after: Any = None, before: Any = None) -> None:
        page = await self.backend.browse(
            self.requester(), self.query_state, offset=offset, limit=PAGE_SIZE, after=after, before=before, count=False
        )
        self.post_message(self.PageLoaded(page, generation, await self._store_empty(page)))

    async def _store_empty(self, page: BrowsePage) -> bool:
        """Whether an empty page means an empty state directory (asked only then: a count)."""
        return not page.rows and not page.offset and await self.backend.state_is_empty()

    def on_main_screen_page_loaded(self, event: PageLoaded) -> None:
        self.dashboard.collector.active()  # nor while it is painted
        if event.generation != self.generation:
            return
        table = self.query_one(SessionTable)
        table.load(event.page.rows, self.backend.now())
        self._first, self._last = event.page.first, event.page.last
        self.counted = event.page.total >= 0 or not event.page.rows
        if self.counted:
            self.total = max(event.page.total, 0)
        else:
            self.call_after_refresh(self._count, event.generation)  # once the page is painted
        self.store_empty = event.store_empty
        self.pages_loaded += 1
        self._page_shown_at = time.monotonic()
        self._update_counts()
        if self.query_one(TranscriptPane).key is None or self._reopen or not table.row_count:
            self._reopen = False
            self.call_after_refresh(self._sync_to_cursor, True)  # right after the table is painted
        else:
            # A filter, sort or page change: the cursor stays on the open session while it is
            # listed; otherwise the session under the cursor opens (once typing pauses).
            self._open_soon(OPEN_AFTER_TYPING_SECONDS if self._typing() else OPEN_DELAY_SECONDS)
        self.call_later(table.paint_now)  # not at the next frame: it can be 33 ms away
        self.call_after_refresh(self.load_activity)  # the sparklines, once the page is painted

    def on_table_counted(self, event: TableCounted) -> None:
        if event.generation == self.generation:  # not a count of the filter before
            self.total, self.counted = event.total, True
            self._update_counts()

    def _update_counts(self) -> None:
        table = self.query_one(SessionTable)
        header = self.query_one(StatusHeader)
        if self.counted:  # until the count comes, the last one stays (it comes right after the page)
            header.total = self.total
        header.running = sum(1 for r in table.rows_by_key.values() if r.get("status") == "running")
        if not table.row_count:
            self.query_one("#page-info", Static).update(
                literal(" " + self.empty_note(), style="$warning"), layout=False
            )
            return
        info = self.query_one("#page-info", Static)
        paged = self.total > PAGE_SIZE or bool(self.page_offset) or (not self.counted and table.row_count >= PAGE_SIZE)
        first, last, total = self.page_offset + 1, self.page_offset + table.row_count, self.shown_total
        sort = sort_words(self.query_state.order_by, self.query_state.descending)
        text = page_info(first, last, total, sort, paged=paged, room=info.size.width)
        info.update(text, layout=False)  # one line, its size fixed: no layout

    @property
    def shown_total(self) -> int | None:
        """The filtered set's size, None until it is counted."""
        return self.total if self.counted else None

    def empty_note(self, long: bool = False) -> str:
        """Why the table is empty, and what to do about it."""
        query = self.query_state
        if self.status_filter is not None:
            named = ", ".join(s for s in LIVE_STATUSES if s in self.status_filter)
            return f"no sessions {named}" + (" — esc clears the filter" if long else "")
        if query.search:
            return f'no sessions match "{query.search}" — esc clears the filter'
        if query.kinds is not None or query.active_minutes:
            return "no sessions match the kind toggles and Active filter" + (
                " — turn the kinds back on or set Active to any time" if long else ""
            )
        if self.store_empty and not self.total:
            return "no sessions yet — sessions-tui --demo starts with the demo's sessions" + (
                " (an empty state directory only); sessions appear here as they are created" if long else ""
            )
        return f"no sessions visible to {self.requester_name()}" + (" — a: act as another session" if long else "")

    @on(FilterBar.Changed)
    def _filters(self, event: FilterBar.Changed) -> None:
        search, self.status_filter = status_term(event.search)
        wanted = (search or None, event.kinds, event.active_minutes or None)
        query = self.query_state
        if not self.apply_status_filter() and wanted == (query.search, query.kinds, query.active_minutes):
            return  # widgets announcing their initial values: nothing to reload
        if wanted[0] != query.search:
            self._typed_at = time.monotonic()
        query.search, query.kinds, query.active_minutes = wanted
        self.page_offset = 0
        self.reload_table()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        """enter in the filter: back to the table, keeping the filter (as in k9s and lazygit)."""
        event.stop()
        self.query_one(SessionTable).focus()

    def action_leave_filter(self) -> None:
        """↓ in the filter goes down into the table; anywhere else ↓ is the focused widget's."""
        if self.app.focused is None or self.app.focused.id != "filter":
            raise SkipAction()
        self.query_one(SessionTable).focus()

    @on(SessionTable.SortRequested)
    def _sort(self, event: SessionTable.SortRequested) -> None:
        """A column title clicked: sort by it, or the other way round when it already sorts."""
        self.set_sort(*clicked(self.query_state.order_by, self.query_state.descending, event.order_by))

    def action_sort_prev(self) -> None:
        self.set_sort(*stepped(self.query_state.order_by, -1))

    def action_sort_next(self) -> None:
        self.set_sort(*stepped(self.query_state.order_by, 1))

    def action_sort_reverse(self) -> None:
        self.set_sort(self.query_state.order_by, not self.query_state.descending)

    def set_sort(self, order_by: str, descending: bool) -> None:
        self.query_state.order_by, self.query_state.descending = order_by, descending
        self.query_one(TableHeader).show_sort(order_by, descending)
        self.page_offset = 0
        self._update_counts()  # the sort said at once; the page follows
        self.reload_table()

    def action_prev_page(self) -> None:
        self.page(-1)

    def action_next_page(self) -> None:
        self.page(1)

    def page(self, step: int) -> None:
        """`[` / `]`: the page just after the shown one's last row (once counted: not past the end)
        or before its first (keyset paging)."""
        if (step > 0 and (not self.counted or self.page_offset + PAGE_SIZE >= self.total)) or (
            step < 0 and not self.page_offset
        ):
            shown = self.query_one(SessionTable).row_count
            note = no_page_note(step, self.page_offset, shown, self.shown_total, PAGE_SIZE)
            self.app.notify(note, timeout=3, markup=False)
            return
        self._from = (self._last, None) if step > 0 else (None, self._first)
        self.page_offset = max(0, self.page_offset + (1 if step > 0 else -1) * PAGE_SIZE)
        self.reload_table()

    def _tick_times(self) -> None:
        if not self.paused:
            self.query_one(SessionTable).refresh_times(self.backend.now())

    # -- selection ------------------------------------------------------------------------------

    @property
    def opening(self) -> bool:
        """Whether a session is about to open (the cursor moved; it opens once it rests)."""
        return self._open_timer is not None

    def _typing(self) -> bool:
        return time.monotonic() - max(self._typed_at, self._page_shown_at) < 0.2

    @on(DataTable.RowHighlighted, "#sessions")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value if event.row_key is not None else None
        if key is not None and key != self.query_one(TranscriptPane).key:
            # A new page under a filter being typed: wait for the typing to pause.
            self._open_soon(OPEN_AFTER_TYPING_SECONDS if self._typing() else OPEN_DELAY_SECONDS)

    def _open_soon(self, delay: float) -> None:
        """Open the cursor's session once the cursor rests (typing a filter or holding ↓ stays fast).

        What opens is read when the timer fires, not when it was set: a highlight posted by the
        table while it reloaded (row 0, then back to the kept row) can never open a stale row.
        """
        if self._open_timer is not None:
            self._open_timer.stop()
        self._open_timer = self.set_timer(delay, self._sync_to_cursor)

    def _sync_to_cursor(self, force: bool = False) -> None:
        """Make the transcript and the composer show the cursor's session (or none)."""
        if self._open_timer is not None:
            self._open_timer.stop()
            self._open_timer = None
        key = self.query_one(SessionTable).current_key()
        if force or key != self.query_one(TranscriptPane).key:
            self._open(key)

    def _rows_changed(self, shown_was_listed: bool) -> None:
        """A live diff removed the open session from the table, or gave an empty table its first
        rows: follow the cursor."""
        table = self.query_one(SessionTable)
        if table.row_count:
            self.store_empty = False
        self.follow_created()
        if (shown_was_listed and not self._shown_is_listed()) or (
            table.row_count and self.query_one(TranscriptPane).key is None
        ):
            self._open_soon(OPEN_DELAY_SECONDS)

    @on(DataTable.RowSelected, "#sessions")
    def _selected(self, event: DataTable.RowSelected) -> None:
        key = event.row_key.value if event.row_key is not None else None
        if key is not None:
            if self._open_timer is not None:
                self._open_timer.stop()
                self._open_timer = None
            if key != self.query_one(TranscriptPane).key:
                self._open(key)
            self.query_one("#message").focus()

    @on(SpawnPanel.ChildChosen)
    def _child_chosen(self, event: SpawnPanel.ChildChosen) -> None:
        """A run chosen in the spawn panel: its child's transcript, with the cursor on its row."""
        event.stop()
        if self.query_one(ContentSwitcher).current == "spawn":
            self.action_toggle_spawn()
        self.show_session(event.session_key)

    def show_session(self, key: str, at_message: int | None = None, at_entry: str | None = None) -> None:
        """Open `key`'s transcript with the table's cursor on its row (or say it is not in the table),
        at message number `at_message`, or else the message whose line id is `at_entry`, when given
        (a search hit)."""
        table = self.query_one(SessionTable)
        if key in table.rows_by_key:
            table.move_cursor(row=table.get_row_index(key), animate=False)
            self._sync_to_cursor()
        else:
            self._open(key)
            self.app.notify(
                f"{self.display_key(key)} is not in the table (filters or page); its transcript is shown.",
                timeout=5,
                markup=False,
            )
        if at_message is not None or at_entry:
            self.query_one(TranscriptPane).reveal(at_message, at_entry)

    def _open(self, key: str | None) -> None:
        if key is None:  # an empty table: nothing open, nothing to send to, and why
            self.query_one(TranscriptPane).open(None, self.empty_note(long=True))
            self.query_one(Composer).set_target(None, "")
            return
        row = self.query_one(SessionTable).rows_by_key.get(key or "")
        shown = row["key"] if row else self.display_key(key or "")
        pane = self.query_one(TranscriptPane)
        pane.open(key, shown)
        self.query_one(Composer).set_target(key, shown)
        self.opened(key)
        self.drop_notices(key)

    # -- the keys -------------------------------------------------------------------------------

    def action_filter(self) -> None:
        self.query_one("#filter").focus()

    def action_open(self) -> None:
        table = self.query_one(SessionTable)
        if self.focused is table:
            table.action_select_cursor()

    def action_toggle_spawn(self) -> None:
        switcher = self.query_one(ContentSwitcher)
        switcher.current = "spawn" if switcher.current == "transcript" else "transcript"
        title_panes(self)
        if switcher.current == "spawn":
            self.query_one(SpawnPanel).refresh_runs()
            self.query_one("#spawn-task").focus()
        else:
            self.query_one(SessionTable).focus()

    @property
    def ctrl_s_spawns(self) -> bool:
        """Whether ctrl+s spawns: the focus is in the spawn form, or the panel has the body to
        itself (the composer is out of sight then). Otherwise it sends the composer's message."""
        panel = self.query_one(SpawnPanel)
        return panel.form_has_focus or (panel.display and not self.query_one(Composer).display)

    def footer_labels(self) -> dict[str, str]:
        """Footer words that depend on where the focus is (action → label)."""
        if not self.is_mounted or not self.query(SpawnPanel):  # the footer composes first
            return {}
        return {"send": "spawn"} if self.ctrl_s_spawns else {}

    def action_send(self) -> None:
        """ctrl+s: the spawn form or the composer (`ctrl_s_spawns`). A priority key runs as it
        arrives, ahead of the keys a burst (a paste, a macro) forwarded before it to the focused
        field: it sends once that field has taken them (its queue reaches it)."""
        submit = self.query_one(SpawnPanel).submit if self.ctrl_s_spawns else self.query_one(Composer).send
        if self.focused is None:
            submit()
        else:
            self.focused.call_later(submit)

    def action_move(self, where: str) -> None:
        """`j k g G home end`: the focused table's cursor (the sessions, the spawn runs)."""
        move_cursor(self.focused, where)

    def action_pane(self, number: int) -> None:
        """`1`–`4`: focus that pane (panes.py)."""
        why_not = focus_pane(self, number)
        if why_not:
            self.app.notify(f"Pane {number}: {why_not}.", timeout=3, markup=False)

    def action_layout(self, step: int) -> None:
        """`+` / `_`: the next / previous layout mode (normal, side pane large, side pane full)."""
        set_layout(self, layout_mode(self) + step)

    def action_toggle_kind(self, kind: str) -> None:
        """`alt+m` … `alt+o`: show or hide one kind of session, as its toggle does."""
        shown = self.query_one(FilterBar).toggle_kind(kind)
        note = "shown" if shown else f"hidden ({KIND_KEYS[kind]} shows them again)"
        self.app.notify(f"{kind.capitalize()} sessions {note}.", timeout=2, markup=False)

    def action_toggle_tools(self) -> None:
        pane = self.query_one(TranscriptPane)
        pane.set_tools(not pane.tools)

    def action_older(self) -> None:
        if not self.query_one(TranscriptPane).load_older():
            self.app.notify("The whole history is shown.", timeout=2)

    def action_toggle_pause(self) -> None:
        self.paused = not self.paused
        self.query_one(StatusHeader).paused = self.paused
        if not self.paused:
            self.resume()

    def action_refresh(self) -> None:
        self.reload_table()
        self.query_one(TranscriptPane).reload()
        self.query_one(SpawnPanel).refresh_runs()

    def action_step_back(self) -> None:
        """`esc` (binding id `back`; Textual's own `action_back` is another thing) acts on the
        focused part first: the composer, the filters and the transcript hand the focus back to the
        table (the filter input clearing its text), the spawn form hands it to the panel's runs list
        (one key from the form, whatever the terminal), the runs list closes the panel, and on the
        table it clears the marks, then the text filter, then closes the spawn panel."""
        focused = self.focused
        inside = {node.id for node in focused.ancestors_with_self} if focused is not None else set()
        table = self.query_one(SessionTable)
        switcher = self.query_one(ContentSwitcher)
        if "spawn-form" in inside:
            self.query_one("#spawn-runs").focus()
        elif "spawn" in inside:
            self.action_toggle_spawn()
        elif focused is table and table.marked:
            table.clear_marks()
        elif focused is table:
            if not self.query_one(FilterBar).clear() and switcher.current == "spawn":
                self.action_toggle_spawn()
        else:
            if focused is not None and focused.id == "filter":
                self.query_one(FilterBar).clear()
            table.focus()

    # -- the views it opens ---------------------------------------------------------------------

    def action_sends(self) -> None:
        """`l`: the Sends view of the open session, on the composer's last send when it has one."""
        key = self.query_one(TranscriptPane).key
        run_id = self.query_one(Composer).run_id
        self.app.push_screen(SendsScreen(self.backend, self.display_key, session=key, run_id=run_id))

    def action_usage(self) -> None:
        """`U`: the Usage view as the acting-as session may see it (the operator: everything), with the
        open session's spawn tree rolled up."""
        from sessions_tui.ui.screens.usage.usage import UsageScreen

        key = self.query_one(TranscriptPane).key
        self.app.push_screen(UsageScreen(self.backend, self.display_key, self.dashboard.operator(), key))

    def action_why(self) -> None:
        """`w`: the explanation for the acting-as requester and the open session."""
        key = self._open_key("why is asked of the open session")
        if key:
            self.app.push_screen(ExplainScreen(self.backend, self.requester(), key, self.display_key))

    def action_search(self) -> None:
        """`f`/`ctrl+f`: search as the acting-as requester; the chosen hit opens its session at that message."""

        def chosen(hit: SearchHit | None) -> None:
            if hit is not None:
                self.show_session(hit.key, hit.msg_seq, hit.message_id)

        self.app.push_screen(SearchScreen(self.backend, self.requester(), self.display_key), chosen)

    def action_export(self) -> None:
        """`E`: the export box for the session open in the transcript."""
        key = self._open_key("export writes the open session")
        if key:
            self.app.push_screen(ExportScreen(self.backend, key, self.display_key(key)))

    @on(SpawnPanel.KillAsked)
    def _kill_asked(self, event: SpawnPanel.KillAsked) -> None:
        """`x` on a sub-agent: the box naming what dies; the panel kills the subtree on yes."""
        event.stop()

        def kill(yes: bool | None) -> None:
            if yes:
                self.query_one(SpawnPanel).kill(event.key)

        self.app.push_screen(KillScreen(event.question), kill)

    @on(SpawnPanel.SteerAsked)
    def _steer_asked(self, event: SpawnPanel.SteerAsked) -> None:
        """`e` on a running sub-agent: what to steer it with, then queued by the panel."""
        event.stop()

        def steer(text: str | None) -> None:
            if text:
                self.query_one(SpawnPanel).steer(event.key, text)

        self.app.push_screen(SteerScreen(event.shown), steer)

    def on_composer_refused(self, event: Composer.Refused) -> None:
        self._why_refused(event.key)

    @work(group="why", exit_on_error=False)
    async def _why_refused(self, key: str) -> None:
        """After a refusal: the send verdict's deciding rule, as a toast (`w` shows it all)."""
        verdict = await refusing_verdict(self.backend, self.requester(), key, None, "send")
        if verdict is not None:
            self.app.notify(
                f"{verdict.why}  (w: the whole answer)", title="Why refused", severity="warning", markup=False
            )
