"""What `sessions-tui watch --notify` prints: the notices of the dashboard's rules, one record each,
and the desktop channel where the config has one.

The rules are the dashboard's (`backend/toolkit/notices/`): a watched session done, failed, stuck
or looping (the `StatusChanged` events the backend's stream carries: the status board publishes them;
`status_board` is where it is started), a reply to the operator's send (the ledger read again when
it may have moved: `send_notices.py`), a hook, a cron run. No session is on screen here, so none is
left out for it; `--session` keeps one session's. Watched: `ui.notify.watch` (no key toggles here).
The desktop channel: an OSC sequence goes to the terminal on standard error when that is one (standard
output may be a pipe: a tmux status line's), `notify-send` runs as a task; no bell, no toast.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Capability, Requester
from sessions_tui.backend.toolkit.notices.desktop import DesktopNotices, desktop_channel
from sessions_tui.backend.toolkit.notices.notice import Notice
from sessions_tui.backend.toolkit.notices.rules import NoticeRules
from sessions_tui.backend.toolkit.notices.send_notices import READ, SendNotices, may_move_ledger
from sessions_tui.backend.toolkit.notices.watch_set import WatchSet
from sessions_tui.backend.toolkit.status_board import StatusBoard
from sessions_tui.backend.values.vocabulary import EngineEvent
from sessions_tui.cli.watching.lines import Record


def status_board(backend: Backend, deliver: Callable[[EngineEvent], None]) -> StatusBoard:
    """The operator's status board (backend/toolkit/status_board.py) over `backend`, its
    `StatusChanged` delivered with the backend's events; `start` it, `close` it. It follows the
    backend's events itself; what only the watcher sees (another process's writes, polled) it is
    given (`on_event`)."""
    board = StatusBoard(backend, Requester, stuck_after_ms=backend.stuck_after_minutes * 60_000)
    board.subscribe(deliver)
    return board


def _terminal_write(text: str) -> None:
    if sys.stderr.isatty():
        sys.stderr.write(text)
        sys.stderr.flush()


class NoticeLines:
    """The notices of one `watch --notify`, as records; `wanted` keeps a session's (`--session`)."""

    def __init__(self, backend: Backend, wanted: Callable[[str | None], bool]) -> None:
        self.backend = backend
        self.wanted = wanted
        settings = backend.notify
        self.rules = NoticeRules(WatchSet.of(settings), backend.display, backend.redact)
        self.sends = SendNotices(self.rules, lambda: backend.sends(None, None, READ))
        self.ledger = Capability.LEDGER in backend.capabilities
        self.desktop = DesktopNotices(desktop_channel(settings.desktop, os.environ), _terminal_write)

    async def baseline(self) -> None:
        """What the ledger holds already: not news."""
        if self.ledger:
            await self.sends.look(None)

    async def records_of(self, event: EngineEvent) -> list[Record]:
        made: list[Notice] = []
        item = self.rules.notice_of(event, None)
        if item is not None:
            made.append(item)
        if self.ledger and may_move_ledger(event):
            made += await self.sends.look(None)
        records = []
        for notice in made:
            if self.wanted(notice.session_key):
                self.desktop.show(notice)
                records.append(record_of(notice, self.backend.display, self.backend.now()))
        return records


def record_of(notice: Notice, shown: Callable[[str], str], now: int) -> Record:
    """A notice as `watch` prints it: its kind, title and body (already redacted, one line); one
    without a time gets `now`."""
    fields = {"kind": notice.kind, "title": notice.title, "body": notice.body}
    return Record(notice.at or now, "notice", shown(notice.session_key), fields)
