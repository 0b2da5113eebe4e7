"""`sessions-tui export KEY`: one session as Markdown, a self-contained HTML page, or OpenClaw JSONL.

Redacted by default, as every other output is. `--no-redact` is the owner's alone: only on a
local state directory that belongs to the user running the command (never over `--remote`,
whose server redacts whatever it sends), and it says on stderr that the output holds secrets.
JSONL given a directory (`-o DIR/`) is written as OpenClaw's legacy layout, which
`sessions-tui import-openclaw DIR` takes back unchanged.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import TextIO

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Capability
from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.backend.toolkit.export import (
    LayoutError,
    SessionExport,
    is_layout_target,
    render_export,
    write_export,
)
from sessions_tui.backend.toolkit.keys import looks_like_session_id, looks_like_session_key
from sessions_tui.cli.backends import face_backend
from sessions_tui.cli.errors import EXIT_OK, UsageError, require
from sessions_tui.terminal_text import json_lines_for_terminal, visible_line

NO_REDACT_WARNING = (
    "warning: --no-redact: this export is NOT redacted and holds every secret of the transcript "
    "(API keys, tokens, passwords) as written; keep it private"
)


def check_key(text: str) -> str:
    """KEY as the other commands take it: a key, an alias such as main, or a sessionId."""
    key = text.strip()
    if key == "current":
        raise UsageError("KEY: 'current' names no session here; give a key")
    if not key or not (looks_like_session_key(key) or looks_like_session_id(key)):
        raise UsageError(f"KEY: not a session key or sessionId: {text!r}")
    return key


def owns_state(backend: Backend) -> bool:
    """Whether the backend is a local state directory that belongs to the user running this."""
    if not isinstance(backend, LocalBackend):
        return False
    try:
        return os.stat(backend.location).st_uid == os.getuid()
    except OSError:
        return False


async def _exported(backend: Backend, key: str, redact: bool) -> SessionExport | None:
    if not redact and isinstance(backend, LocalBackend):
        return await backend.export_session(key, redact=False)
    return await backend.export_session(key)


def _write(opts: argparse.Namespace, export: SessionExport, out: TextIO) -> None:
    target: str | None = opts.output
    if target is None or target == "-":
        text = render_export(export, opts.format)
        if opts.format == "jsonl" and out.isatty():  # Markdown and HTML show their controls already
            text = json_lines_for_terminal(text)
        out.write(text)
        out.flush()
        return
    layout = is_layout_target(target, Path(target))
    if layout and opts.format != "jsonl":
        raise UsageError(f"-o {target}: is a directory (only --format jsonl writes a directory)")
    try:
        written = write_export(export, opts.format, target, Path(target))
    except (OSError, LayoutError) as exc:
        raise UsageError(f"-o {target}: cannot write: {getattr(exc, 'strerror', None) or exc}") from None
    out.write(f"wrote {visible_line(written if layout else target)}\n")
    if layout:
        out.write(f"take it back with: sessions-tui import-openclaw {visible_line(target)}\n")


async def export_to(backend: Backend, opts: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Export `opts.key` from an open backend as `opts` asks; `UsageError` for a bad argument."""
    key = check_key(opts.key)
    redact = not opts.no_redact
    if not redact and not owns_state(backend):
        raise UsageError(
            "--no-redact: only the owner of the local state directory may export unredacted "
            f"({visible_line(backend.location)} is not yours); leave it out for a redacted export"
        )
    require(backend, Capability.EXPORT)
    export = await _exported(backend, key, redact)
    if export is None:
        raise UsageError(f"KEY: no session {key!r}")
    if not redact:
        err.write(NO_REDACT_WARNING + "\n")
        err.flush()
    _write(opts, export, out)
    return EXIT_OK


async def _run_export(opts: argparse.Namespace) -> int:
    if opts.no_redact and getattr(opts, "remote", None):  # refused before any server is asked
        raise UsageError("--no-redact: not over --remote; a server only ever sends a redacted export")
    backend = face_backend(opts)
    try:
        return await export_to(backend, opts, sys.stdout, sys.stderr)
    finally:
        await backend.aclose()


def run(opts: argparse.Namespace) -> int:
    return asyncio.run(_run_export(opts))
