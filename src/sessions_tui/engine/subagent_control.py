"""Control of a requester's sub-agent tree: walk it, kill a subtree, steer a running child.

A requester controls the runs it spawned and, through them, their descendants (the runs whose
requester is one of its children, and so on): never anyone else's (OpenClaw's controller scope).
Killing ends every run of a subtree at once — running ones and those queued behind them in the
children's lanes — as `killed`, deepest first, and posts each one's announce (`Status: killed`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sessions_tui.engine.runs import RunRequest
from sessions_tui.engine.subagent_records import SubagentRun

if TYPE_CHECKING:
    from sessions_tui.engine.engine import Engine

MAX_TREE_RUNS = 500
ANNOUNCE_WAIT_STEPS = 200  # a killed run's announce takes no model turn: it is quick


@dataclass
class TreeNode:
    """One registered run in a requester's tree; `depth` 1 is a direct child."""

    run: SubagentRun
    depth: int
    children: list[TreeNode] = field(default_factory=list)

    def walk(self) -> list[TreeNode]:
        """This node and its descendants, depth first (parents before children)."""
        out = [self]
        for child in self.children:
            out.extend(child.walk())
        return out


def tree_of(engine: Engine, requester_key: str, max_depth: int = 5) -> list[TreeNode]:
    """The requester's spawned runs, newest first, each with its own spawned runs below it."""
    seen: set[str] = set()

    def level(key: str, depth: int) -> list[TreeNode]:
        if depth > max_depth or len(seen) >= MAX_TREE_RUNS:
            return []
        nodes = []
        for run in engine.subagents.runs_of(key, limit=MAX_TREE_RUNS):
            if run.run_id in seen:
                continue
            seen.add(run.run_id)
            nodes.append(TreeNode(run=run, depth=depth, children=level(run.child_key, depth + 1)))
        return nodes

    return level(requester_key, 1)


def is_live(engine: Engine, run: SubagentRun) -> bool:
    """Whether a registered run is still queued or running (its record has not ended)."""
    record = engine.runs.get(run.run_id)
    return record is not None and record.status in ("queued", "running")


async def kill_subtree(engine: Engine, node: TreeNode) -> list[SubagentRun]:
    """End the node's run and every run below it as `killed`, each child session's queue emptied
    too, in whichever process runs them; returns the registered runs that were live, deepest first.
    Their announces are posted before this returns; `ControlFailed` when a process did not answer."""
    killed: list[SubagentRun] = []
    for child in node.children:
        killed.extend(await kill_subtree(engine, child))
    if await engine.run_controls.kill(node.run):  # the process running it does it (run_controls.py)
        killed.append(node.run)
    return killed


async def kill_here(engine: Engine, run: SubagentRun, pid: int) -> bool:
    """This process's part of a kill: its runs in the child's session killed and, when the run was
    live here (its record names `pid`), its end as `killed` and its announce. Returns whether it was."""
    holder = engine.store.run_pid(run.run_id)
    was_live = is_live(engine, run) and holder in (pid, None)
    await engine.runs.kill_session(run.child_key)
    if was_live:
        await engine.subagents.finish(run.run_id, "killed", "killed")
        await _announced(engine, run.run_id)
    return was_live


async def _announced(engine: Engine, run_id: str) -> None:
    """Wait (briefly) for the killed run's announce, which the run's own follower may be posting."""
    for _ in range(ANNOUNCE_WAIT_STEPS):
        run = engine.subagents.get(run_id)
        if run is None or run.announce_state == "done":
            return
        await asyncio.sleep(0.01)


def steer(engine: Engine, run: SubagentRun, message: str) -> str:
    """Queue `message` in the child's lane; its run takes it after the current turn. Returns the queued run's id."""
    return engine.runs.start(
        RunRequest(
            session_key=run.child_key,
            message=message,
            lane="subagent",
            label=run.label,
            provenance={
                "kind": "inter_session",
                "sourceSessionKey": run.requester_key,
                "sourceTool": "subagents",
            },
            chain=[run.requester_key, run.child_key],
        )
    )
