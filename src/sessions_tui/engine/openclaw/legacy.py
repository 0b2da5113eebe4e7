"""The legacy OpenClaw layout: `agents/<id>/sessions/sessions.json` and one `<sessionId>.jsonl` each.

OpenClaw wrote this layout until mid-2026 (2026.9 converts it to SQLite with
`openclaw doctor --session-sqlite import`). A transcript's cursor is the number of physical lines
read, header included; a last line without its newline that does not parse yet is being written
and is left for the next read. Only regular files are read: a store or transcript that is a FIFO
or a device is reported and skipped, never opened (a FIFO would hang the import), and so is one
that is a link leading out of the source directory (source_paths.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import json5

from sessions_tui.engine.inputs.files import NotRegularFile
from sessions_tui.engine.openclaw.agent_db import parse_line
from sessions_tui.engine.openclaw.mirror import Canonical, Chunk, ImportReport, SourceSession
from sessions_tui.engine.openclaw.source_paths import LeavesSource, read_source_bytes

STORE_FILE = "sessions.json"


def read_session_store(path: Path, report: ImportReport, root: Path) -> dict[str, Any]:
    """`sessions.json` (in the source directory `root`) as key → entry; problems are reported, never raised."""
    try:
        text = read_source_bytes(root, path).decode("utf-8")
        try:
            data = json.loads(text)  # the common case, a hundred times faster than json5
        except ValueError:
            data = json5.loads(text)
    except NotRegularFile as exc:
        report.problem(f"{path}: session store {exc}; skipped")
        return {}
    except LeavesSource as exc:
        report.problem(str(exc))
        return {}
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        report.problem(f"{path}: cannot read session store: {exc}")
        return {}
    if not isinstance(data, dict):
        report.problem(f"{path}: session store is not a JSON object; skipped")
        return {}
    return data


class LegacyTranscript:
    """One `<sessionId>.jsonl` file of the source directory `root`, read from a physical-line cursor."""

    def __init__(self, path: Path, report: ImportReport, root: Path) -> None:
        self.path = path
        self.report = report
        self.root = root

    def read_after(self, cursor: int) -> Chunk:
        out = Chunk(lines=[], raw=[], cursor=cursor)
        try:
            # Bytes that are not UTF-8 are read as U+FFFD: the rest of their line, and the file, still count.
            text = read_source_bytes(self.root, self.path).decode("utf-8", errors="replace")
        except LeavesSource as exc:
            self.report.problem(str(exc))
            return out
        except (FileNotFoundError, NotADirectoryError):
            return out
        except NotRegularFile as exc:
            self.report.problem(f"{self.path}: transcript {exc}; skipped")
            return out
        except OSError as exc:
            self.report.problem(f"{self.path}: cannot read transcript: {exc}")
            return out
        physical = text.split("\n")
        if physical and physical[-1] == "":
            physical.pop()
        elif physical and parse_line(physical[-1])[0] is None:
            physical.pop()  # a line still being written: leave it for the next read
        out.cursor = max(cursor, len(physical))
        take = out.take
        for number, raw in enumerate(physical[cursor:], start=cursor + 1):
            line = raw.rstrip("\r")
            if not line.strip():
                continue
            why = take(line)
            if why is not None:
                self.report.problem(f"{self.path}:{number}: {why}; line skipped")
        return out

    def read_all(self) -> Chunk:
        return self.read_after(0)

    def matches(self, cursor: int, entry_id: str) -> bool:
        return True  # a legacy transcript only grows: nothing to check


def transcript_file(sessions_dir: Path, session_id: str, entry: Mapping[str, Any]) -> Path:
    """Where an entry's transcript is: its `sessionFile` if that stays in the directory."""
    session_file = entry.get("sessionFile")
    if isinstance(session_file, str) and session_file.strip():
        candidate = Path(session_file)
        if not candidate.is_absolute():
            candidate = sessions_dir / candidate
        if candidate.parent.resolve() == sessions_dir.resolve():
            return sessions_dir / candidate.name
    return sessions_dir / f"{session_id}.jsonl"


def legacy_sessions(
    store_path: Path,
    agent_dir_id: str,
    report: ImportReport,
    *,
    root: Path,
    skip_keys: set[str] | None = None,
    canonical: Canonical | None = None,
) -> Iterator[tuple[SourceSession, LegacyTranscript]]:
    """Every session of one `sessions.json` in the source directory `root` (links resolved), with
    its transcript; `skip_keys` (canonical) are left out."""
    store_path_resolved = store_path.resolve()
    for raw_key, entry in read_session_store(store_path, report, root).items():
        where = f"{store_path}: {raw_key}"
        if not isinstance(entry, dict):
            report.problem(f"{where}: entry is not an object; skipped")
            continue
        if skip_keys and canonical is not None and canonical(raw_key, agent_dir_id) in skip_keys:
            continue
        session_id = entry.get("sessionId")
        source = SourceSession(
            source_id=f"{store_path_resolved}#{raw_key}",
            where=where,
            agent_dir_id=agent_dir_id,
            raw_key=raw_key,
            session_id=session_id if isinstance(session_id, str) else "",
            entry={k: v for k, v in entry.items() if k != "sessionFile"},
        )
        path = transcript_file(store_path.parent, source.session_id or "-", entry)
        yield source, LegacyTranscript(path, report, root)
