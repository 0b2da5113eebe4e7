"""Usage and cost against the REAL OpenClaw gateway (2026.9.6), over its socket: `sessions.usage`.

`make test-openclaw` runs it (marker `openclaw`). The gateway starts once for the module, seeded as the
interop suite seeds it (the legacy transcripts carry their turns' usage and cost); no model is needed.
Through the socket backend (`GatewaySocketBackend.usage`, which asks again while the gateway's usage
cache is still reading transcripts) and through the command line (`sessions-tui --remote ws://… usage`):
the report by model, agent and session, by day, its note, and `usage.cost` agreeing with its total.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from test_openclaw_gateway import DEADLINE_SECONDS, Gateway, started_gateway

from sessions_tui.backend.contract.types import Capability
from sessions_tui.backend.gateway.live import GatewaySocketBackend
from sessions_tui.backend.values.usage import UsageQuery

pytestmark = pytest.mark.openclaw

DAY = 24 * 3_600_000
SEEDED_MODEL = "anthropic/claude-sonnet-4-5"


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    with started_gateway(tmp_path_factory, None) as started:
        yield started


@pytest.fixture
async def backend(gateway: Gateway, tmp_path: Path) -> AsyncIterator[GatewaySocketBackend]:
    found = GatewaySocketBackend(f"ws://127.0.0.1:{gateway.port}", gateway.token, identity_dir=tmp_path / "id")
    found.usage_retry_s = (1.0, 2.0, 4.0, 8.0, 8.0)  # a cold cache on a slow machine: as long as it takes
    await asyncio.wait_for(found.connect(), DEADLINE_SECONDS)
    yield found
    await found.aclose()


def _since() -> int:
    return int(time.time() * 1000) - 365 * DAY


async def test_the_gateways_usage_by_model_agent_and_session(backend: GatewaySocketBackend) -> None:
    assert Capability.USAGE in backend.capabilities
    by_model = await backend.usage(UsageQuery(since=_since(), by="model"))
    seeded = next(g for g in by_model.groups if g.name == SEEDED_MODEL)
    assert seeded.totals.turns > 0 and seeded.totals.total_tokens > 0 and seeded.totals.cost_usd > 0
    assert by_model.total.total_tokens == sum(g.totals.total_tokens for g in by_model.groups)
    assert by_model.since % DAY == 0 and "whole days (UTC)" in (by_model.note or "")
    assert "not fresh" not in (by_model.note or "")
    by_agent = await backend.usage(UsageQuery(since=_since(), by="agent"))
    assert "main" in {g.name for g in by_agent.groups} and by_agent.total == by_model.total
    by_session = await backend.usage(UsageQuery(since=_since(), by="session"))
    assert sum(g.totals.total_tokens for g in by_session.groups) == by_model.total.total_tokens
    assert sum(p.totals.total_tokens for p in by_session.series) == by_model.total.total_tokens
    one = by_session.groups[0].name
    only = await backend.usage(UsageQuery(since=_since(), by="session", keys=(one,)))
    assert [(g.name, g.totals) for g in only.groups] == [(one, by_session.groups[0].totals)]
    start = time.strftime("%Y-%m-%d", time.gmtime(_since() / 1000))
    cost = await backend._call(
        "usage.cost", {"agentScope": "all", "startDate": start, "endDate": time.strftime("%Y-%m-%d", time.gmtime())}
    )
    assert cost["totals"]["totalTokens"] == by_model.total.total_tokens


def test_usage_through_the_command_line(gateway: Gateway, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SESSIONS_TUI_", "OPENCLAW_"))}
    env |= {"XDG_CONFIG_HOME": str(tmp_path / "config"), "SESSIONS_TUI_TOKEN": gateway.token}
    url = f"ws://127.0.0.1:{gateway.port}"
    base = [sys.executable, "-m", "sessions_tui", "--remote", url, "usage", "--since", "365d", "--by", "model"]
    for _ in range(10):  # the first asks may meet a cold cache: the note says so
        done = subprocess.run([*base, "--json"], capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        if "not fresh" not in report.get("note", ""):
            break
    assert SEEDED_MODEL in {g["name"] for g in report["groups"]}
    assert report["note"].startswith("an OpenClaw gateway counts whole days (UTC)")
    text = subprocess.run(base, capture_output=True, text=True, env=env, timeout=120)
    assert text.returncode == 0, text.stderr
    assert "(an OpenClaw gateway counts whole days (UTC)" in text.stdout and SEEDED_MODEL in text.stdout
