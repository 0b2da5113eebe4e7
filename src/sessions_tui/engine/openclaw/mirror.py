"""Bringing one OpenClaw session into the embedded store, whichever layout it was read from.

A session is imported once, then kept in step: the entry fields that changed in OpenClaw since
the last read, the lines its transcript gained (from a cursor kept per source), or, when OpenClaw
rewrote the transcript, the whole transcript again. Each of these is all or nothing (its own
transaction, or a savepoint in a batch that commits every fraction of a second), so a stop at
any moment leaves nothing half-written. Sessions that came from OpenClaw belong to it
(docs/decisions.md D17): the engine only mirrors them, unless they were adopted (`import-openclaw
--adopt`): then they are the engine's, never mirrored again, and adopting again takes what OpenClaw
added to one only while the engine has written nothing into it since.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

from sessions_tui.counting import plural
from sessions_tui.engine.openclaw.agent_db import parse_line
from sessions_tui.engine.redaction.cut import redact_then_cut
from sessions_tui.engine.redaction.redact import default_redactor
from sessions_tui.engine.sessions.entry import is_number
from sessions_tui.engine.sessions.keys import SAFE_SESSION_ID_RE, agent_id_of
from sessions_tui.engine.store.connection import StoreDamaged, StoreError
from sessions_tui.engine.store.store import Store
from sessions_tui.engine.store.tables.imports import ImportState

Canonical = Callable[[str, str], str]
"""(raw key, agent directory id) → the canonical key it is stored under."""

Outcome = Literal["imported", "updated", "unchanged", "skipped"]

LATEST_MS = 253_402_300_799_999
"""9999-12-31T23:59:59.999Z, the latest time a timestamp can show."""


class ImportReport(BaseModel):
    """What an import (or one follow step) did, and the problems it met, each once."""

    sessions_imported: int = 0
    sessions_updated: int = 0
    sessions_unchanged: int = 0
    lines_imported: int = 0
    sources: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    changed: dict[str, int] = Field(default_factory=dict)
    """Keys of the sessions that changed, each with the number of lines it gained."""
    adopted_sessions: int = 0
    """With `--adopt`: the sessions that became the engine's, or that adopting again brought lines or changes to."""
    kept: dict[str, int] = Field(default_factory=dict)
    """With `--adopt`: adopted sessions changed both here and in OpenClaw since they were adopted, kept as
    the engine has them; each with the transcript lines OpenClaw gained that were not taken."""

    def count_lines(self, key: str, lines: int) -> None:
        self.lines_imported += lines
        self.changed[key] = self.changed.get(key, 0) + lines

    def problem(self, text: str) -> None:
        if text not in self.problems:
            self.problems.append(text)

    def shown(self, redact: Callable[[str], str]) -> ImportReport:
        """The report as it is shown: its problems and sources redacted (a session key or a file
        name in OpenClaw may hold a secret). The keys of `changed` stay the references they are."""
        return self.model_copy(
            update={"problems": [redact(p) for p in self.problems], "sources": [redact(s) for s in self.sources]}
        )

    def summary(self) -> str:
        return (
            f"imported {plural(self.sessions_imported, 'session')}, updated {self.sessions_updated}, "
            f"unchanged {self.sessions_unchanged}; {plural(self.lines_imported, 'transcript line')}; "
            f"{plural(len(self.problems), 'problem')}"
        )


@dataclass
class Chunk:
    """Transcript lines read from a source, and the cursor after them."""

    lines: list[dict[str, Any]]
    raw: list[str]
    cursor: int

    def take(self, text: str) -> str | None:
        """Add one line as read, unless it is a header; returns why it is not a transcript line,
        if it is not (the caller reports it, naming where it is: built only then)."""
        obj, why = parse_line(text)
        if obj is None:
            return why
        if obj.get("type") != "session":
            self.lines.append(obj)
            self.raw.append(text)
        return None


class TranscriptSource(Protocol):
    """A session's transcript in one layout; a cursor counts lines consumed, header included."""

    def read_after(self, cursor: int) -> Chunk: ...

    def read_all(self) -> Chunk: ...

    def matches(self, cursor: int, entry_id: str) -> bool:
        """Whether the last line consumed at `cursor` is still the one with `entry_id`."""
        ...


