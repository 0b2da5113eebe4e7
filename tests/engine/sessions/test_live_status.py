"""The live status rule (SPEC D25): one status from a session's facts, and when the clock alone changes it."""

from __future__ import annotations

import pytest

from sessions_tui.engine.sessions.live_status import (
    LOOPING_WINDOW_MS,
    Activity,
    live_status,
    next_change_at,
)

NOW = 1_800_000_000_000
STUCK = 2 * 60_000


@pytest.mark.parametrize(
    ("activity", "status"),
    [
        (Activity(), "idle"),
        (Activity(running=True, progress_at=NOW - 1_000), "working"),
        (Activity(running=True, waiting=True, progress_at=NOW - 1_000), "waiting"),
        (Activity(running=True, progress_at=NOW - STUCK), "stuck"),
        (Activity(running=True, waiting=True, progress_at=NOW - STUCK - 1), "stuck"),
        (Activity(ended_at=NOW - 5, failed=True, seen_at=NOW), "failed"),
        (Activity(ended_at=NOW - 5, seen_at=NOW - 10), "done"),
        (Activity(ended_at=NOW - 5), "done"),
        (Activity(ended_at=NOW - 5, seen_at=NOW - 5), "idle"),
        (Activity(ended_at=NOW - 5, seen_at=NOW), "idle"),
        (Activity(running=True, progress_at=NOW, refused_at=NOW - 1), "looping"),
        (Activity(ended_at=NOW - 5, refused_at=NOW - LOOPING_WINDOW_MS + 1), "looping"),
        (Activity(ended_at=NOW - 5, seen_at=NOW, refused_at=NOW - LOOPING_WINDOW_MS), "idle"),
    ],
)
def test_the_status_of_each_set_of_facts(activity: Activity, status: str) -> None:
    assert live_status(activity, NOW, STUCK) == status


def test_no_stuck_threshold_means_never_stuck() -> None:
    activity = Activity(running=True, progress_at=NOW - 10 * STUCK)
    assert live_status(activity, NOW, 0) == "working"
    assert next_change_at(activity, NOW, 0) is None


def test_the_clock_changes_a_running_session_to_stuck_and_a_refusal_ages_out() -> None:
    running = Activity(running=True, progress_at=NOW - 1_000)
    assert next_change_at(running, NOW, STUCK) == NOW - 1_000 + STUCK
    assert live_status(running, NOW - 1_000 + STUCK, STUCK) == "stuck"
    refused = Activity(refused_at=NOW - 1_000)
    assert next_change_at(refused, NOW, STUCK) == NOW - 1_000 + LOOPING_WINDOW_MS
    assert next_change_at(Activity(ended_at=NOW), NOW, STUCK) is None
    already_stuck = Activity(running=True, progress_at=NOW - STUCK)
    assert next_change_at(already_stuck, NOW, STUCK) is None
