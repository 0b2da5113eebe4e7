"""Which model a session's run uses, and the client that talks to it.

A model ref is `demo` (the built-in offline model) or `<provider>/<model id>` with the provider
under `models.providers`. A session uses its `modelOverride`, else its agent's model, else
`agents.defaults.model`, else `demo`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from sessions_tui.engine.config import Config
from sessions_tui.engine.llm.base import ModelClient, ModelError
from sessions_tui.engine.llm.demo import DemoModel
from sessions_tui.engine.redaction.redact import Redactor
from sessions_tui.engine.sessions.entry import SessionEntry
from sessions_tui.engine.sessions.keys import agent_id_of

DEMO = "demo"


@dataclass(frozen=True)
class ResolvedModel:
    ref: str  # as configured, e.g. "openai/gpt-4o-mini"
    provider: str  # "demo" or the provider name
    model_id: str  # the id sent to the provider
    client: ModelClient


def split_ref(ref: str) -> tuple[str, str]:
    text = ref.strip()
    if text == DEMO or text.startswith(DEMO + "/"):
        return DEMO, text.partition("/")[2] or DEMO
    provider, sep, model_id = text.partition("/")
    if not sep or not provider or not model_id:
        raise ModelError(f'Invalid model "{ref}": use demo or <provider>/<model id>')
    return provider, model_id


class ConfigHolder(Protocol):
    """What the registry needs of the engine: its current configuration (read at each use) and its
    redactor (the demo model quotes what it was told redacted, a model server's error is quoted
    redacted)."""

    config: Config
    redactor: Redactor


class ModelRegistry:
    """One client per provider, created on first use and closed with the engine."""

    def __init__(self, engine: ConfigHolder) -> None:
        self.engine = engine
        self._clients: dict[str, ModelClient] = {}

    def default_ref(self, session_key: str, entry: SessionEntry | None = None) -> str:
        entry = entry or {}
        override = entry.get("modelOverride")
        if isinstance(override, str) and override.strip():
            provider = entry.get("providerOverride")
            if isinstance(provider, str) and provider.strip() and "/" not in override:
                return f"{provider.strip()}/{override.strip()}"
            return override.strip()
        config = self.engine.config
        agent = config.agent(agent_id_of(session_key))
        for ref in (agent.model if agent else None, config.agents.defaults.model):
            if ref is not None and ref.primary:
                return ref.primary
        return DEMO

    def check(self, ref: str) -> None:
        """Raise `ModelError` when a ref cannot be used (unknown provider, bad shape)."""
        provider, _ = split_ref(ref)
        if provider != DEMO and provider not in self.engine.config.models.providers:
            raise ModelError(
                f'invalid model: unknown provider "{provider}" in "{ref}" (configure models.providers.{provider})'
            )

    def resolve(self, ref: str) -> ResolvedModel:
        self.check(ref)
        provider, model_id = split_ref(ref)
        return ResolvedModel(ref=ref, provider=provider, model_id=model_id, client=self._client(provider))

    def _client(self, provider: str) -> ModelClient:
        client = self._clients.get(provider)
        if client is None:
            # The HTTP client is imported only when a provider is used: a demo run, or a command
            # that never runs a model, does not load the HTTP stack for it.
            redact = self.engine.redactor.redact
            if provider == DEMO:
                demo = self.engine.config.models.demo
                client = DemoModel(latency_ms=demo.latency_ms, chunk_ms=demo.chunk_ms, redact=redact)
            else:
                from sessions_tui.engine.llm.openai import OpenAIChatClient

                config = self.engine.config.models.providers[provider]
                client = OpenAIChatClient(provider, config, stream=config.stream, redact=redact)
            self._clients[provider] = client
        return client

    def use_client(self, provider: str, client: ModelClient) -> None:
        """Put a specific client in place for a provider (the demo model with zero latency)."""
        self._clients[provider] = client

    async def aclose(self) -> None:
        for client in self._clients.values():
            close = getattr(client, "aclose", None)
            if close is not None:
                await close()
        self._clients.clear()
