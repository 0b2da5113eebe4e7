"""Failed background work becomes a toast: the dashboard never crashes on an error."""

from __future__ import annotations

from textual.worker import Worker, WorkerState


class ReportsWorkerErrors:
    """Mixed into every widget or screen that runs workers (their state messages do not bubble)."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            self.app.notify(  # type: ignore[attr-defined]
                f"{type(error).__name__}: {error}", title="Something went wrong", severity="error", timeout=8
            )
