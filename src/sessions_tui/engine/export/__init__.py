"""Exporting one session: Markdown, a self-contained HTML page, or OpenClaw JSONL.

The engine builds a `SessionExport` (redacted unless the owner asks otherwise); the renderers
here turn it into the file's text, with nothing of Textual, so the command line and the
dashboard write the same bytes. An unredacted export holds every secret of the transcript: its
file is its owner's alone (0600, a file that was there tightened to it), whatever the umask; a
redacted one takes the umask, as any file a command writes. (The JSONL layout's files are
written through a private temporary file, so they are 0600 either way.)
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessions_tui.engine.export.html_page import render_html
from sessions_tui.engine.export.jsonl import LayoutError, export_header, render_jsonl, write_layout
from sessions_tui.engine.export.markdown import render_markdown
from sessions_tui.engine.export.model import FORMATS, ExportFormat, SessionExport, build_export, default_file_name

if TYPE_CHECKING:
    from sessions_tui.engine.engine import Engine
    from sessions_tui.engine.store.tables.sessions import StoredSession

PRIVATE_FILE_MODE = 0o600

__all__ = [
    "FORMATS",
    "ExportFormat",
    "LayoutError",
    "SessionExport",
    "build_export",
    "default_file_name",
    "export_header",
    "is_layout_target",
    "render_export",
    "render_html",
    "render_jsonl",
    "render_markdown",
    "session_export",
    "write_export",
    "write_layout",
]


def session_export(engine: Engine, key: str, *, redact: bool = True) -> SessionExport | None:
    """The export of the session under a key in any spelling, or of a transcript a reset replaced by
    its sessionId (None: there is none), redacted by the engine's redactor unless `redact` is False
    (the owner's own command line only)."""
    store = engine.store
    session = store.sessions.get(engine.canonical(key))
    if session is not None:
        lines = store.transcripts.transcript_lines(session.key)
        return _export(engine, session, session.session_id, dict(session.entry), lines, session.updated_at, redact)
    # A transcript a reset replaced: its own lines, under its session's key, with the entry as it
    # is now but for the sessionId.
    generation = store.sessions.generation(key.strip())
    session = store.sessions.get(generation.key) if generation else None
    if generation is None or session is None:
        return None
    entry = {**dict(session.entry), "sessionId": generation.session_id, "resetAt": generation.replaced_at}
    entry.pop("previousSessionId", None)
    lines = store.sessions.lines_of(generation.session_id)
    return _export(engine, session, generation.session_id, entry, lines, generation.replaced_at, redact)


def _export(
    engine: Engine,
    session: StoredSession,
    session_id: str,
    entry: dict[str, Any],
    lines: list[str],
    updated_at: int,
    redact: bool,
) -> SessionExport:
    """One transcript of `session` (the current one, or one a reset replaced) as an export."""
    return build_export(
        key=session.key,
        session_id=session_id,
        agent_id=session.agent_id,
        channel=engine.session_channel(session.key),
        created_at=session.created_at,
        updated_at=updated_at,
        entry=entry,  # the export model keeps it as plain JSON
        lines=lines,
        redactor=engine.redactor if redact else None,
    )


def render_export(export: SessionExport, fmt: ExportFormat) -> str:
    """The file's text in the format asked for."""
    if fmt == "md":
        return render_markdown(export)
    if fmt == "html":
        return render_html(export)
    return render_jsonl(export)


def is_layout_target(target: str, path: Path) -> bool:
    """Whether `-o target` (at `path`) names a directory: ending in a slash, or one that exists."""
    return target.endswith(("/", os.sep)) or path.is_dir()


def write_export(export: SessionExport, fmt: ExportFormat, target: str, path: Path) -> Path:
    """Write the export where `target` (at `path`) says: with `jsonl` and a directory, OpenClaw's
    legacy layout under it (the transcript's path is returned), else one file in the format.
    Raises `OSError` or `LayoutError`."""
    if fmt == "jsonl" and is_layout_target(target, path):
        return write_layout(export, path)
    text = render_export(export, fmt)
    if export.redacted:
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        return path
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), PRIVATE_FILE_MODE)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
        if stat.S_ISREG(os.fstat(fd).st_mode):  # a file from before: tightened before a secret is in it
            os.fchmod(fd, PRIVATE_FILE_MODE)  # (not a terminal or a pipe named as the file)
        handle.write(text)
    return path