@dataclass
class SourceSession:
    """One session as OpenClaw holds it."""

    source_id: str  # where it came from: `<store path>#<key as OpenClaw spells it>`
    where: str  # how problems name it
    agent_dir_id: str
    raw_key: str
    session_id: str
    entry: dict[str, Any]
    archived_at: int | None = None
    has_archive_state: bool = False  # whether the layout records archiving at all
    extra: dict[str, Any] = field(default_factory=dict)


class Mirror:
    """Applies OpenClaw sessions to a store; `canonical` maps OpenClaw keys to ours."""

    def __init__(self, store: Store, canonical: Canonical, *, adopt: bool = False) -> None:
        """`adopt`: the sessions applied become the engine's (`import-openclaw --adopt`)."""
        self.store = store
        self.canonical = canonical
        self.adopt = adopt
        self._took = False  # whether the session being applied was adopted or took something as adopted
        self._checkpoint: Callable[[], None] = _no_checkpoint

    @contextmanager
    def batched(self) -> Iterator[None]:
        """Sessions applied meanwhile share transactions (committed every 0.2 s): one commit per
        session is most of an import's time."""
        with self.store.batch() as checkpoint:
            self._checkpoint = checkpoint
            try:
                yield
            finally:
                self._checkpoint = _no_checkpoint

    def is_new(self, source_id: str) -> bool:
        """Whether the session read from `source_id` was never imported."""
        return self.store.imports.imported_lines(source_id) is None

    def key_of(self, source: SourceSession) -> str:
        return self.canonical(source.raw_key, source.agent_dir_id)

    def apply(
        self, source: SourceSession, transcript: TranscriptSource, report: ImportReport, *, verify: bool = False
    ) -> Outcome:
        """Import the session, or bring it up to date; never raises for bad source data.

        With `verify`, the line at the cursor is first checked against the last one taken, and a
        transcript that no longer matches (rewritten, or a replaced store) is read again whole.
        """
        if not SAFE_SESSION_ID_RE.match(source.session_id):
            report.problem(f"{source.where}: missing or invalid sessionId; skipped")
            return "skipped"
        self._clean_entry(source, report)
        key = self.key_of(source)
        self._took = False
        try:
            outcome = self._apply(key, source, transcript, report, verify)
        except StoreDamaged:
            raise  # not this session's problem: nothing more is written anywhere
        except StoreError as exc:
            report.problem(f"{source.where}: {exc}; skipped")
            return "skipped"
        finally:
            self._checkpoint()
        if outcome == "imported":
            report.sessions_imported += 1
        elif outcome == "updated":
            report.sessions_updated += 1
        elif outcome == "unchanged":
            report.sessions_unchanged += 1
        if self._took:
            report.adopted_sessions += 1
        return outcome

    def _adopted(self, source_id: str, key: str) -> bool:
        return self.store.imports.import_state(source_id, key).adopted is not None

    def reread(self, source: SourceSession, transcript: TranscriptSource, report: ImportReport) -> Outcome:
        """Take a session's transcript again from the start (OpenClaw rewrote it)."""
        key = self.key_of(source)
        if self._adopted(source.source_id, key):
            return "unchanged"  # the engine's: never mirrored again
        self._clean_entry(source, report)
        if self.store.imports.imported_lines(source.source_id) is None:
            return self.apply(source, transcript, report)
        if self.store.imports.imported_session_id(source.source_id) != source.session_id:
            return self.apply(source, transcript, report)  # reports the reset
        outcome = self._replace(key, source, transcript, report)
        if outcome == "updated":
            report.sessions_updated += 1
        return outcome

    def _replace(self, key: str, source: SourceSession, transcript: TranscriptSource, report: ImportReport) -> Outcome:
        """The whole transcript again, and the cursor after it, in one transaction."""
        chunk = transcript.read_all()
        try:
            self.store.imports.replace_import(
                key,
                entry=source.entry,
                lines=chunk.lines,
                raw=chunk.raw,
                source=source.source_id,
                source_lines=chunk.cursor,
                adopt=self.adopt,
            )
        except StoreDamaged:
            raise
        except StoreError as exc:
            report.problem(f"{source.where}: {exc}; skipped")
            return "skipped"
        report.count_lines(key, len(chunk.lines))
        self._took = self.adopt
        return "updated"  # counted by the caller

    def _apply(
        self, key: str, source: SourceSession, transcript: TranscriptSource, report: ImportReport, verify: bool
    ) -> Outcome:
        store = self.store
        state = store.imports.import_state(source.source_id, key)
        if state.adopted is not None:
            if not self.adopt:
                return "unchanged"  # the engine's since it was adopted: never mirrored again
            return self._adopt_again(key, source, transcript, report, state)
        done, existing_id = state.lines, state.session_id
        if done is None:
            if existing_id is None:
                return self._create(key, source, transcript, report)
            if existing_id != source.session_id or store.imports.import_source_of(key) is None:
                report.problem(f"{source.where}: a session {key} already exists here; skipped")
                return "skipped"
            # The same OpenClaw session imported before from its other layout (an OpenClaw
            # upgraded to the SQLite store): go on from the line the two have in common.
            count, last_id = store.transcripts.transcript_tail(key)
            if not (count == 0 or last_id is None or transcript.matches(count + 1, last_id)):
                # Taken whole again; its cursor is recorded with the lines (a cursor of 0 recorded
                # on its own first would, after a kill, have the next run append every line twice).
                return self._replace(key, source, transcript, report)
            store.imports.record_import(
                source.source_id, key, count + 1, (store.sessions.get(key) or _NO_SESSION).entry
            )
            done = count + 1
        previous = store.imports.imported_session_id(source.source_id)
        if previous is not None and previous != source.session_id:
            report.problem(
                f"{source.where}: sessionId changed from {previous} to {source.session_id} (reset in OpenClaw); "
                "kept the transcript imported before, the new one was not imported"
            )
            return "skipped"
        if verify and done > 1 and not self._still_matches(key, transcript, done):
            return self._replace(key, source, transcript, report)
        chunk = transcript.read_after(done)
        changes = self._changed_fields(source)
        archive = (
            source.has_archive_state and (store.sessions.get(key) or _NO_SESSION).archived_at != source.archived_at
        )
        if not (changes or chunk.lines or archive or chunk.cursor != done):
            if self.adopt:  # imported before as a mirror: the engine's from now on
                store.imports.adopt(key)
                self._took = True
            return "unchanged"
        self._update(key, source, chunk, changes, archive=archive, adopt=self.adopt)
        self._took = self.adopt
        updated = bool(changes or chunk.lines or archive)
        if updated:
            report.count_lines(key, len(chunk.lines))
        return "updated" if updated else "unchanged"

    def _update(
        self, key: str, source: SourceSession, chunk: Chunk, changes: dict[str, Any], *, archive: bool, adopt: bool
    ) -> None:
        """What the source added since the last import, and its entry's changed fields, written."""
        self.store.imports.update_import(
            key,
            changes=changes,
            lines=chunk.lines,
            raw=chunk.raw,
            source=source.source_id,
            source_lines=chunk.cursor,
            entry=source.entry,
            archive=archive,
            archived_at=source.archived_at,
            adopt=adopt,
        )

    def _create(self, key: str, source: SourceSession, transcript: TranscriptSource, report: ImportReport) -> Outcome:
        chunk = transcript.read_all()
        entry = dict(source.entry)
        if agent_id_of(key) != source.agent_dir_id and key not in ("global", "unknown"):
            entry.setdefault("importedFromAgent", source.agent_dir_id)
        self.store.imports.import_session(
            key,
            entry,
            session_id=source.session_id,
            lines=chunk.lines,
            raw=chunk.raw,
            source=source.source_id,
            source_lines=chunk.cursor,
            adopt=self.adopt,
        )
        if source.has_archive_state and source.archived_at is not None:
            self.store.sessions.set_archived(key, source.archived_at)
            if self.adopt:
                self.store.imports.adopt(key)  # marked as it stands, archived
        report.count_lines(key, len(chunk.lines))
        self._took = self.adopt
        return "imported"

    def _adopt_again(
        self, key: str, source: SourceSession, transcript: TranscriptSource, report: ImportReport, state: ImportState
    ) -> Outcome:
        """An adopted session: what OpenClaw added since it was last adopted, taken only while the
        engine has written nothing into it since (its mark unmoved); else kept as the engine has it."""
        store = self.store
        chunk = transcript.read_after(state.lines or 0)
        changes = self._changed_fields(source)
        session = store.sessions.get(key)
        archive = source.has_archive_state and session is not None and session.archived_at != source.archived_at
        if not (changes or chunk.lines or archive):
            return "unchanged"
        if store.imports.engine_mark(key) != state.adopted:
            report.kept[key] = len(chunk.lines)  # both changed since: the engine's stays
            return "unchanged"
        if state.session_id != source.session_id:
            report.problem(
                f"{source.where}: sessionId changed from {state.session_id} to {source.session_id} (reset in "
                "OpenClaw); kept the transcript adopted before, the new one was not taken"
            )
            return "skipped"
        self._update(key, source, chunk, changes, archive=archive, adopt=True)
        report.count_lines(key, len(chunk.lines))
        self._took = True
        return "updated"

    def _still_matches(self, key: str, transcript: TranscriptSource, cursor: int) -> bool:
        """Whether the line before the cursor is still the last one taken."""
        _, last_id = self.store.transcripts.transcript_tail(key)
        return last_id is None or transcript.matches(cursor, last_id)

    def gone(self, source_id: str, key: str, where: str, report: ImportReport) -> None:
        """A session OpenClaw no longer has: archived here, its transcript kept."""
        session = self.store.sessions.get(key)
        if session is None or session.archived_at is not None:
            return
        state = self.store.imports.import_state(source_id, key)
        if state.lines is None or state.adopted is not None:  # never imported, or the engine's now
            return
        self.store.sessions.set_archived(key, self.store.now())
        report.problem(f"{where}: no longer in OpenClaw; archived here (its transcript is kept)")
        report.changed[key] = report.changed.get(key, 0)

    def _changed_fields(self, source: SourceSession) -> dict[str, Any]:
        """Entry fields that changed in OpenClaw since the last read (a label set, a newer
        updatedAt…); what sessions-tui itself changed meanwhile is kept unless OpenClaw changed it too."""
        before = self.store.imports.imported_entry(source.source_id)
        return {k: v for k, v in source.entry.items() if k != "sessionId" and before.get(k) != v}

    def _clean_entry(self, source: SourceSession, report: ImportReport) -> None:
        """Leave out what the store cannot hold, each reported: an `updatedAt` that is no time
        (not a number, not finite, before 1970 or after 9999: the import time is used, or the one
        imported before is kept), and non-finite numbers anywhere (SQLite's JSON has none)."""
        entry = source.entry
        updated = entry.get("updatedAt", 0)
        if not is_time(updated):
            entry = {k: v for k, v in entry.items() if k != "updatedAt"}  # a copy: the caller's stays as read
            why = "is not a usable time" if is_number(updated) else "is not a number"
            known = self.store.imports.imported_lines(source.source_id) is not None
            then = "kept the one imported before" if known else "using the import time"
            report.problem(f"{source.where}: updatedAt {why} ({_shown(updated)}); {then}")
        if _has_non_finite(entry):
            dropped: list[tuple[str, float]] = []
            entry = _finite(entry, "", dropped)
            for path, value in dropped:
                report.problem(f"{source.where}: {path} is not a finite number ({value!r}); left out")
        source.entry = entry


