"""A state database found damaged while the dashboard runs: said once, and no more writes.

It may be found by a write (refused, `StoreDamaged`), by a read SQLite failed, by another process
(the store poll notices the note it left), or by the OpenClaw follower, which stops. The first
finding is an error toast naming the file and what to do (restore it, or `sqlite3 .recover`), and
the header says `store damaged · read-only` from then on; each write the user asks for after that
is refused with a short toast saying it was not written, and the same line. Reading goes on.
"""

from __future__ import annotations

import logging

from textual.app import App

from sessions_tui.ui.messages import StoreDamageFound
from sessions_tui.ui.paths import home_relative
from sessions_tui.ui.widgets.header import StatusHeader

log = logging.getLogger(__name__)

NOTICE_SECONDS = 120  # the header keeps saying it after the toast goes (its tooltip has the line)


class SaysStoreDamage(App[None]):
    """The dashboard's part that tells of a damaged state database (`StoreDamageFound`)."""

    store_damage: str | None = None
    """The line naming the damaged state database and what to do, once it is found."""

    def on_store_damage_found(self, message: StoreDamageFound) -> None:
        if self.store_damage is None:
            self.store_damage = message.notice.removesuffix("; nothing was written")
            shown = home_relative(self.store_damage)
            log.error("%s", self.store_damage)
            for screen in self.screen_stack:
                for header in screen.query(StatusHeader):
                    header.damaged = shown
            self.notify(
                shown,
                title="The state database is damaged: nothing more is written to it",
                severity="error",
                timeout=NOTICE_SECONDS,
                markup=False,
            )
        elif message.refused:
            self.notify(home_relative(message.notice), title="Not written", severity="error", timeout=8, markup=False)
