"""Failed background work becomes a toast: the dashboard never crashes on an error. A write the
damaged state database refused goes to the app, which says so once whole (app.py)."""

from __future__ import annotations

from textual.worker import Worker, WorkerState

from sessions_tui.backend.values.vocabulary import StoreDamaged
from sessions_tui.terminal_text import visible
from sessions_tui.ui.messages import StoreDamageFound
from sessions_tui.ui.paths import home_relative


class ReportsWorkerErrors:
    """Mixed into every widget or screen that runs workers (their state messages do not bubble)."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            if isinstance(error, StoreDamaged):  # the app says it: once whole, then "not written"
                self.app.post_message(StoreDamageFound(str(error), refused=True))  # type: ignore[attr-defined]
                return
            self.app.notify(  # type: ignore[attr-defined]
                f"{type(error).__name__}: {visible(home_relative(str(error)))}",
                title="Something went wrong",
                severity="error",
                timeout=8,
                markup=False,  # an error's text is data: `[x]` in a path stays as written
            )
