"""Where an OpenClaw state directory keeps each agent's sessions, in either layout.

OpenClaw 2026.9 and later: `agents/<agentId>/agent/openclaw-agent.sqlite`. Earlier versions:
`agents/<agentId>/sessions/sessions.json` with one JSONL transcript per session. An agent may
have both (the legacy files stay behind after `openclaw doctor --session-sqlite import`).
A store path that holds something other than a regular file (a FIFO, a device) still counts: its
reader reports it as a problem of that agent, without opening it, and the other agents import.
A link on the way that leads out of the source directory (or to nothing, or round a loop) is
not followed: it is reported and what it leads to is skipped (source_paths.py). The layout's
paths are spelled from the source directory as its own links resolve.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from sessions_tui.engine.inputs.files import kind_of
from sessions_tui.engine.openclaw.agent_db import STORE_FILE as SQLITE_STORE_FILE
from sessions_tui.engine.openclaw.legacy import STORE_FILE as LEGACY_STORE_FILE
from sessions_tui.engine.openclaw.source_paths import link_problem, real_root


class NoOpenClawState(Exception):
    """The directory holds neither layout; the message says what was looked for where."""


@dataclass(frozen=True)
class AgentLayout:
    agent_id: str  # the agent's directory name
    sqlite: Path | None
    legacy: Path | None
    root: Path  # the source directory (links resolved): what its transcripts' links must stay in


@dataclass
class SourceLayout:
    """The agents found in a source directory, and the links on the way that were not followed."""

    agents: list[AgentLayout] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def skip(self, why: str) -> None:
        if why not in self.skipped:
            self.skipped.append(why)


def sqlite_store_path(root: Path, agent_id: str) -> Path:
    return root / "agents" / agent_id / "agent" / SQLITE_STORE_FILE


def legacy_store_path(root: Path, agent_id: str) -> Path:
    return root / "agents" / agent_id / "sessions" / LEGACY_STORE_FILE


def _present(root: Path, path: Path, layout: SourceLayout) -> Path | None:
    """`path` if something is there (looked at with `stat`, never opened) and no link on the way
    to it leads out of the source (such a link is noted in `layout`)."""
    why = link_problem(root, path)
    if why is not None:
        layout.skip(why)
        return None
    try:
        os.stat(path)
    except OSError:
        return None
    return path


def find_agents(root: Path) -> SourceLayout:
    """Every agent with sessions in either layout (possibly none)."""
    root = real_root(root)
    layout = SourceLayout()
    agents_dir = root / "agents"
    why = link_problem(root, agents_dir)
    if why is not None:
        layout.skip(why)
        return layout
    if not agents_dir.is_dir():
        return layout
    for agent_dir in sorted(agents_dir.iterdir()):
        why = link_problem(root, agent_dir)
        if why is not None:
            layout.skip(why)
            continue
        if not agent_dir.is_dir():
            continue
        sqlite = _present(root, sqlite_store_path(root, agent_dir.name), layout)
        legacy = _present(root, legacy_store_path(root, agent_dir.name), layout)
        if sqlite or legacy:
            layout.agents.append(AgentLayout(agent_dir.name, sqlite, legacy, root))
    return layout


def require_agents(root: Path) -> SourceLayout:
    """`find_agents`, or `NoOpenClawState` naming what was looked for where (and the links not followed)."""
    if not root.is_dir():
        try:
            mode = root.stat().st_mode
        except OSError:
            raise NoOpenClawState(f"{root}: no such directory") from None
        raise NoOpenClawState(f"{root}: is {kind_of(mode)}, not a directory")
    layout = find_agents(root)
    if layout.agents:
        return layout
    hint = ""
    if root.name == "agents" or (root / "agent").is_dir() or (root / "sessions").is_dir():
        state_dir = root.parent if root.name == "agents" else root.parent.parent
        hint = f"; give the state directory itself (the one that holds agents/), e.g. {state_dir}"
    raise NoOpenClawState(
        f"{root}: not an OpenClaw state directory: found neither "
        f"{root / 'agents' / '<agentId>' / 'agent' / SQLITE_STORE_FILE} (OpenClaw 2026.9 and later) nor "
        f"{root / 'agents' / '<agentId>' / 'sessions' / LEGACY_STORE_FILE} (earlier versions){hint}"
        + "".join(f"; {why}" for why in layout.skipped)
    )


def owner_root(source_id: str) -> Path:
    """The OpenClaw state directory an import source (`<store path>#<key>`) belongs to."""
    store = Path(source_id.split("#", 1)[0])
    return store.parents[3] if len(store.parents) > 3 else store.parent
