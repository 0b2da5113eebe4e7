"""Export (`E` on the open session): Markdown, an HTML page or OpenClaw JSONL, written to a file.

Always redacted here (the command line's `--no-redact` is the owner's, on purpose, alone). The
export is read and written in a worker; a toast names the file. The path starts as
`./<the key made safe>.<ext>` and follows the format until it is edited; JSONL given a directory
(`out/`) is written as the OpenClaw layout `sessions-tui import-openclaw` takes back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, RadioButton, RadioSet, Static

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable
from sessions_tui.backend.toolkit.export import ExportFormat, LayoutError, default_file_name, write_export
from sessions_tui.ui.paths import home_relative
from sessions_tui.ui.text import literal, span
from sessions_tui.ui.widgets.field import Field

CHOICES: list[tuple[ExportFormat, str]] = [
    ("md", "Markdown"),
    ("html", "HTML page (self-contained)"),
    ("jsonl", "OpenClaw JSONL"),
]


def default_path(key: str, fmt: ExportFormat, redact: Callable[[str], str]) -> str:
    """`./<file name>` in the working directory: the key redacted (the backend's), made a safe name."""
    return f"./{default_file_name(key, fmt, redact)}"


async def export_to_file(backend: Backend, key: str, fmt: ExportFormat, target: str) -> Path:
    """Read the session's redacted export and write it; raises `OSError`, `LayoutError`,
    `BackendUnavailable` or `LookupError` (the session is gone) with a message to show."""
    export = await backend.export_session(key)
    if export is None:
        raise LookupError(f"no session {key}")
    return write_export(export, fmt, target, Path(target).expanduser())


class ExportScreen(ModalScreen[Path | None]):
    """The format, the path; enter writes, escape leaves. Dismissed with the file written."""

    CSS_PATH = Path(__file__).parent / "export.tcss"
    BINDINGS = [Binding("escape", "cancel", "cancel")]

    class Written(Message):
        def __init__(self, path: Path | None, problem: str | None) -> None:
            super().__init__()
            self.path, self.problem = path, problem

    def __init__(self, backend: Backend, key: str, shown_key: str) -> None:
        super().__init__()
        self.backend, self.key, self.shown_key = backend, key, shown_key
        self.format: ExportFormat = "md"

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Static(span("Export ", "bold") + literal(self.shown_key), id="export-title")
            with RadioSet(id="export-format"):
                for fmt, name in CHOICES:
                    yield RadioButton(f"{name} (.{fmt})", value=fmt == "md", id=f"export-{fmt}")
            yield Field(value=default_path(self.key, "md", self.backend.redact), id="export-path")
            yield Static(span("Redacted: secrets are masked.  enter: write · esc: cancel", "dim"))
            yield Static("", id="export-problem")

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self, event: RadioSet.Changed) -> None:
        chosen = CHOICES[event.index][0]
        path = self.query_one("#export-path", Input)
        redact = self.backend.redact
        if path.value == default_path(self.key, self.format, redact):  # not edited: it follows the format
            path.value = default_path(self.key, chosen, redact)
        self.format = chosen

    @on(Input.Submitted, "#export-path")
    def _submitted(self, event: Input.Submitted) -> None:
        target = event.value.strip()
        if not target:
            self.query_one("#export-problem", Static).update(span("Give a file to write.", "$error"))
            return
        self._write(self.format, target)

    @work(exclusive=True, exit_on_error=False)
    async def _write(self, fmt: ExportFormat, target: str) -> None:
        try:
            path = await export_to_file(self.backend, self.key, fmt, target)
        except (OSError, LayoutError, BackendUnavailable, LookupError) as exc:
            problem = f"{target}: {exc.strerror}" if isinstance(exc, OSError) and exc.strerror else str(exc)
            self.post_message(self.Written(None, problem))
            return
        self.post_message(self.Written(path, None))

    def on_export_screen_written(self, event: Written) -> None:
        if event.path is None:
            self.query_one("#export-problem", Static).update(literal(f"Not written: {event.problem}", "$error"))
            return
        shown = home_relative(str(event.path))
        self.app.notify(f"Exported {self.shown_key} to {shown}", title="Export", timeout=6, markup=False)
        self.dismiss(event.path)

    def action_cancel(self) -> None:
        self.dismiss(None)
