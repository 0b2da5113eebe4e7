"""Following a running OpenClaw: the embedded store kept in step with its state directory.

A tick costs one `stat` and one `PRAGMA data_version` per SQLite store when nothing changed, so
following an idle OpenClaw is nearly free. When the gateway has committed, the tick reads the
small columns of `session_nodes` and which sessions gained transcript rows since the last tick
(SQLite hands new rows rising rowids), then brings just those sessions up to date from their
`seq` cursors. A store that was replaced (new inode) is opened again and checked session by
session; a transcript OpenClaw rewrote (a new rewrite generation, or lines that no longer match)
is read again whole. Legacy stores are followed through `sessions.json` and the transcripts'
sizes. Every change is one transaction in the embedded store.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessions_tui.engine.openclaw.agent_db import AgentDb, AgentDbError, NodeRow
from sessions_tui.engine.openclaw.layout import AgentLayout, NoOpenClawState, SourceLayout, require_agents
from sessions_tui.engine.openclaw.legacy import legacy_sessions
from sessions_tui.engine.openclaw.mirror import Canonical, ImportReport, Mirror
from sessions_tui.engine.openclaw.sqlite_sessions import sqlite_sessions
from sessions_tui.engine.store.connection import StoreDamaged
from sessions_tui.engine.store.store import Store

LAYOUT_RESCAN_SECONDS = 2.0  # new agents and stores appear within this
LEGACY_RESCAN_SECONDS = 5.0  # legacy transcripts' sizes are checked this often


@dataclass
class FollowTick:
    """One tick: what changed (problems new since the last tick), and what fails right now."""

    report: ImportReport
    failures: list[str] = field(default_factory=list)
    first: bool = False
    stopped: str | None = None
    """Why following ended for good: the state database is damaged, nothing more is written to it
    (the last tick; its line names the file and what to do)."""

    @property
    def changed(self) -> bool:
        return bool(self.report.changed)

    def shown(self, redact: Callable[[str], str]) -> FollowTick:
        """The tick as it is shown: every line of it redacted (`ImportReport.shown`)."""
        return FollowTick(
            report=self.report.shown(redact),
            failures=[redact(f) for f in self.failures],
            first=self.first,
            stopped=self.stopped and redact(self.stopped),
        )


class _SqliteWatch:
    """One agent's SQLite store, and what the last tick saw of it."""

    def __init__(self, agent_id: str, path: Path) -> None:
        self.agent_id = agent_id
        self.path = path
        self.db: AgentDb | None = None
        self.version = -1
        self.rowid = 0
        self.nodes: dict[str, NodeRow] = {}
        self.generations: dict[str, str] = {}
        self.canonical_keys: set[str] = set()  # of `nodes`, kept with them: an idle tick computes nothing

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    def keys(self) -> set[str]:
        return self.canonical_keys

    def poll(self, mirror: Mirror, report: ImportReport) -> None:
        if self.db is not None and self.db.replaced():
            self.close()  # replaced or removed: open whatever is there now
        if self.db is None:
            self.db = AgentDb(self.path)
            self.version = self.db.data_version()
            self._sync(mirror, report, everything=True)
            return
        version = self.db.data_version()
        if version == self.version:
            return
        self.version = version  # taken before reading: a commit during the read shows next tick
        self._sync(mirror, report, everything=False)

    def _sync(self, mirror: Mirror, report: ImportReport, *, everything: bool) -> None:
        db = self.db
        assert db is not None
        with db.snapshot():
            top = db.max_rowid()
            nodes = {n.session_key: n for n in db.nodes()}
            generations = db.rewrite_generations()
            touched = set() if everything or top < self.rowid else db.sessions_after_rowid(self.rowid)
            by_session = {n.current_session_id: k for k, n in nodes.items()}
            if everything or top < self.rowid:
                changed = set(nodes)  # first sight, or rows went away: check every session
            else:
                changed = {k for k, n in nodes.items() if self.nodes.get(k) != n}
                changed |= {by_session[s] for s in touched if s in by_session}
            rewritten = {
                by_session[s] for s, g in generations.items() if s in by_session and self.generations.get(s) != g
            }
            order = sorted(changed | rewritten, key=lambda k: nodes[k].updated_at or 0, reverse=True)
            for source, transcript in sqlite_sessions(
                db, self.agent_id, [nodes[k] for k in order], report, is_new=mirror.is_new
            ):
                if source.raw_key in rewritten:
                    mirror.reread(source, transcript, report)
                else:
                    mirror.apply(source, transcript, report, verify=True)
        for gone in sorted(set(self.nodes) - set(nodes)):
            mirror.gone(f"{db.resolved}#{gone}", mirror.canonical(gone, self.agent_id), f"{db.path}: {gone}", report)
        if nodes.keys() != self.nodes.keys():
            self.canonical_keys = {mirror.canonical(k, self.agent_id) for k in nodes}
        self.rowid, self.nodes, self.generations = top, nodes, generations


