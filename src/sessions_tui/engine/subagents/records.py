"""What the sub-agent registry hands out: a registered child run, and the views of children and announces.

`SubagentRun` is a row of the store's `subagent_runs` table as the engine works with it;
`ChildView` and `AnnouncementView` are what the operator's spawn panel shows.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from sessions_tui.engine.lazy_model import LazyModel
from sessions_tui.engine.run_end import SubagentOutcome
from sessions_tui.engine.sessions.entry import SessionEntry, is_number
from sessions_tui.engine.store.tables.registry import SubagentRow

STATUS_LABELS = {
    "ok": "completed successfully",
    "timeout": "timed out",
    "killed": "killed",
    "unknown": "finished with unknown status",
}


class SubagentRun(LazyModel):
    """One registry record."""

    run_id: str
    child_key: str
    requester_key: str
    task: str
    label: str | None = None
    cleanup: str = "keep"
    created_at: int
    ended_at: int | None = None
    outcome: SubagentOutcome | None = None
    outcome_error: str | None = None
    announce_state: str = "waiting"  # waiting | pending | announcing | done
    announced_at: int | None = None
    archive_at: int | None = None
    data: dict[str, Any] = Field(default_factory=dict)

    @property
    def status_label(self) -> str:
        if self.outcome == "error":
            return f"failed: {self.outcome_error or 'unknown error'}"
        return STATUS_LABELS.get(self.outcome or "unknown", STATUS_LABELS["unknown"])


class ChildView(LazyModel):
    """A spawned child as the operator's spawn panel shows it."""

    run_id: str
    child_key: str
    label: str | None
    task: str
    status: str  # running | done | failed | timeout
    started_at: int
    ended_at: int | None
    total_tokens: int | float | None = None
    depth: int = 1  # 1: the requester's own child; 2: a grandchild …
    parent_key: str | None = None  # the session that spawned it
    cost_usd: float | None = None  # its own session's estimated cost; None: unknown (a model with no price)
    tree_tokens: int | float | None = None  # its tokens and its descendants'
    tree_cost_usd: float | None = None  # its cost and its descendants'; None when any part is unknown


class AnnouncementView(LazyModel):
    """An announce that reached a requester's session."""

    run_id: str
    child_key: str
    label: str | None
    text: str
    ts: int | None
    status: str | None


def session_cost(entry: SessionEntry) -> float | None:
    """A session's estimated cost: its `estimatedCostUsd`; nothing when it has no tokens yet;
    unknown (None) when it has tokens but no price to count them at."""
    cost = entry.get("estimatedCostUsd")
    if is_number(cost):
        return float(cost)
    tokens = entry.get("totalTokens")
    return None if isinstance(tokens, (int, float)) and tokens else 0.0


def run_of_row(row: SubagentRow) -> SubagentRun:
    return SubagentRun(
        run_id=row.run_id,
        child_key=row.child_key,
        requester_key=row.requester_key,
        task=row.task,
        label=row.label,
        cleanup=row.cleanup,
        created_at=row.created_at,
        ended_at=row.ended_at,
        outcome=row.outcome,
        outcome_error=row.outcome_error,
        announce_state=row.announce_state,
        announced_at=row.announced_at,
        archive_at=row.archive_at,
        data=row.data,
    )
