"""The one retry-wait rule the model client and the outbox share."""

from __future__ import annotations

import pytest

from sessions_tui.engine.backoff import parse_retry_after, retry_delay
from sessions_tui.engine.llm.retries import MAX_BACKOFF_SECONDS, backoff_seconds
from sessions_tui.engine.messaging.outbox import RETRY_CAP_MS


def test_waits_double_from_base_up_to_the_cap() -> None:
    assert [retry_delay(n, base=0.5, cap=8.0) for n in range(7)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]


def test_model_client_waits() -> None:
    # 0.5 s base by default, at most 8 s; the server's Retry-After replaces the wait, within the cap.
    assert [backoff_seconds(n, 0.5) for n in range(3)] == [0.5, 1.0, 2.0]
    assert backoff_seconds(0, 0.5, retry_after=3.0) == 3.0
    assert backoff_seconds(0, 0.5, retry_after=120.0) == MAX_BACKOFF_SECONDS
    assert backoff_seconds(2, 0.5, retry_after=0.0) == 0.0


def test_outbox_waits() -> None:
    # retry_base_ms 1000 by default: 1, 2, 4 s before retries 1-3, never over RETRY_CAP_MS.
    cap = RETRY_CAP_MS / 1000
    assert [retry_delay(n, base=1.0, cap=cap) for n in range(5)] == [1.0, 2.0, 4.0, 8.0, 8.0]


def test_negative_inputs_wait_nothing_extra() -> None:
    assert retry_delay(-1, base=0.5, cap=8.0) == 0.5
    assert retry_delay(3, base=-1.0, cap=8.0) == 0.0
    assert retry_delay(0, base=1.0, cap=8.0, retry_after=-5.0) == 0.0


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        (None, None),
        ("5", 5.0),
        (" 1.5 ", 1.5),
        ("0", 0.0),
        ("-1", None),
        ("nan", None),
        ("inf", None),
        ("Wed, 21 Oct 2015 07:28:00 GMT", None),
        ("", None),
    ],
)
def test_retry_after_header(header: str | None, seconds: float | None) -> None:
    assert parse_retry_after(header) == seconds
