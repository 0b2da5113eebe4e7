"""What a turn cost, from the model's price in the config (OpenClaw's
`models.providers.<p>.models[].cost`, US dollars per million tokens).

A provider that reports a turn's cost itself is believed; otherwise the price of the model the turn
ran on decides, and a model with no price (the demo, a model not listed) costs "unknown" (None),
never 0: a tree's total says n/a rather than a sum that leaves a part out.
"""

from __future__ import annotations

from sessions_tui.engine.config import Config, ModelCostConfig
from sessions_tui.engine.llm.base import Usage

PER = 1_000_000


def model_price(config: Config, provider: str, model_id: str) -> ModelCostConfig | None:
    """The configured price of `provider`'s model `model_id` (the demo's is `models.demo.cost`),
    None when it has none."""
    if provider == "demo":
        return config.models.demo.cost
    found = config.models.providers.get(provider)
    if found is None:
        return None
    for model in found.models:
        if model.id == model_id:
            return model.cost
    return None


def turn_cost(config: Config, provider: str, model_id: str, usage: Usage) -> float | None:
    """A turn's cost in dollars: the provider's own figure, else the configured price; None if neither."""
    if usage.cost_usd is not None:
        return usage.cost_usd
    price = model_price(config, provider, model_id)
    if price is None:
        return None
    uncached = max(0, usage.input - usage.cache_read)
    return (uncached * price.input + usage.cache_read * price.cache_read + usage.output * price.output) / PER
