"""Pytest plugin: the `openai_server` fixture (a started `ScriptedOpenAIServer`).

Enable with `pytest_plugins = ["openai_fixture"]` in conftest.py, or import the fixture
explicitly: `from openai_fixture import openai_server  # noqa: F401`.
"""

from __future__ import annotations

from collections.abc import Iterator

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
