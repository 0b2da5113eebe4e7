"""The main screen's notices: the rules applied to the engine's events, the channels they go out on
(a toast, the bell, the desktop), the sessions watched (`W`) and the attention list (`!`).

The rules are the backend toolkit's (`backend/toolkit/notices/`), the same as `watch --notify`'s; the
session on screen (the open transcript's) is never notified about. A reply to the operator's send
needs its ledger entry: the newest sends are read again in a worker when the ledger may have moved
(its event, or another process's write: send_notices.py). The desktop channel is decided once from
`ui.notify.desktop` and the terminal (TERM_PROGRAM, TERM); an OSC sequence goes to the terminal as
Textual writes its own (the driver), a `notify-send` runs as a task of the loop. Opening a session
drops its notices from the attention list.
"""

from __future__ import annotations

import os

from textual import events, on, work
from textual.notifications import SeverityLevel

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Capability
from sessions_tui.backend.toolkit.notices.desktop import DesktopNotices, desktop_channel
from sessions_tui.backend.toolkit.notices.notice import Notice
from sessions_tui.backend.toolkit.notices.rules import NoticeRules
from sessions_tui.backend.toolkit.notices.send_notices import READ, SendNotices, may_move_ledger
from sessions_tui.backend.toolkit.notices.watch_set import WatchSet
from sessions_tui.backend.values.vocabulary import EngineEvent
from sessions_tui.ui.dashboard import Dashboard
from sessions_tui.ui.messages import StoreChanged
from sessions_tui.ui.screens.attention.attention import AttentionScreen
from sessions_tui.ui.screens.main.operations import SessionOperations
from sessions_tui.ui.widgets.composer import Composer
from sessions_tui.ui.widgets.header import StatusHeader
from sessions_tui.ui.widgets.session_table import SessionTable
from sessions_tui.ui.widgets.transcript import TranscriptPane

KEPT = 200
"""The notices the attention list keeps (the oldest go first)."""
SEVERITY: dict[str, SeverityLevel] = {"failed": "error", "stuck": "warning", "looping": "warning"}


class Notifying(SessionOperations):
    """The notices of the main screen (it subclasses this)."""

    def __init__(self, backend: Backend, dashboard: Dashboard) -> None:
        super().__init__(backend, dashboard)
        self.notify_settings = backend.notify
        self.watch_set = WatchSet.of(self.notify_settings)
        self.notice_rules = NoticeRules(self.watch_set, dashboard.display_key, backend.redact)
        self.send_notices = SendNotices(self.notice_rules, lambda: backend.sends(None, None, READ))
        self.notices: list[Notice] = []  # newest first
        self.desktop = DesktopNotices(None, self.write_terminal)  # its channel decided once mounted

    @on(events.Mount)
    def _mounted(self) -> None:
        """The desktop channel, once the app is there: none in a headless app (tests, a snapshot);
        the ledger's baseline."""
        if not self.app.is_headless:
            self.desktop.channel = desktop_channel(self.notify_settings.desktop, os.environ)
        self._look_at_sends()  # the baseline: what the ledger holds already is not news

    # -- events to notices ----------------------------------------------------------------------

    def _noticed(self, event: EngineEvent) -> None:
        made = self.notice_rules.notice_of(event, self.query_one(TranscriptPane).key)
        if made is not None:
            self.deliver(made)
        if may_move_ledger(event):
            self._look_at_sends()

    @on(Composer.SentTo)
    def _sent_to(self, message: Composer.SentTo) -> None:
        """The composer's send reached its target: watched under `sends` at once, on any backend."""
        self.watch_set.sent_to(message.key)
        self._show_watched()

    @on(StoreChanged)
    def _store_moved(self) -> None:
        """Another process wrote: a `sessions-tui send` of the operator's may have been answered."""
        self._look_at_sends()

    @work(group="notice-sends", exit_on_error=False)
    async def _look_at_sends(self) -> None:
        """The ledger read again for the operator's sends begun or answered (the first read: the baseline)."""
        if Capability.LEDGER not in self.backend.capabilities:
            return
        for item in await self.send_notices.look(self.query_one(TranscriptPane).key):
            self.deliver(item)
        self._show_watched()  # a send may have made the highlighted session watched

    # -- the channels ---------------------------------------------------------------------------

    def deliver(self, item: Notice) -> None:
        """Into the attention list, and out on every channel the config has on."""
        self.notices.insert(0, item)
        del self.notices[KEPT:]
        self.query_one(StatusHeader).attention = len(self.notices)
        settings = self.notify_settings
        if settings.toast:
            severity = SEVERITY.get(item.kind, "information")
            self.app.notify(item.body, title=item.title, severity=severity, timeout=8, markup=False)
        if settings.bell:
            self.app.bell()
        self.desktop.show(item)

    def write_terminal(self, sequence: str) -> None:
        """An OSC sequence to the terminal, as Textual writes its own (the clipboard's OSC 52)."""
        driver = self.app._driver
        if driver is not None and not self.app.is_headless:
            driver.write(sequence)

    # -- watching and the attention list ---------------------------------------------------------

    def action_toggle_watch(self) -> None:
        """`W`: watch the highlighted session, or stop watching it."""
        key = self._highlighted_key("W watches it")
        if key is None:
            return
        watched = self.watch_set.toggle(key)
        word = "Watching" if watched else "No longer watching"
        self.app.notify(f"{word} {self.display_key(key)}.", timeout=3, markup=False)
        self._show_watched()

    def _show_watched(self) -> None:
        """The header's mark: whether the highlighted session is watched."""
        key = self.query_one(SessionTable).current_key()
        self.query_one(StatusHeader).watched = key is not None and self.watch_set.watched(key)

    def drop_notices(self, key: str) -> None:
        """`key` was opened: its notices leave the attention list."""
        kept = [item for item in self.notices if item.session_key != key]
        if len(kept) != len(self.notices):
            self.notices = kept
            self.query_one(StatusHeader).attention = len(kept)
        self._show_watched()

    def action_attention(self) -> None:
        """`!`: the attention list; a notice chosen opens its session."""

        def chosen(key: str | None) -> None:
            if key is not None:
                self.show_session(key)

        self.app.push_screen(AttentionScreen(self.notices, self.display_key, self.backend.now()), chosen)

    def show_session(self, key: str, at_message: int | None = None, at_entry: str | None = None) -> None:
        """Open `key` (the main screen's)."""
        raise NotImplementedError
