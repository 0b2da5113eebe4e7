"""How a run ended, said once: the run's own state, and the two shapes OpenClaw gives the same
end elsewhere — a sub-agent registry record's `outcome.status` and a session entry's `status` —
derived from it here and nowhere else."""

from __future__ import annotations

from typing import Literal, get_args

RunState = Literal["queued", "running", "ok", "error", "timeout", "aborted"]
"""A run record's state; the last four are ends."""

RunEnd = Literal["ok", "error", "timeout", "aborted"]
"""How a run ended (`RunEnded.status`)."""

SubagentOutcome = Literal["ok", "error", "timeout", "unknown"]
"""A sub-agent run's outcome as OpenClaw's registry records it (`outcome.status`)."""

SessionStatus = Literal["running", "done", "failed", "killed", "timeout"]
"""A session entry's `status`, as `sessions_list` filters and shows it."""

RUN_ENDS: tuple[RunEnd, ...] = get_args(RunEnd)
SESSION_STATUSES: tuple[SessionStatus, ...] = get_args(SessionStatus)


def outcome_of(end: str) -> SubagentOutcome:
    """The registry outcome of a run that ended so (an aborted run failed; anything else: unknown)."""
    if end == "ok":
        return "ok"
    if end == "timeout":
        return "timeout"
    return "error" if end in ("error", "aborted") else "unknown"


def session_status_of(end: str) -> SessionStatus:
    """The session status a run's end leaves: done, timed out, or failed (errors, aborts, unknown)."""
    if end == "ok":
        return "done"
    return "timeout" if end == "timeout" else "failed"
