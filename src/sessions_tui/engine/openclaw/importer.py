"""`import-openclaw DIR`: every agent's sessions, from the SQLite store and/or the legacy layout.

The source is only read. Each session comes in whole (all or nothing) under its canonical key,
keeping its sessionId and every transcript line verbatim; re-running takes only what changed.
Where an agent has both layouts, its SQLite store is the truth (OpenClaw 2026.9 reads nothing
else) and the legacy files add only the sessions the store does not have.

With `adopt` (`import-openclaw DIR --adopt`) the sessions become the engine's (mirror.py): refused
for an OpenClaw this state directory follows (store/tables/follows.py), whose sessions stay its own.
"""

from __future__ import annotations

from pathlib import Path

from sessions_tui.engine.openclaw.agent_db import AgentDb, AgentDbError
from sessions_tui.engine.openclaw.layout import AgentLayout, require_agents
from sessions_tui.engine.openclaw.legacy import legacy_sessions
from sessions_tui.engine.openclaw.mirror import Canonical, ImportReport, Mirror
from sessions_tui.engine.openclaw.sqlite_sessions import sqlite_sessions
from sessions_tui.engine.store.store import Store


class AdoptRefused(Exception):
    """`--adopt` of an OpenClaw this state directory follows: its sessions stay that OpenClaw's."""


def import_openclaw(store: Store, canonical: Canonical, source: Path, *, adopt: bool = False) -> ImportReport:
    """Import an OpenClaw state directory, or with `adopt` take it over; raises `NoOpenClawState` if
    it holds neither layout, `AdoptRefused` when adopting one this state directory follows."""
    root = source.expanduser()
    report = ImportReport()
    mirror = Mirror(store, canonical, adopt=adopt)
    layout = require_agents(root)
    if adopt and store.follows.follows(str(root.resolve())):
        raise AdoptRefused(
            f"{root} is followed by this state directory (import-openclaw --follow, --openclaw): its sessions "
            "stay OpenClaw's; adopt it into a state directory that does not follow it (--state DIR)"
        )
    for why in layout.skipped:
        report.problem(why)
    with mirror.batched():
        for agent in layout.agents:
            import_agent(mirror, agent, report)
    return report


def import_agent(mirror: Mirror, agent: AgentLayout, report: ImportReport) -> set[str]:
    """One agent's sessions; returns the canonical keys its SQLite store holds."""
    covered: set[str] = set()
    if agent.sqlite is not None:
        report.sources.append(str(agent.sqlite))
        try:
            db = AgentDb(agent.sqlite)
        except AgentDbError as exc:
            report.problem(str(exc))
        else:
            try:
                with db.snapshot():
                    nodes = db.nodes()
                    for source, transcript in sqlite_sessions(db, agent.agent_id, nodes, report, is_new=mirror.is_new):
                        covered.add(mirror.key_of(source))
                        mirror.apply(source, transcript, report)
            except AgentDbError as exc:
                report.problem(str(exc))
            finally:
                db.close()
    if agent.legacy is not None:
        report.sources.append(str(agent.legacy))
        for legacy_source, legacy_transcript in legacy_sessions(
            agent.legacy, agent.agent_id, report, root=agent.root, skip_keys=covered, canonical=mirror.canonical
        ):
            mirror.apply(legacy_source, legacy_transcript, report)
    return covered
