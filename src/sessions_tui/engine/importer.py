"""Import a legacy OpenClaw state directory (`agents/*/sessions/sessions.json` + transcripts).

The source is only read. Each session is imported in one transaction under its canonical key,
keeping its sessionId and every transcript line verbatim. Re-running is idempotent: a session
imported before gets only the lines its transcript gained since, and the entry fields that
changed. A corrupt line is reported as `file:line: reason` and skipped; the rest still comes in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import json5

from sessions_tui.engine.engine import Engine
from sessions_tui.engine.keys import SAFE_SESSION_ID_RE, agent_id_of
from sessions_tui.engine.store import StoreError


@dataclass
class ImportReport:
    sessions_imported: int = 0
    sessions_updated: int = 0
    sessions_unchanged: int = 0
    lines_imported: int = 0
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"imported {self.sessions_imported} sessions, updated {self.sessions_updated}, "
            f"unchanged {self.sessions_unchanged}; {self.lines_imported} transcript lines; "
            f"{len(self.problems)} problems"
        )


@dataclass
class _Transcript:
    lines: list[dict[str, Any]]
    raw: list[str]
    total_lines: int  # physical lines read, header and corrupt ones included


def _read_store(path: Path, report: ImportReport) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
        try:
            data = json.loads(text)  # the common case, a hundred times faster than json5
        except ValueError:
            data = json5.loads(text)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        report.problems.append(f"{path}: cannot read session store: {exc}")
        return {}
    if not isinstance(data, dict):
        report.problems.append(f"{path}: session store is not a JSON object; skipped")
        return {}
    return data


def _read_transcript(path: Path, skip: int, report: ImportReport) -> _Transcript:
    """Lines after the first `skip` physical lines; the session header is never imported."""
    out = _Transcript(lines=[], raw=[], total_lines=0)
    try:
        handle = path.open("r", encoding="utf-8", errors="strict", newline="")
    except OSError as exc:
        report.problems.append(f"{path}: cannot read transcript: {exc}")
        return out
    with handle:
        try:
            text = handle.read()
        except UnicodeDecodeError as exc:
            report.problems.append(f"{path}: not UTF-8 text ({exc.reason}); skipped")
            return out
    physical = text.split("\n")
    if physical and physical[-1] == "":
        physical.pop()
    elif physical and not _parses(physical[-1]):
        physical.pop()  # a line still being written: leave it for the next import
    out.total_lines = len(physical)
    for number, raw in enumerate(physical, start=1):
        if number <= skip:
            continue
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            report.problems.append(f"{path}:{number}: invalid JSON ({exc.msg} at column {exc.colno}); line skipped")
            continue
        if not isinstance(obj, dict):
            report.problems.append(f"{path}:{number}: not a JSON object; line skipped")
            continue
        if obj.get("type") == "session":
            continue
        if "message" in obj and not isinstance(obj["message"], dict):
            report.problems.append(f"{path}:{number}: message is not an object; line skipped")
            continue
        out.lines.append(obj)
        out.raw.append(line)
    return out


def _parses(line: str) -> bool:
    try:
        json.loads(line)
    except json.JSONDecodeError:
        return False
    return True


def _transcript_file(sessions_dir: Path, session_id: str, entry: dict[str, Any]) -> Path:
    session_file = entry.get("sessionFile")
    if isinstance(session_file, str) and session_file.strip():
        candidate = Path(session_file)
        if not candidate.is_absolute():
            candidate = sessions_dir / candidate
        if candidate.parent.resolve() == sessions_dir.resolve():
            return candidate
    return sessions_dir / f"{session_id}.jsonl"


def _changed_fields(engine: Engine, source_id: str, source_entry: dict[str, Any]) -> dict[str, Any]:
    """Entry fields that changed in the source since the last import (a label set, a newer
    updatedAt…); what sessions-tui itself changed meanwhile is kept unless the source changed it too.
    """
    before = engine.store.imported_entry(source_id)
    changed = {k: v for k, v in source_entry.items() if k != "sessionId" and before.get(k) != v}
    updated = changed.get("updatedAt")
    if "updatedAt" in changed and (isinstance(updated, bool) or not isinstance(updated, (int, float))):
        del changed["updatedAt"]
    return changed


def import_openclaw(engine: Engine, source: Path) -> ImportReport:
    """Import every agent's sessions under `source/agents/*/sessions/`."""
    report = ImportReport()
    source = source.expanduser()
    agents_dir = source / "agents"
    if not agents_dir.is_dir():
        report.problems.append(f"{source}: no agents/ directory here; is this an OpenClaw state directory?")
        return report
    for store_path in sorted(agents_dir.glob("*/sessions/sessions.json")):
        entries = _read_store(store_path, report)
        for raw_key, entry in entries.items():
            _import_session(engine, store_path, raw_key, entry, report)
    return report


def _import_session(
    engine: Engine, store_path: Path, raw_key: str, entry: Any, report: ImportReport
) -> None:
    where = f"{store_path}: {raw_key}"
    if not isinstance(entry, dict):
        report.problems.append(f"{where}: entry is not an object; skipped")
        return
    session_id = entry.get("sessionId")
    if not isinstance(session_id, str) or not SAFE_SESSION_ID_RE.match(session_id):
        report.problems.append(f"{where}: missing or invalid sessionId; skipped")
        return
    agent_dir_id = store_path.parent.parent.name
    key = engine.canonical(raw_key, agent_dir_id)
    source_id = f"{store_path.resolve()}#{raw_key}"
    transcript_path = _transcript_file(store_path.parent, session_id, entry)
    done = engine.store.imported_lines(source_id)
    if done is None and engine.store.get(key) is not None:
        report.problems.append(f"{where}: a session {key} already exists here; skipped")
        return
    if done is not None:
        previous = engine.store.imported_session_id(source_id)
        if previous is not None and previous != session_id:
            report.problems.append(
                f"{where}: sessionId changed from {previous} to {session_id} (reset in OpenClaw); "
                "kept the transcript imported before, the new one was not imported"
            )
            return
    updated = entry.get("updatedAt")
    if "updatedAt" in entry and (isinstance(updated, bool) or not isinstance(updated, (int, float))):
        report.problems.append(f"{where}: updatedAt is not a number ({updated!r}); using the import time")
    transcript = (
        _read_transcript(transcript_path, done or 0, report)
        if transcript_path.exists()
        else _Transcript([], [], 0)
    )
    clean = {k: v for k, v in entry.items() if k not in ("sessionFile",)}
    try:
        if done is None:
            if agent_id_of(key) != agent_dir_id and key not in ("global", "unknown"):
                clean.setdefault("importedFromAgent", agent_dir_id)
            engine.store.import_session(
                key, clean, session_id=session_id, lines=transcript.lines, raw=transcript.raw,
                source=source_id, source_lines=transcript.total_lines,
            )
            report.sessions_imported += 1
        else:
            changed = _changed_fields(engine, source_id, clean)
            if changed:
                engine.store.patch(key, changed)
            if transcript.lines:
                engine.store.append_lines(key, transcript.lines, raw=transcript.raw, touch=False)
            if changed or transcript.lines:
                engine.store.record_import(source_id, key, transcript.total_lines, clean)
            if changed or transcript.lines:
                report.sessions_updated += 1
            else:
                report.sessions_unchanged += 1
    except StoreError as exc:
        report.problems.append(f"{where}: {exc}; skipped")
        return
    report.lines_imported += len(transcript.lines)
