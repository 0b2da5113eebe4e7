"""A session as OpenClaw JSONL: its session header, then every stored line as stored.

`import-openclaw` reads OpenClaw's legacy layout, so `write_layout` writes one:
`<dir>/agents/<agentId>/sessions/sessions.json` (the entry under its key) beside
`<sessionId>.jsonl`. `sessions-tui import-openclaw <dir>` takes the session back with its key,
sessionId, entry and every line unchanged, and exporting it again gives the same bytes: the
header is built only from what an import keeps (the sessionId, and the time of the first line,
since an imported session's own creation time is when it was imported), with `cwd` ".".
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from sessions_tui.engine.clock import iso_from_ms
from sessions_tui.engine.export.items import iso_ms
from sessions_tui.engine.export.model import SessionExport
from sessions_tui.engine.inputs.surrogates import loads
from sessions_tui.engine.sessions.entry import is_int
from sessions_tui.engine.sessions.keys import agent_id_of
from sessions_tui.engine.store.tables.transcripts import mirror_header

EXPORT_CWD = Path(".")
LAYOUT_STORE = "sessions.json"


class LayoutError(Exception):
    """The layout cannot be written there (an unreadable sessions.json in the way…)."""


def _first_line_time(lines: list[str]) -> int | None:
    for text in lines[:1]:
        try:
            line = loads(text)
        except (ValueError, RecursionError):
            return None
        return iso_ms(line.get("timestamp")) if isinstance(line, dict) else None
    return None


def _header_time(export: SessionExport) -> int:
    """The first line's time, else the entry's `updatedAt` (what an import creates the session
    at), else the session's creation time."""
    updated = export.entry.get("updatedAt")
    for candidate in (_first_line_time(export.lines), updated, export.created_at):
        if is_int(candidate):
            try:
                iso_from_ms(candidate)
            except (OverflowError, ValueError, OSError):
                continue
            return candidate
    return 0


def export_header(export: SessionExport) -> str:
    """The session header line OpenClaw writes first in a transcript."""
    return mirror_header(export.session_id, _header_time(export), EXPORT_CWD)


def render_jsonl(export: SessionExport) -> str:
    """The transcript file: header, then each stored line, each ending in a newline."""
    return "\n".join([export_header(export), *export.lines, ""])


def _write_atomic(path: Path, data: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read_store(path: Path) -> dict[str, Any]:
    """The sessions.json already there (exports of several sessions into one directory add up)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise LayoutError(f"{path}: cannot add to it: {exc}") from None
    if not isinstance(data, dict):
        raise LayoutError(f"{path}: not a JSON object; cannot add to it")
    return data


def write_layout(export: SessionExport, root: Path) -> Path:
    """Write the session as OpenClaw's legacy layout under `root`; returns the transcript's path.
    Raises `OSError` or `LayoutError` when it cannot."""
    sessions = root / "agents" / agent_id_of(export.key) / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    transcript = sessions / f"{export.session_id}.jsonl"
    _write_atomic(transcript, render_jsonl(export))
    store_path = sessions / LAYOUT_STORE
    store = _read_store(store_path)
    store[export.key] = {**export.entry, "sessionId": export.session_id}
    _write_atomic(store_path, json.dumps(store, indent=2, ensure_ascii=False) + "\n")
    return transcript
