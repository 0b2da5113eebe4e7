"""A requester's spawn tree: its children, their children…, each with tokens and cost rolled up.

Read from the sub-agent registry level by level (`maxSpawnDepth` bounds the depth; a cycle in the
records, which spawning cannot make, is cut). Rows come parent first, then its subtree, newest
child first at each level, so a face draws the tree by indenting `depth`. A node's cost is unknown
when its session has tokens but no price: the subtree's total is then unknown too ("n/a"), never a
sum that leaves a part out.
"""

from __future__ import annotations

from collections.abc import Callable

from sessions_tui.engine.subagents.records import ChildView

MAX_DEPTH = 16


def spawn_tree(
    children_of: Callable[[str], list[ChildView]], requester_key: str, *, limit: int = 200
) -> list[ChildView]:
    """The tree under `requester_key` (`children_of` a session: its spawned runs, each with its
    session's cost), flattened parent first, at most `limit` rows."""
    rows: list[ChildView] = []
    seen = {requester_key}

    def walk(parent: str, depth: int) -> tuple[int | float, float | None]:
        tokens_sum: int | float = 0
        cost_sum: float | None = 0.0
        if depth > MAX_DEPTH:
            return tokens_sum, cost_sum
        for child in children_of(parent):
            if child.child_key in seen or len(rows) >= limit:
                continue
            seen.add(child.child_key)
            index = len(rows)
            rows.append(child)
            own_cost = child.cost_usd
            below_tokens, below_cost = walk(child.child_key, depth + 1)
            tree_tokens = (child.total_tokens or 0) + below_tokens
            tree_cost = own_cost + below_cost if own_cost is not None and below_cost is not None else None
            rows[index] = child.model_copy(
                update={
                    "depth": depth,
                    "parent_key": parent,
                    "tree_tokens": tree_tokens,
                    "tree_cost_usd": tree_cost,
                }
            )
            tokens_sum += tree_tokens
            cost_sum = cost_sum + tree_cost if cost_sum is not None and tree_cost is not None else None
        return tokens_sum, cost_sum

    walk(requester_key, 1)
    return rows
