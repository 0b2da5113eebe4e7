"""The sessions-tui dashboard: a Textual app on a backend (the embedded engine, or a remote one).

The app owns the backend's lifecycle and the viewer's identity (acting as which session,
sandboxed or not). Engine events become Textual messages; writes by other processes are noticed
through the backend's `data_version` (one cheap PRAGMA a quarter second, locally) and become
`StoreChanged`. The sub-agent sweep runs in a thread worker, off the UI loop.

A state database found damaged while it runs is said once (ui/damage.py): no more writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.worker import WorkerCancelled

from sessions_tui.backend import (
    Backend,
    EngineEvent,
    FollowStatus,
    FollowTick,
    Requester,
    StoreDamaged,
    agent_id_of,
)
from sessions_tui.terminal_text import visible
from sessions_tui.ui.collector import Collector
from sessions_tui.ui.damage import SaysStoreDamage
from sessions_tui.ui.messages import EngineEventMessage, StoreChanged, StoreDamageFound
from sessions_tui.ui.paths import home_relative
from sessions_tui.ui.screens.acting_as import ActingAsScreen
from sessions_tui.ui.screens.help import DashboardCommands, HelpScreen, binding_table
from sessions_tui.ui.screens.main import MainScreen
from sessions_tui.ui.theme import THEME
from sessions_tui.ui.widgets.composer import Composer
from sessions_tui.ui.widgets.header import StatusHeader
from sessions_tui.ui.widgets.session_table import SessionTable
from sessions_tui.ui.widgets.spawn_panel import SpawnPanel
from sessions_tui.ui.widgets.transcript import TranscriptPane

SORT = Binding.Group("sort", compact=False)
STORE_POLL_SECONDS = 0.25
SWEEP_SECONDS = 60.0
COLLECT_TICK_SECONDS = 1.0  # how often a quiet moment for a full garbage collection is looked for
log = logging.getLogger(__name__)


_UI = Path(__file__).parent


class SessionsApp(SaysStoreDamage):
    # Absolute paths, so a subclass elsewhere finds them too; in this order, as one sheet.
    CSS_PATH = [
        _UI / "app.tcss",
        _UI / "widgets" / "transcript.tcss",
        _UI / "widgets" / "composer.tcss",
        _UI / "widgets" / "spawn_panel.tcss",
        _UI / "screens" / "modals.tcss",
        _UI / "screens" / "ledger.tcss",
    ]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-medium"), (140, "-wide")]  # layouts in app.tcss
    TITLE = "sessions-tui"
    COMMANDS = App.COMMANDS | {DashboardCommands}
    BINDINGS = [  # the footer shows them in this order (widgets/footer.py: which ones fit)
        Binding("slash", "filter", "filter", id="filter", tooltip="filter sessions by key, label, channel…"),
        Binding(
            "less_than_sign", "sort_prev", "sort ←", id="sort_prev", group=SORT, tooltip="sort by the previous column"
        ),
        Binding(
            "greater_than_sign", "sort_next", "sort →", id="sort_next", group=SORT, tooltip="sort by the next column"
        ),
        Binding("I", "sort_reverse", "reverse sort", show=False, id="sort_reverse", tooltip="reverse the sort"),
        Binding("escape", "step_back", "back", id="back", tooltip="back"),  # the footer: in a field only
        Binding(
            "enter", "open", "open", show=True, id="open", tooltip="write to the highlighted session (the composer)"
        ),
        Binding(
            "t", "toggle_tools", "tools", id="tools", tooltip="show or hide tool calls and results in the transcript"
        ),
        Binding(
            "m",
            "older",
            "older messages",
            show=False,
            id="older",
            tooltip="older messages in the transcript (200 more)",
        ),
        Binding("tab", "focus_next", "focus", show=False, id="focus_next_pane", tooltip="next pane"),
        Binding("s", "toggle_spawn", "spawn", id="spawn", tooltip="open or close the spawn panel"),
        Binding("a", "acting_as", "act as", id="acting_as", tooltip="act as another session, sandboxed or not"),
        Binding("l", "sends", "sends", id="sends", tooltip="the send ledger: every sessions_send of the open session"),
        Binding("w", "why", "why", id="why", tooltip="why: may the acting-as session list, read, send to, spawn here"),
        Binding(
            "g,ctrl+f", "search", "search", id="search", tooltip="search the transcripts the acting-as session may read"
        ),
        Binding("E", "export", "export", show=False, id="export", tooltip="export the open session (redacted)"),
        Binding("p", "toggle_pause", "pause", id="pause", tooltip="pause or resume live updates"),
        Binding(
            "r", "refresh", "refresh", id="refresh", tooltip="refresh the table, the transcript and the spawn runs"
        ),
        Binding(
            "ctrl+s,ctrl+j",
            "send",
            "send",
            id="send",
            priority=True,
            tooltip="send the message (in the spawn form: spawn)",
        ),
        Binding(
            "left_square_bracket",
            "prev_page",
            "page up",
            show=False,
            id="prev_page",
            tooltip="previous page of sessions (100 a page)",
        ),
        Binding(
            "right_square_bracket",
            "next_page",
            "page down",
            show=False,
            id="next_page",
            tooltip="next page of sessions",
        ),
        Binding("question_mark", "help", "help", id="help", tooltip="help: every key"),
        Binding("q", "quit", "quit", id="quit", tooltip="quit"),
    ]

    def __init__(
        self,
        backend: Backend,
        *,
        acting_as: str = "main",
        sandboxed: bool = False,
        watch_store: bool = True,
        steady: bool = False,
        openclaw: Path | None = None,
        config_warnings: list[str] | None = None,
    ) -> None:
        """`steady` stops cursor blinking, for screenshots and snapshot tests; `openclaw` is an
        OpenClaw state directory to follow while the dashboard runs; `config_warnings` (by default
        the backend's) are shown as toasts at start, where stderr is hidden by the screen."""
        super().__init__()
        self.register_theme(THEME)
        self.config_warnings = list(config_warnings if config_warnings is not None else backend.config_warnings)
        self.theme = self._configured_theme(backend.theme)
        self.openclaw = openclaw
        self._follow_stop = asyncio.Event()
        self._follow_failure: str | None = None
        self.steady = steady
        self.backend = backend
        self.requester_key = backend.canonical(acting_as)
        self.sandboxed = sandboxed or backend.is_sandboxed(self.requester_key)
        self.paused = False
        self.watch_store = watch_store
        self._data_version = 0
        self.collector = Collector()
        self._polling = False  # a check of the store is under way (one at a time, never cancelled)
        self._unsubscribe: Any = None

    # -- identity -------------------------------------------------------------------------------

    def requester(self) -> Requester:
        """Who the tools run as now: the acting-as session and its sandbox flag."""
        return Requester(key=self.requester_key, sandboxed=self.sandboxed)

    def requester_name(self) -> str:
        """Who the tools run as, named from the default agent's point of view: another agent's
        main shows as `agent:research:main`, never as a bare `main` that reads as agent main's."""
        return self.backend.display(self.requester_key)

    def display_key(self, key: str) -> str:
        """A key as the viewer names it, redacted (a key may hold a secret; a view may cut it)."""
        return self.backend.redact(self.backend.display(key, agent_id_of(self.requester_key))) if key else key

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """A toast, its text's control and format characters shown (every toast: they name keys and
        paths, and carry agents' errors)."""
        super().notify(visible(message), title=visible(title), severity=severity, timeout=timeout, markup=markup)

    def _configured_theme(self, name: str | None) -> str:
        """The theme `ui.theme` names, else the dashboard's own (an unknown name is a config warning)."""
        if name is None or name == THEME.name:
            return THEME.name
        if name in self.available_themes:
            return name
        known = ", ".join(sorted(self.available_themes))
        self.config_warnings.append(
            f"ui.theme: no theme is called {name!r}; the dashboard's own is used (known: {known})"
        )
        return THEME.name

    # -- lifecycle ------------------------------------------------------------------------------

    async def on_mount(self) -> None:
        keymap = self.backend.keybindings
        if keymap:
            self.set_keymap(keymap)
        await self.backend.start()
        # The search index, if it is behind (a store from before it): in the background, while the dashboard runs.
        self.run_worker(self.backend.catch_up_search_index(), group="search-index", exit_on_error=False)
        self._unsubscribe = self.backend.subscribe(self._on_engine_event)
        self._data_version = await self.backend.data_version()
        if self.watch_store:
            self.set_interval(STORE_POLL_SECONDS, self._poll_store)
        self.set_interval(SWEEP_SECONDS, self._sweep)
        await self.push_screen(MainScreen(self.backend, self.requester, self.display_key))
        for warning in self.config_warnings:
            log.warning("config: %s", warning)
            self.log.warning("config:", warning)
            self.notify(home_relative(warning), title="Config warning", severity="warning", timeout=15, markup=False)
        if self.openclaw is not None:
            self.run_worker(self._follow(self.openclaw), name="openclaw-follow", group="follow", exit_on_error=False)
        self.call_after_refresh(self.collector.install)  # full collections wait for quiet moments
        self.set_interval(COLLECT_TICK_SECONDS, self.collector.tick)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseDown)):
            self.collector.active()
        await super().on_event(event)

    async def on_unmount(self) -> None:
        self._follow_stop.set()
        following = [w for w in self.workers if w.group == "follow"]
        if following:  # an empty list would mean every worker to Textual
            with contextlib.suppress(WorkerCancelled):
                await self.workers.wait_for_complete(following)
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.collector.uninstall()
        await self.backend.aclose()

    @work(group="sweep", thread=True, exit_on_error=False)
    async def _sweep(self) -> None:
        """Archive the sub-agents that are due, in a thread (the local store is SQLite): what it
        archives comes back as engine events. Not on a damaged state database."""
        if self.store_damage is not None:
            return
        try:
            await self.backend.sweep()
        except StoreDamaged as exc:
            self.post_message(StoreDamageFound(str(exc), refused=False))

    async def _follow(self, root: Path) -> None:
        """Follow an OpenClaw in the background, through a store connection of its own: its
        writes reach the dashboard like another process's, through `data_version`."""
        await self.backend.follow_openclaw(
            root, self._follow_stop, lambda tick: self._followed(root, tick), own_connection=True
        )

    def _followed(self, root: Path, tick: FollowTick) -> None:
        if tick.stopped is not None:  # the state database is damaged: the follow ended for good
            self.post_message(StoreDamageFound(self.backend.store_damage or tick.stopped, refused=False))
        failure = "stopped: the state database is damaged" if tick.stopped else "; ".join(tick.failures) or None
        if tick.first or failure != self._follow_failure or tick.changed:
            self._follow_failure = failure
            self._on_engine_event(
                FollowStatus(ts=self.backend.now(), root=str(root), failure=failure, changed=len(tick.report.changed))
            )

    def _on_engine_event(self, event: EngineEvent) -> None:
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                screen.post_message(EngineEventMessage(event))

    def _poll_store(self) -> None:
        if not self._polling:  # the last check still waits for the store: this tick is skipped
            self._polling = True
            self._check_store()

    @work(group="store-poll", thread=True, exit_on_error=False)
    async def _check_store(self) -> None:
        """Whether another process committed, asked in a thread: the store's lock may be held by a
        reader for a moment, and the event loop must never wait for it."""
        try:
            version = await self.backend.data_version()
            damage = self.backend.store_damage if self.store_damage is None else None  # one stat
        finally:
            self._polling = False
        if damage is not None:
            self.post_message(StoreDamageFound(damage, refused=False))
        if version != self._data_version:
            self._data_version = version
            for screen in self.screen_stack:
                if isinstance(screen, MainScreen):
                    screen.post_message(StoreChanged())

    @property
    def main_screen(self) -> MainScreen:
        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        raise LookupError("main screen not mounted")

    # -- actions --------------------------------------------------------------------------------

    def action_filter(self) -> None:
        self.main_screen.query_one("#filter").focus()

    def action_step_back(self) -> None:
        """esc (binding id `back`; Textual's own `action_back` is another thing)."""
        self.main_screen.back()

    def action_open(self) -> None:
        table = self.main_screen.query_one(SessionTable)
        if self.focused is table:
            table.action_select_cursor()

    def action_toggle_tools(self) -> None:
        self.main_screen.toggle_tools()

    def action_older(self) -> None:
        if not self.main_screen.query_one(TranscriptPane).load_older():
            self.notify("The whole history is shown.", timeout=2)

    def action_toggle_spawn(self) -> None:
        self.main_screen.toggle_spawn()

    def action_toggle_pause(self) -> None:
        self.paused = not self.paused
        screen = self.main_screen
        screen.query_one(StatusHeader).paused = self.paused
        if not self.paused:
            screen.resume()

    def action_refresh(self) -> None:
        screen = self.main_screen
        screen.reload_table()
        screen.query_one(TranscriptPane).reload()
        screen.query_one(SpawnPanel).refresh_runs()

    def action_send(self) -> None:
        if self.screen is self.main_screen:
            self.main_screen.send()

    def action_sort_prev(self) -> None:
        self.main_screen.sort_step(-1)

    def action_sort_next(self) -> None:
        self.main_screen.sort_step(1)

    def action_sort_reverse(self) -> None:
        self.main_screen.reverse_sort()

    def action_prev_page(self) -> None:
        self.main_screen.page(-1)

    def action_next_page(self) -> None:
        self.main_screen.page(1)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(binding_table(self)))

    def action_sends(self) -> None:
        """The Sends view of the open session, on the composer's last send when it has one."""
        from sessions_tui.ui.screens.sends import SendsScreen

        if not isinstance(self.screen, MainScreen):
            return
        key = self.main_screen.query_one(TranscriptPane).key
        run_id = self.main_screen.query_one(Composer).run_id
        self.push_screen(SendsScreen(self.backend, self.display_key, session=key, run_id=run_id))

    def action_why(self) -> None:
        from sessions_tui.ui.screens.explain import open_why

        open_why(self)

    def action_search(self) -> None:
        from sessions_tui.ui.screens.search import open_search

        open_search(self)

    def action_export(self) -> None:
        from sessions_tui.ui.screens.export import open_export

        open_export(self)

    def on_composer_refused(self, event: Composer.Refused) -> None:
        self._why_refused(event.key)

    @work(group="why", thread=True, exit_on_error=False)
    async def _why_refused(self, key: str) -> None:
        """After a refusal: the send verdict's deciding rule, as a toast (`w` shows it all)."""
        from sessions_tui.ui.screens.explain import refusing_verdict

        verdict = await refusing_verdict(self.backend, self.requester(), key, None, "send")
        if verdict is not None:
            self.notify(f"{verdict.why}  (w: the whole answer)", title="Why refused", severity="warning", markup=False)

    def action_acting_as(self) -> None:
        def chosen(result: tuple[str, bool] | None) -> None:
            if result is None:
                return
            key, sandboxed = result
            self.requester_key = self.backend.canonical(key)
            self.sandboxed = sandboxed
            self.main_screen.requester_changed()
            self.notify(
                f"Acting as {self.requester_name()}" + (" (sandboxed)" if sandboxed else ""), timeout=3, markup=False
            )

        self.push_screen(ActingAsScreen(self.backend, self.requester_key, self.sandboxed), chosen)
