"""The sessions-tui dashboard: a Textual app on a backend (the embedded engine, or a remote one).

The app owns the backend's lifecycle and the viewer's identity (acting as which session,
sandboxed or not). Engine events become Textual messages; writes by other processes are noticed
through the backend's `data_version` (one cheap PRAGMA a quarter second, locally) and become
`StoreChanged`. The app and its screens call the backend one way: awaited on the app's loop (async
workers, timers), the backend keeping the loop free (a local one runs its store work on the store's
thread, a remote one its I/O on a loop of its own).

A state database found damaged while it runs is said once (ui/damage.py): no more writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.worker import WorkerCancelled

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable, Requester
from sessions_tui.backend.toolkit.keys import agent_id_of
from sessions_tui.backend.values.vocabulary import EngineEvent, FollowStatus, LinkChanged, StoreDamaged
from sessions_tui.terminal_text import visible
from sessions_tui.ui.collector import Collector
from sessions_tui.ui.damage import SaysStoreDamage
from sessions_tui.ui.focus_keys import move_focus_now
from sessions_tui.ui.messages import EngineEventMessage, StoreChanged, StoreDamageFound
from sessions_tui.ui.paths import home_relative
from sessions_tui.ui.screens.main.help import DashboardCommands, HelpScreen, binding_table
from sessions_tui.ui.screens.main.main import MainScreen
from sessions_tui.ui.theme import THEME

if TYPE_CHECKING:  # a dashboard that follows nothing (a gateway's, a server's) does not load the follow
    from sessions_tui.backend.toolkit.openclaw import FollowTick

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
        _UI / "screens" / "dialogs" / "modals.tcss",
        _UI / "screens" / "ledger" / "ledger.tcss",
        _UI / "screens" / "attention" / "attention.tcss",
    ]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-medium"), (140, "-wide")]  # layouts in app.tcss
    TITLE = "sessions-tui"
    COMMANDS = App.COMMANDS | {DashboardCommands}
    # App-wide keys only, after the main screen's (screens/main/main_keys.py) in the footer, help and palette.
    BINDINGS = [
        Binding("tab", "focus_next", "focus", show=False, id="focus_next_pane", tooltip="next pane"),
        Binding("question_mark", "help", "help", id="help", tooltip="help: every key"),
        Binding("q", "quit", "quit", id="quit", tooltip="quit"),
    ]

    def __init__(
        self,
        backend: Backend,
        *,
        acting_as: str = "main",
        sandboxed: bool = False,
        chosen: bool = False,
        watch_store: bool = True,
        steady: bool = False,
        openclaw: Path | None = None,
        config_warnings: list[str] | None = None,
    ) -> None:
        """`steady` stops cursor blinking, for screenshots and snapshot tests; `openclaw` is an
        OpenClaw state directory to follow while the dashboard runs; `config_warnings` (by default
        the backend's) are shown as toasts at start, where stderr is hidden by the screen.
        `chosen`: the user chose whom to act as (`--as`, `--sandboxed`): the operations on a session
        are that requester's, as they are after a choice with `a` (else the operator's)."""
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
        self.chosen = chosen
        self.watch_store = watch_store
        self._data_version = 0
        self.collector = Collector()
        self._unsubscribe: Callable[[], None] | None = None
        self._main: MainScreen | None = None
        self.start_refused: str | None = None
        """Why the backend would not start (a gateway that refused while the screens started), for
        the command line to say once the terminal is its again."""

    # -- identity -------------------------------------------------------------------------------

    def requester(self) -> Requester:
        """Who the tools run as now: the acting-as session and its sandbox flag."""
        return Requester(key=self.requester_key, sandboxed=self.sandboxed)

    def act_as(self, key: str, sandboxed: bool) -> None:
        """Run the tools as `key` from now on (the act-as picker's choice), sandboxed or not."""
        self.requester_key = self.backend.canonical(key)
        self.sandboxed = sandboxed
        self.chosen = True

    def act_as_operator(self) -> None:
        """Act as no session (the picker's `operator`): sends go in as main, operations reach all."""
        self.requester_key = self.backend.main_session_key()
        self.sandboxed = self.backend.is_sandboxed(self.requester_key)
        self.chosen = False

    def operator(self) -> Requester | None:
        """Who an operation on a session is done as: the acting-as session once the user chose one
        (`a`, `--as`, `--sandboxed`), else None, the operator (as `sessions-tui session` without
        `--as`); a send always goes as the acting-as session."""
        return self.requester() if self.chosen else None

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
        waiting = self.backend.subscribe(self._on_start_event)  # a pairing request while it starts
        try:
            await self.backend.start()
        except BackendUnavailable as exc:  # a server connecting while the screens started refused
            self.start_refused = str(exc)
            self.exit(return_code=2)
            return
        finally:
            waiting()
        await self.backend.serve_cron_jobs()  # a local engine's jobs run while the dashboard is open
        # The search index, if it is behind (a store from before it): in the background, while the dashboard runs.
        self.run_worker(self.backend.catch_up_search_index(), group="search-index", exit_on_error=False)
        self._unsubscribe = self.backend.subscribe(self._on_engine_event)
        self._data_version = await self.backend.data_version()
        if self.watch_store:
            self.set_interval(STORE_POLL_SECONDS, self._poll_store)
        self.set_interval(SWEEP_SECONDS, self._sweep)
        self._main = MainScreen(self.backend, self)
        await self.push_screen(self._main)
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
        if isinstance(event, events.Key) and await move_focus_now(self, event):
            return
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

    @work(group="sweep", exit_on_error=False)
    async def _sweep(self) -> None:
        """Archive the sub-agents that are due (off the loop, in the backend): what it archives
        comes back as engine events. Not on a damaged state database."""
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

    def _on_start_event(self, event: EngineEvent) -> None:
        """Before the main screen: a gateway asking its owner to approve this device says so (the
        command) while the dashboard waits. From the backend's thread."""
        if isinstance(event, LinkChanged) and event.state == "pairing" and event.line:
            self.call_from_thread(
                self.notify, event.line, title="OpenClaw gateway", severity="warning", timeout=60, markup=False
            )

    def _on_engine_event(self, event: EngineEvent) -> None:
        if self._main is not None:
            self._main.post_message(EngineEventMessage(event))

    async def _poll_store(self) -> None:
        """Whether another process committed: one cheap call, awaited by the poll's timer itself
        (no worker per tick; a tick still waiting when the next is due skips it). The backend keeps
        the loop free: the store's lock may be held by a reader for a moment."""
        try:
            version = await self.backend.data_version()
            damage = self.backend.store_damage if self.store_damage is None else None  # one stat
        except Exception:  # noqa: BLE001 - a failed check (a remote server gone) is tried again at the next tick
            log.debug("store poll failed", exc_info=True)
            return
        if damage is not None:
            self.post_message(StoreDamageFound(damage, refused=False))
        if version != self._data_version:
            self._data_version = version
            if self._main is not None:
                self._main.post_message(StoreChanged())

    @property
    def main_screen(self) -> MainScreen:
        """The dashboard's screen (under the views it opens), once mounted."""
        if self._main is None:
            raise LookupError("main screen not mounted")
        return self._main

    # -- app-wide keys ------------------------------------------------------------------------

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Of Textual's own palette commands only the theme: its Keys, Maximize and Screenshot are
        not the dashboard's, and Quit is ours already (DashboardCommands)."""
        yield SystemCommand("Change theme", "Change the current theme", self.action_change_theme)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(binding_table(self, self.main_screen)))
