"""Control of a requester's sub-agent tree: walk it, kill a subtree, steer a running child.

A requester controls the runs it spawned and, through them, their descendants (the runs whose
requester is one of its children, and so on): never anyone else's (OpenClaw's controller scope).
Killing ends every run of a subtree at once — running ones and those queued behind them in the
children's lanes — as `killed`, deepest first, and posts each one's announce (`Status: killed`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from sessions_tui.engine.subagents.records import SubagentRun

if TYPE_CHECKING:
    from sessions_tui.engine.subagents.registry import SubagentRegistry
    from sessions_tui.engine.subagents.run_controls import RunControls


class TreeHost(Protocol):
    """What control of a tree needs of the engine: the sub-agent registry and cross-process control."""

    @property
    def subagents(self) -> SubagentRegistry: ...

    @property
    def run_controls(self) -> RunControls: ...


MAX_TREE_RUNS = 500


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


def tree_of(engine: TreeHost, requester_key: str, max_depth: int = 5) -> list[TreeNode]:
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


async def kill_subtree(engine: TreeHost, node: TreeNode) -> list[SubagentRun]:
    """End the node's run and every run below it as `killed`, each child session's queue emptied
    too, in whichever process runs them; returns the registered runs that were live, deepest first.
    Their announces are posted before this returns; `ControlFailed` when a process did not answer."""
    killed: list[SubagentRun] = []
    for child in node.children:
        killed.extend(await kill_subtree(engine, child))
    if await engine.run_controls.kill(node.run):  # the process running it does it (run_controls.py)
        killed.append(node.run)
    return killed
