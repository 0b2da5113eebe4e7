"""OpenClaw's SQLite sessions as import sources: a `session_nodes` row and its transcript events.

The transcript cursor is the next `seq` to read (`seq 0` is the session header, so it counts lines
consumed, header included, as the legacy layout's physical-line cursor does).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from sessions_tui.engine.openclaw.agent_db import AgentDb, AgentDbError, EventRow, NodeRow, parse_line
from sessions_tui.engine.openclaw.mirror import Chunk, ImportReport, SourceSession

# Columns that OpenClaw keeps beside the entry; they fill the entry where it lacks them.
_COLUMN_FIELDS = {
    "label": "label",
    "display_name": "displayName",
    "status": "status",
    "spawned_by": "spawnedBy",
    "parent_session_key": "parentSessionKey",
}


class EventStream:
    """One ordered read of the lines of many sessions, handed out session by session in the
    order of their ids: a batch of sessions seen for the first time costs one query, not one each."""

    def __init__(self, db: AgentDb, session_ids: list[str]) -> None:
        self._rows = db.events_of(sorted(session_ids))
        self._next: EventRow | None = None
        self._last: str | None = None

    def take(self, session_id: str) -> list[EventRow] | None:
        """The session's lines; None when asked out of order (the stream is past it: read it alone)."""
        if self._last is not None and session_id <= self._last:
            return None
        self._last = session_id
        out: list[EventRow] = []
        while True:
            row = self._next if self._next is not None else next(self._rows, None)
            self._next = None
            if row is None:
                return out
            if row.session_id > session_id:
                self._next = row
                return out
            if row.session_id == session_id:
                out.append(row)
            # rows of a session before this one belong to one that was not read after all


class SqliteTranscript:
    """One session's `transcript_events`."""

    def __init__(
        self, db: AgentDb, session_id: str, where: str, report: ImportReport, stream: EventStream | None = None
    ) -> None:
        self.db = db
        self.session_id = session_id
        self.where = where
        self.report = report
        self._stream = stream

    def _events(self, cursor: int) -> list[EventRow]:
        stream, self._stream = self._stream, None  # good for the first whole read only
        if stream is not None and cursor == 0:
            events = stream.take(self.session_id)
            if events is not None:
                return events
        return self.db.events(self.session_id, cursor)

    def read_after(self, cursor: int) -> Chunk:
        out = Chunk(lines=[], raw=[], cursor=cursor)
        for event in self._events(cursor):
            out.cursor = max(out.cursor, event.seq + 1)
            if event.seq == 0:
                continue  # the session header
            if event.text is None:
                self.report.problem(f"{self.where}: seq {event.seq}: {event.problem}; line skipped")
                continue
            why = out.take(event.text)
            if why is not None:
                self.report.problem(f"{self.where}: seq {event.seq}: {why}; line skipped")
        return out

    def read_all(self) -> Chunk:
        return self.read_after(0)

    def matches(self, cursor: int, entry_id: str) -> bool:
        """Whether the line before `cursor` is still the one with `entry_id`: a line that is gone
        says no; one that cannot be read, or has no id, is no evidence of a rewrite."""
        events = self.db.events(self.session_id, cursor - 1)
        if not events or events[0].seq != cursor - 1:
            return False
        if events[0].text is None:
            return True
        obj, _ = parse_line(events[0].text)
        there = obj.get("id") if obj else None
        return not isinstance(there, str) or there == entry_id


def source_of(
    db: AgentDb, agent_dir_id: str, node: NodeRow, entry_json: str | None, report: ImportReport
) -> SourceSession:
    """The import source of one `session_nodes` row (its entry as OpenClaw wrote it)."""
    where = f"{db.path}: {node.session_key}"
    entry: dict[str, Any] = {}
    if entry_json is not None:
        try:
            value = json.loads(entry_json)
        except json.JSONDecodeError as exc:
            report.problem(f"{where}: entry_json is not JSON ({exc.msg}); imported from its columns")
        else:
            if isinstance(value, dict):
                entry = value
            else:
                report.problem(f"{where}: entry_json is not an object; imported from its columns")
    for column, name in _COLUMN_FIELDS.items():
        value = getattr(node, column)
        if value is not None and name not in entry:
            entry[name] = value
    if node.updated_at is not None and "updatedAt" not in entry:
        entry["updatedAt"] = node.updated_at
    entry["sessionId"] = node.current_session_id
    return SourceSession(
        source_id=f"{db.resolved}#{node.session_key}",
        where=where,
        agent_dir_id=agent_dir_id,
        raw_key=node.session_key,
        session_id=node.current_session_id,
        entry=entry,
        archived_at=node.archived_at,
        has_archive_state=True,
    )


def sqlite_sessions(
    db: AgentDb,
    agent_dir_id: str,
    nodes: list[NodeRow],
    report: ImportReport,
    *,
    is_new: Callable[[str], bool] | None = None,
    batch: int = 500,
) -> Iterator[tuple[SourceSession, SqliteTranscript]]:
    """Sources for the given nodes, their entries read a batch at a time. The transcripts of
    the sessions `is_new` says were never imported are read in one query per batch."""
    for start in range(0, len(nodes), batch):
        part = nodes[start : start + batch]
        try:
            entries = db.entries([n.session_key for n in part])
        except AgentDbError as exc:
            report.problem(str(exc))
            continue
        sources = [source_of(db, agent_dir_id, node, entries.get(node.session_key), report) for node in part]
        fresh = {s.session_id for s in sources if is_new is not None and is_new(s.source_id)}
        stream = EventStream(db, sorted(fresh)) if fresh else None
        if stream is not None:
            sources.sort(key=lambda s: s.session_id)  # the stream's order
        for source in sources:
            taken = stream if source.session_id in fresh else None
            yield source, SqliteTranscript(db, source.session_id, source.where, report, taken)