class _LegacyWatch:
    """One agent's legacy `sessions.json`; its transcripts are looked at when their size moves."""

    def __init__(self, agent_id: str, path: Path, root: Path) -> None:
        self.agent_id = agent_id
        self.path = path
        self.root = root
        self.signature: tuple[int, int] | None = None
        self.next_rescan = 0.0
        self.seen: dict[str, tuple[dict[str, Any], tuple[int, int] | None]] = {}

    def poll(self, mirror: Mirror, report: ImportReport, now: float, skip_keys: set[str]) -> None:
        signature = _signature(self.path)
        if signature == self.signature and now < self.next_rescan:
            return
        self.signature, self.next_rescan = signature, now + LEGACY_RESCAN_SECONDS
        for source, transcript in legacy_sessions(
            self.path, self.agent_id, report, root=self.root, skip_keys=skip_keys, canonical=mirror.canonical
        ):
            state = (source.entry, _signature(transcript.path))
            if self.seen.get(source.source_id) == state:
                continue
            if mirror.apply(source, transcript, report) != "skipped":
                self.seen[source.source_id] = state


def _signature(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


class Follower:
    """Keeps `store` in step with the OpenClaw state directory at `root`; `tick` blocks (run it
    in a thread) and never raises: what fails is in the tick's `failures`."""

    def __init__(
        self, store: Store, canonical: Canonical, root: Path, *, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self.store = store
        self.root = root.expanduser()
        self.mirror = Mirror(store, canonical)
        self._monotonic = monotonic
        self._next_layout_scan = 0.0
        self._layout: list[AgentLayout] = []
        self._sqlite: dict[str, _SqliteWatch] = {}
        self._legacy: dict[str, _LegacyWatch] = {}
        self._reported: set[str] = set()
        self._ticks = 0

    def close(self) -> None:
        for watch in self._sqlite.values():
            watch.close()
        self._sqlite.clear()

    def tick(self) -> FollowTick:
        now = self._monotonic()
        report = ImportReport()
        result = FollowTick(report=report, first=self._ticks == 0)
        if self._ticks == 0:
            self.store.follows.record(str(self.root.resolve()))  # its sessions are OpenClaw's: never adopted here
        self._ticks += 1
        if now >= self._next_layout_scan:
            self._next_layout_scan = now + LAYOUT_RESCAN_SECONDS
            try:
                self._rescan(require_agents(self.root), report)
            except NoOpenClawState as exc:
                result.failures.append(str(exc))
                return result
        with self.mirror.batched():
            self._poll(now, report, result)
        report.problems = [p for p in report.problems if p not in self._reported]
        self._reported.update(report.problems)
        return result

    def _poll(self, now: float, report: ImportReport, result: FollowTick) -> None:
        for agent in self._layout:
            covered: set[str] = set()
            watch = self._sqlite.get(agent.agent_id)
            if watch is not None:
                try:
                    watch.poll(self.mirror, report)
                except AgentDbError as exc:
                    watch.close()
                    result.failures.append(str(exc))
                covered = watch.keys()
            legacy = self._legacy.get(agent.agent_id)
            if legacy is not None:
                legacy.poll(self.mirror, report, now, covered)

    def _rescan(self, layout: SourceLayout, report: ImportReport) -> None:
        self._layout = layout.agents
        for why in layout.skipped:
            report.problem(why)
        for agent in layout.agents:
            if agent.sqlite is not None and agent.agent_id not in self._sqlite:
                self._sqlite[agent.agent_id] = _SqliteWatch(agent.agent_id, agent.sqlite)
                report.sources.append(str(agent.sqlite))
            if agent.legacy is not None and agent.agent_id not in self._legacy:
                self._legacy[agent.agent_id] = _LegacyWatch(agent.agent_id, agent.legacy, agent.root)
                report.sources.append(str(agent.legacy))


FOLLOW_INTERVAL_SECONDS = 0.25


def _stopped(notice: str) -> FollowTick:
    return FollowTick(report=ImportReport(), stopped=f"{notice}; following stopped")


def _safe_tick(follower: Follower) -> FollowTick:
    notice = follower.store.known_damage()  # found by another connection or process meanwhile
    if notice is not None:
        return _stopped(notice)
    try:
        return follower.tick()
    except StoreDamaged:  # found by this tick's write: undone
        return _stopped(follower.store.known_damage() or "the state database is damaged")
    except Exception as exc:  # noqa: BLE001 - the embedded store failed (disk full…): say so, go on
        return FollowTick(report=ImportReport(), failures=[f"cannot write the embedded store: {exc}"])


async def run_follow(
    follower: Follower,
    stop: asyncio.Event,
    on_tick: Callable[[FollowTick], None],
    interval: float = FOLLOW_INTERVAL_SECONDS,
) -> None:
    """Tick until `stop` is set, or the state database is found damaged (the last tick says so:
    `stopped`). A tick runs on its store's thread (store_thread.py) and always finishes, even when
    this is cancelled, so its writes are whole; the follower is closed at the end."""
    try:
        while not stop.is_set():
            pending = asyncio.ensure_future(follower.store.thread.run(_safe_tick, follower))
            try:
                tick = await asyncio.shield(pending)
            except asyncio.CancelledError:
                await asyncio.wait([pending])
                raise
            on_tick(tick)
            if tick.stopped is not None:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), interval)
    finally:
        follower.close()


async def follow_beside(
    store: Store, canonical: Canonical, root: Path, stop: asyncio.Event, on_tick: Callable[[FollowTick], None]
) -> None:
    """Follow through a store connection of its own, opened on `store`'s state directory: its
    writes then reach `store`'s readers like another process's (through `data_version`)."""
    own = Store(store.state_dir, store.clock)
    try:
        await run_follow(Follower(own, canonical, root), stop, on_tick)
    finally:
        own.close()
