"""Usage on an OpenClaw gateway (backend/gateway/reading/usage.py): the real gateway's recorded `sessions.usage`
answers (fixtures/openclaw-2026.9.6/ws/usage, scripts/record_usage_frames.py) as the seam's report, by
agent, model and session, by day and hour, with its note; and the socket backend asking for it from the
stand-in, again while the gateway's usage cache is still reading its transcripts."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from gateway_replay import ReplayGateway, recorded_answers, replaying
from sessions_tui.backend.contract.types import BackendUnavailable, Capability
from sessions_tui.backend.gateway.http import OpenClawGatewayBackend
from sessions_tui.backend.gateway.live import GatewaySocketBackend
from sessions_tui.backend.gateway.reading.usage import NO_ACTIVITY, usage_params, usage_report
from sessions_tui.backend.values.usage import UsageQuery

GROUP = "agent:main:discord:group:123"
DAY = 24 * 3_600_000


def answer(step: str, method: str, nth: int = 0) -> tuple[bool, Any]:
    found = [(ok, body) for m, _params, ok, body in recorded_answers(f"usage/{step}") if m == method]
    return found[nth]


FRESH = answer("sessions", "sessions.usage")[1]
COLD = answer("refreshing", "sessions.usage")[1]
ONE = answer("session", "sessions.usage")[1]
SINCE = 1_767_225_600_000  # 2026-01-01, as recorded


def test_by_model_the_report_is_the_gateways_sums_per_model():
    report = usage_report(UsageQuery(since=SINCE, by="model"), FRESH)
    by = {g.name: g.totals for g in report.groups}
    assert list(by) == ["anthropic/claude-sonnet-4-5", "local/demo"]  # most costly first
    assert (by["anthropic/claude-sonnet-4-5"].turns, by["anthropic/claude-sonnet-4-5"].total_tokens) == (29, 9178)
    assert (by["local/demo"].turns, by["local/demo"].input, by["local/demo"].output) == (1, 10, 5)
    totals = FRESH["totals"]
    total = report.total
    assert (total.input, total.output, total.total_tokens) == (totals["input"], totals["output"], totals["totalTokens"])
    assert total.cost_usd == pytest.approx(totals["totalCost"]) and total.turns == 30 and total.unpriced_turns == 0
    assert report.since == SINCE and "whole days (UTC): from 2026-01-01" in (report.note or "")


def test_by_agent_and_session_and_over_days_and_hours_the_sums_agree():
    by_agent = usage_report(UsageQuery(since=SINCE, by="agent"), FRESH)
    assert [(g.name, g.totals.total_tokens) for g in by_agent.groups] == [("main", 9193)]
    by_session = usage_report(UsageQuery(since=SINCE, by="session", every="hour"), FRESH)
    assert len(by_session.groups) == 10 and GROUP in {g.name for g in by_session.groups}
    assert sum(g.totals.total_tokens for g in by_session.groups) == 9193
    assert sum(p.totals.total_tokens for p in by_session.series) == 9193
    assert all(p.start % 3_600_000 == 0 for p in by_session.series)
    assert "an hour's turns are its assistant messages" in (by_session.note or "")
    days = usage_report(UsageQuery(since=SINCE + 5 * 3_600_000, every="day"), FRESH)
    assert [p.start % DAY for p in days.series] == [0, 0, 0] and days.since == SINCE
    assert [p.totals.total_tokens for p in days.series] == [15, 9163, 15]
    assert [p.totals.turns for p in days.series] == [1, 28, 1]
    only = usage_report(UsageQuery(since=SINCE, by="model", keys=(GROUP,)), FRESH)
    assert [(g.name, g.totals.total_tokens) for g in only.groups] == [
        ("anthropic/claude-sonnet-4-5", 30),
        ("local/demo", 15),
    ]


def test_a_cold_cache_is_said_in_the_note_and_usage_cost_agrees_with_the_sums():
    cold = usage_report(UsageQuery(since=SINCE), COLD)
    assert cold.total.turns == 0 and "usage cache not fresh" in (cold.note or "")
    cost = answer("cost", "usage.cost")[1]  # every agent's days: the same sums, nothing by agent or model
    assert cost["totals"]["totalTokens"] == usage_report(UsageQuery(since=SINCE), FRESH).total.total_tokens


def test_the_params_ask_whole_days_of_every_agent_or_of_one_session():
    now = SINCE + 330 * DAY + 3_600_000
    assert usage_params(UsageQuery(since=SINCE + 60_000), now) == {
        "startDate": "2026-01-01",
        "endDate": "2026-11-27",
        "limit": 10_000,
        "agentScope": "all",
    }
    assert usage_params(UsageQuery(since=SINCE, keys=(GROUP,)), now)["key"] == GROUP
    assert "key" not in usage_params(UsageQuery(since=SINCE, keys=(GROUP, "agent:main:main")), now)


@pytest.fixture
async def gateway() -> AsyncIterator[ReplayGateway]:
    async with replaying(ReplayGateway()) as stand_in:
        yield stand_in


@pytest.fixture
async def backend(gateway: ReplayGateway, tmp_path: Path) -> AsyncIterator[GatewaySocketBackend]:
    found = GatewaySocketBackend(gateway.url, "shared", identity_dir=tmp_path / "id")
    found.usage_retry_s = (0.0, 0.0)
    await found.connect()
    yield found
    await found.aclose()


async def test_the_socket_backend_asks_again_while_the_cache_warms(gateway, backend):
    assert Capability.USAGE in backend.capabilities
    gateway.queue("sessions.usage", True, COLD)
    gateway.queue("sessions.usage", True, FRESH)
    report = await backend.usage(UsageQuery(since=SINCE, by="model"))
    assert report.total.total_tokens == 9193 and "not fresh" not in (report.note or "")
    asked = gateway.methods("sessions.usage")
    assert len(asked) == 2 and asked[0] == asked[1] and asked[0]["agentScope"] == "all"
    assert asked[0]["startDate"] == "2026-01-01"


async def test_the_tables_sparklines_are_not_asked_of_a_gateway(gateway, backend):
    report = await backend.usage(UsageQuery(since=SINCE, keys=(GROUP,), activity_ms=3 * 3_600_000))
    assert report.activity == () and report.note == NO_ACTIVITY
    assert gateway.methods("sessions.usage") == []


async def test_a_cache_never_fresh_is_answered_with_the_note(gateway, backend):
    for _ in range(3):
        gateway.queue("sessions.usage", True, COLD)
    report = await backend.usage(UsageQuery(since=SINCE))
    assert len(gateway.methods("sessions.usage")) == 3 and "may be short" in (report.note or "")


async def test_one_session_is_asked_by_its_key_and_a_refusal_is_said(gateway, backend):
    gateway.queue("sessions.usage", True, ONE)
    report = await backend.usage(UsageQuery(since=SINCE, by="session", keys=("discord:group:123",)))
    assert gateway.methods("sessions.usage")[0]["key"] == GROUP
    assert [(g.name, g.totals.total_tokens) for g in report.groups] == [(GROUP, 45)]
    gateway.queue("sessions.usage", *answer("invalid", "sessions.usage"))
    with pytest.raises(BackendUnavailable, match="startDate must not be after endDate"):
        await backend.usage(UsageQuery(since=SINCE))


async def test_the_http_gateway_backend_says_usage_is_read_over_the_socket():
    gateway = OpenClawGatewayBackend("http://127.0.0.1:9", None)
    try:
        assert Capability.USAGE not in gateway.capabilities
        with pytest.raises(BackendUnavailable, match=r"read over its WebSocket \(sessions.usage\)"):
            await gateway.usage(UsageQuery(since=0))
    finally:
        gateway.close()
