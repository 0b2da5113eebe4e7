"""How a run ended, and the two shapes derived from it: a sub-agent's registry outcome and the
session status."""

from typing import get_args

from sessions_tui.engine.run_end import RUN_ENDS, SESSION_STATUSES, SubagentOutcome, outcome_of, session_status_of
from sessions_tui.tools.reading.sessions_list import STATUSES


def test_each_end_has_one_outcome_and_one_session_status():
    assert {end: outcome_of(end) for end in RUN_ENDS} == {
        "ok": "ok",
        "error": "error",
        "timeout": "timeout",
        "aborted": "error",  # OpenClaw's registry has no "aborted": the run failed
        "killed": "killed",  # `subagents kill`
    }
    assert {end: session_status_of(end) for end in RUN_ENDS} == {
        "ok": "done",
        "error": "failed",
        "timeout": "timeout",
        "aborted": "failed",
        "killed": "killed",
    }
    assert outcome_of("something else") == "unknown" and session_status_of("unknown") == "failed"
    assert set(outcome_of(e) for e in RUN_ENDS) | {"unknown"} == set(get_args(SubagentOutcome))


def test_sessions_list_filters_on_the_same_statuses():
    assert STATUSES == SESSION_STATUSES == ("running", "done", "failed", "killed", "timeout")