def _no_checkpoint() -> None:
    pass


class _NoSession:
    archived_at: int | None = None
    entry: dict[str, Any] = {}  # noqa: RUF012 - read only


_NO_SESSION = _NoSession()


def is_time(value: Any) -> bool:
    """Whether `value` can be an `updatedAt`: milliseconds from 1970 to the year 9999."""
    return is_number(value) and math.isfinite(value) and 0 <= value <= LATEST_MS


def _shown(value: Any) -> str:
    """A value quoted in a problem: redacted (the built-in rules), then cut."""
    return redact_then_cut(repr(value), 40, default_redactor().redact, mark="...")


def _has_non_finite(value: Any) -> bool:
    """Whether a non-finite number is anywhere in `value` (a walk: json.dumps cost an import more)."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_has_non_finite(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_non_finite(item) for item in value)
    return False


def _finite(value: Any, path: str, dropped: list[tuple[str, float]]) -> Any:
    """`value` without its non-finite numbers, at any depth; each left out is added to `dropped`."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for name, item in value.items():
            where = f"{path}.{name}" if path else str(name)
            if isinstance(item, float) and not math.isfinite(item):
                dropped.append((where, item))
            else:
                out[name] = _finite(item, where, dropped)
        return out
    if isinstance(value, list):
        kept = []
        for index, item in enumerate(value):
            if isinstance(item, float) and not math.isfinite(item):
                dropped.append((f"{path}[{index}]", item))
            else:
                kept.append(_finite(item, f"{path}[{index}]", dropped))
        return kept
    return value
