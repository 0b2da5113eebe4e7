"""Export (`E` on the open session): Markdown, an HTML page or OpenClaw JSONL, written to a file.

Always redacted here (the command line's `--no-redact` is for the state directory's own user, on
purpose, alone). The export is read and written in a worker; a toast names the file by its whole
path. The path starts as `<downloads>/<the key made safe>.<ext>` — the user's downloads directory
(`$XDG_DOWNLOAD_DIR`, else the one xdg-user-dirs names, else `~/Downloads`) when it exists, else
the home directory: never the working directory, which may be a checkout — and follows the format
until it is edited; under it the box says where the path typed will be written. JSONL given a
directory (`out/`) is written as the OpenClaw layout `sessions-tui import-openclaw` takes back.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from rich.text import Text
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


def export_directory() -> Path:
    """Where an export goes unless the path is edited: the user's downloads directory
    (`$XDG_DOWNLOAD_DIR`, else xdg-user-dirs' or `~/Downloads`) when it is one, else the home directory."""
    import platformdirs  # loaded when an export is asked for

    named = os.environ.get("XDG_DOWNLOAD_DIR")
    for candidate in ([os.path.expandvars(named)] if named else []) + [platformdirs.user_downloads_dir()]:
        path = Path(candidate).expanduser()
        if path.is_absolute() and path.is_dir():
            return path
    return Path.home()


def default_path(key: str, fmt: ExportFormat, redact: Callable[[str], str], directory: Path) -> str:
    """`<directory>/<file name>`, the home directory as `~`: the key redacted (the backend's), made a safe name."""
    return home_relative(str(directory / default_file_name(key, fmt, redact)))


def whole_path(target: str) -> str:
    """The file `target` names, as a whole path (a relative one under the working directory), `~` for home."""
    return home_relative(str(Path(target).expanduser().absolute()))


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
        self.directory = export_directory()

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Static(span("Export ", "bold") + literal(self.shown_key), id="export-title")
            with RadioSet(id="export-format"):
                for fmt, name in CHOICES:
                    yield RadioButton(f"{name} (.{fmt})", value=fmt == "md", id=f"export-{fmt}")
            yield Field(value=self._default("md"), id="export-path")
            yield Static(id="export-where")
            yield Static(span("Redacted: secrets are masked.  enter: write · esc: cancel", "dim"))
            yield Static("", id="export-problem")

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()
        self._where(self.query_one("#export-path", Input).value)

    def _default(self, fmt: ExportFormat) -> str:
        return default_path(self.key, fmt, self.backend.redact, self.directory)

    @on(Input.Changed, "#export-path")
    def _path_changed(self, event: Input.Changed) -> None:
        self._where(event.value)

    def _where(self, typed: str) -> None:
        """Under the path: the whole path it names, a relative one resolved where it will be written."""
        target = typed.strip()
        shown = span("writes ", "dim") + literal(whole_path(target)) if target else Text()
        self.query_one("#export-where", Static).update(shown)

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self, event: RadioSet.Changed) -> None:
        chosen = CHOICES[event.index][0]
        path = self.query_one("#export-path", Input)
        if path.value == self._default(self.format):  # not edited: it follows the format
            path.value = self._default(chosen)
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
        shown = whole_path(str(event.path))
        self.app.notify(f"Exported {self.shown_key} to {shown}", title="Export", timeout=6, markup=False)
        self.dismiss(event.path)

    def action_cancel(self) -> None:
        self.dismiss(None)
