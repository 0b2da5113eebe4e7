"""How a run ended, said once: the run's own state, and the two shapes OpenClaw gives the same
end elsewhere — a sub-agent registry record's `outcome.status` and a session entry's `status` —
derived from it here and nowhere else."""

from __future__ import annotations

from typing import Literal, get_args

RunState = Literal["queued", "running", "ok", "error", "timeout", "aborted", "killed"]
"""A run record's state; the last five are ends."""

RunEnd = Literal["ok", "error", "timeout", "aborted", "killed"]
"""How a run ended (`RunEnded.status`); `killed`: stopped by `subagents kill`."""

SubagentOutcome = Literal["ok", "error", "timeout", "killed", "unknown"]
"""A sub-agent run's outcome as OpenClaw's registry records it (`outcome.status`), plus `killed`
(OpenClaw shows a killed child's status as `killed` too)."""

SessionStatus = Literal["running", "done", "failed", "killed", "timeout"]
"""A session entry's `status`, as `sessions_list` filters and shows it."""

INTERRUPTED = "interrupted: the process running it stopped"
"""The error of a run a dead process left queued or running, ended so by the next process
(`Runs.recover_interrupted`): an `error` end, and the send ledger's `error` state of its send."""

RUN_ENDS: tuple[RunEnd, ...] = get_args(RunEnd)
SESSION_STATUSES: tuple[SessionStatus, ...] = get_args(SessionStatus)


def outcome_of(end: str) -> SubagentOutcome:
    """The registry outcome of a run that ended so (an aborted run failed; anything else: unknown)."""
    if end == "ok":
        return "ok"
    if end in ("timeout", "killed"):
        return "timeout" if end == "timeout" else "killed"
    return "error" if end in ("error", "aborted") else "unknown"


def session_status_of(end: str) -> SessionStatus:
    """The session status a run's end leaves: done, timed out, killed, or failed (errors, aborts, unknown)."""
    if end == "ok":
        return "done"
    if end in ("timeout", "killed"):
        return "timeout" if end == "timeout" else "killed"
    return "failed"
