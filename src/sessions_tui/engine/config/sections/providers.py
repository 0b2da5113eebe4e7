"""The `models` section: the model providers sessions-tui can call, and the offline demo model.

A provider is an OpenAI-compatible endpoint (`baseUrl`, `apiKey`, `headers`). Its API key and
header values are secrets: they are held as `SecretStr`, so neither `repr()` nor `str()` of a
loaded config shows them; the model client asks for them with `.get_secret_value()`.
"""

from typing import Annotated, Any

from pydantic import Field, SecretStr, Tag

from sessions_tui.engine.config.model.base import ConfigModel, FlooredInt

__all__ = ["DemoModelConfig", "ModelCostConfig", "ModelsConfig", "ProviderConfig", "ProviderModelConfig"]


class ModelCostConfig(ConfigModel):
    """`models.providers.<name>.models[].cost`: US dollars per million tokens, as OpenClaw prices a model."""

    input: float = Field(default=0.0, ge=0, description="Per million input tokens; default 0.")
    output: float = Field(default=0.0, ge=0, description="Per million output tokens; default 0.")
    cache_read: float = Field(default=0.0, ge=0, alias="cacheRead", description="Per million cache reads; default 0.")
    cache_write: float = Field(
        default=0.0, ge=0, alias="cacheWrite", description="Per million cache writes; default 0."
    )


class ProviderModelConfig(ConfigModel):
    """One entry of `models.providers.<name>.models`: its id, a name, and its price."""

    id: str = Field(description="The model id, as a model ref names it after `<provider>/` (required).")
    name: str | None = Field(default=None, description="A display name; default: none.")
    cost: ModelCostConfig | None = Field(
        default=None,
        description="Its price per million tokens (input, output, cacheRead, cacheWrite); default: unknown.",
    )


class ProviderConfig(ConfigModel):
    """`models.providers.<name>`: one OpenAI-compatible endpoint."""

    base_url: str | None = Field(
        default=None, alias="baseUrl", description="The endpoint's base URL (…/v1); default: none (unusable)."
    )
    # The "str" tag keeps the error location of a wrong type as it was when this was a plain str.
    api_key: Annotated[SecretStr, Tag("str")] | dict[str, Any] | None = Field(
        default=None,
        alias="apiKey",
        description='The API key: a string, "${VAR}" (an environment variable), or a secret reference '
        '{"source": "env", "id": "VAR"}; default: the variable <PROVIDER_NAME>_API_KEY. Never shown.',
    )
    api: str | None = Field(default=None, description="OpenClaw's API flavour name (read, not used); default none.")
    stream: bool = Field(
        default=True,
        description="sessions-tui's own: false asks for whole (non-streamed) completions; default true.",
    )
    models: list[ProviderModelConfig] = Field(
        default_factory=list, description="The provider's models, for listing; default []."
    )
    headers: dict[str, SecretStr] | None = Field(
        default=None, description="Extra HTTP headers sent with each request (values never shown); default none."
    )


class DemoModelConfig(ConfigModel):
    """sessions-tui's own `models.demo`: the offline demo model's simulated latency."""

    latency_ms: FlooredInt = Field(
        default=400, alias="latencyMs", description="Delay before the demo model answers, 0–60000 ms; default 400."
    )
    chunk_ms: FlooredInt = Field(
        default=40, alias="chunkMs", description="Delay between streamed chunks, 0–10000 ms; default 40."
    )
    cost: ModelCostConfig | None = Field(
        default=None, description="A price for the demo model per million tokens, to show costs; default: none."
    )


class ModelsConfig(ConfigModel):
    """`models`: providers by name, and the demo model."""

    providers: dict[str, ProviderConfig] = Field(
        default_factory=dict, description="Model providers by name (the `<provider>` of a model ref); default {}."
    )
    demo: DemoModelConfig = Field(
        default_factory=DemoModelConfig, description="The offline demo model; default: 400 ms, 40 ms chunks."
    )
