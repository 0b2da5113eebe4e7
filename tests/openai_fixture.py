"""Pytest plugin: the `openai_server` fixture (a started `ScriptedOpenAIServer`), and `engine_for`,
an engine whose model is on it.

Enable with `pytest_plugins = ["openai_fixture"]` in conftest.py, or import the fixture
explicitly: `from openai_fixture import openai_server  # noqa: F401`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from openai_server import ScriptedOpenAIServer


@pytest.fixture
def openai_server() -> Iterator[ScriptedOpenAIServer]:
    """A scripted OpenAI-compatible server on loopback; `openai_server.url` is its baseUrl."""
    server = ScriptedOpenAIServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def engine_for(live_engine: Any, openai_server: ScriptedOpenAIServer) -> Callable[..., Any]:
    """`engine_for(extra=None)`: a live engine whose default model is `local/test-model` on the
    scripted server (`extra`: config sections merged one level deep)."""

    def make(extra: dict[str, Any] | None = None) -> Any:
        config: dict[str, Any] = {
            "models": {"providers": {"local": {"baseUrl": openai_server.url, "apiKey": "test-key"}}},
            "agents": {"defaults": {"model": "local/test-model"}},
        }
        for key, value in (extra or {}).items():
            config[key] = {**config.get(key, {}), **value}
        return live_engine(config)

    return make
