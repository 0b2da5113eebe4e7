"""Where an OpenClaw state directory keeps each agent's sessions, in either layout.

OpenClaw 2026.9 and later: `agents/<agentId>/agent/openclaw-agent.sqlite`. Earlier versions:
`agents/<agentId>/sessions/sessions.json` with one JSONL transcript per session. An agent may
have both (the legacy files stay behind after `openclaw doctor --session-sqlite import`).
A store path that holds something other than a regular file (a FIFO, a device) still counts: its
reader reports it as a problem of that agent, without opening it, and the other agents import.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from sessions_tui.engine.openclaw.agent_db import STORE_FILE as SQLITE_STORE_FILE
from sessions_tui.engine.openclaw.legacy import STORE_FILE as LEGACY_STORE_FILE


class NoOpenClawState(Exception):
    """The directory holds neither layout; the message says what was looked for where."""


@dataclass(frozen=True)
class AgentLayout:
    agent_id: str  # the agent's directory name
    sqlite: Path | None
    legacy: Path | None


def sqlite_store_path(root: Path, agent_id: str) -> Path:
    return root / "agents" / agent_id / "agent" / SQLITE_STORE_FILE


def legacy_store_path(root: Path, agent_id: str) -> Path:
    return root / "agents" / agent_id / "sessions" / LEGACY_STORE_FILE


def _present(path: Path) -> Path | None:
    """`path` if something is there (looked at with `stat`, never opened)."""
    try:
        os.stat(path)
    except OSError:
        return None
    return path


def find_agents(root: Path) -> list[AgentLayout]:
    """Every agent with sessions in either layout (possibly none)."""
    agents_dir = root / "agents"
    if not agents_dir.is_dir():
        return []
    found = []
    for agent_dir in sorted(p for p in agents_dir.iterdir() if p.is_dir()):
        sqlite = _present(sqlite_store_path(root, agent_dir.name))
        legacy = _present(legacy_store_path(root, agent_dir.name))
        if sqlite or legacy:
            found.append(AgentLayout(agent_dir.name, sqlite, legacy))
    return found


def require_agents(root: Path) -> list[AgentLayout]:
    """`find_agents`, or `NoOpenClawState` naming what was looked for where."""
    if not root.is_dir():
        raise NoOpenClawState(f"{root}: no such directory")
    agents = find_agents(root)
    if agents:
        return agents
    hint = ""
    if root.name == "agents" or (root / "agent").is_dir() or (root / "sessions").is_dir():
        state_dir = root.parent if root.name == "agents" else root.parent.parent
        hint = f"; give the state directory itself (the one that holds agents/), e.g. {state_dir}"
    raise NoOpenClawState(
        f"{root}: not an OpenClaw state directory: found neither "
        f"{root / 'agents' / '<agentId>' / 'agent' / SQLITE_STORE_FILE} (OpenClaw 2026.9 and later) nor "
        f"{root / 'agents' / '<agentId>' / 'sessions' / LEGACY_STORE_FILE} (earlier versions){hint}"
    )


def owner_root(source_id: str) -> Path:
    """The OpenClaw state directory an import source (`<store path>#<key>`) belongs to."""
    store = Path(source_id.split("#", 1)[0])
    return store.parents[3] if len(store.parents) > 3 else store.parent
