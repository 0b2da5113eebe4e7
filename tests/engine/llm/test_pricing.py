"""A turn's cost from the model's configured price, or the provider's own figure; unknown is None."""

from __future__ import annotations

import pytest

from conftest import add_session
from openai_server import Reply
from sessions_tui.engine.config import Config
from sessions_tui.engine.llm.base import Usage
from sessions_tui.engine.llm.pricing import turn_cost
from sessions_tui.engine.runs.runs import RunRequest

GROUP = "agent:main:discord:group:dev"
PRICED = {
    "models": {
        "providers": {
            "acme": {
                "baseUrl": "http://x/v1",
                "models": [{"id": "m1", "cost": {"input": 3, "output": 15, "cacheRead": 0.3}}],
            }
        }
    }
}


def test_the_configured_price_decides_and_cache_reads_are_cheaper():
    config = Config.model_validate(PRICED)
    usage = Usage(input=1_000_000, output=200_000, cache_read=400_000)
    assert turn_cost(config, "acme", "m1", usage) == pytest.approx(0.6 * 3 + 0.4 * 0.3 + 0.2 * 15)


def test_the_providers_own_figure_wins_and_an_unpriced_model_is_unknown():
    config = Config.model_validate(PRICED)
    assert turn_cost(config, "acme", "m1", Usage(input=10, cost_usd=0.5)) == 0.5
    assert turn_cost(config, "acme", "other", Usage(input=10)) is None
    assert turn_cost(config, "demo", "demo", Usage(input=10)) is None


async def test_a_session_adds_up_its_turns_cost_at_the_models_price(live_engine, openai_server):
    engine = live_engine(
        {
            "models": {
                "providers": {
                    "local": {
                        "baseUrl": openai_server.url,
                        "apiKey": "k",
                        "models": [{"id": "test-model", "cost": {"input": 2, "output": 10}}],
                    }
                }
            },
            "agents": {"defaults": {"model": "local/test-model"}},
        }
    )
    add_session(engine, GROUP)
    openai_server.script(Reply(text="one", usage=(1000, 100)), Reply(text="two", usage=(2000, 300)))
    for message in ("a", "b"):  # two runs in the session, nothing else (no agent-to-agent steps)
        run_id = engine.runs.start(RunRequest(session_key=GROUP, message=message))
        await engine.runs.wait(run_id, 20_000)
    await engine.drain()
    cost = engine.store.sessions.get(GROUP).entry["estimatedCostUsd"]
    assert cost == pytest.approx((3000 * 2 + 400 * 10) / 1_000_000)
