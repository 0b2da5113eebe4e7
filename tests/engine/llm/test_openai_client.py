"""The OpenAI-compatible chat-completions client, against a real scripted server on loopback."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from contextlib import aclosing
from typing import Any

import httpx
import pytest

from openai_server import Reply, ScriptedOpenAIServer, system_text
from sessions_tui.engine.config import ProviderConfig, parse_config
from sessions_tui.engine.llm.api_key import resolve_api_key
from sessions_tui.engine.llm.base import (
    ModelError,
    ModelRequest,
    TextDelta,
    ThinkingDelta,
    ToolCallEvent,
    TurnDone,
    UsageEvent,
)
from sessions_tui.engine.llm.openai import DEFAULT_BASE_URL, OpenAIChatClient
from sessions_tui.engine.llm.wire import provider_error_message

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "sessions_list",
            "description": "List sessions.",
            "parameters": {"type": "object", "properties": {"limit": {"type": "integer"}}},
        },
    }
]


def provider(base_url: str | None, api_key: Any = "sk-test", **extra: Any) -> ProviderConfig:
    data: dict[str, Any] = {"baseUrl": base_url, "apiKey": api_key, **extra}
    return ProviderConfig.model_validate({k: v for k, v in data.items() if v is not None})


@pytest.fixture
async def make_client():
    clients: list[OpenAIChatClient] = []

    def make(
        base_url: str | None,
        *,
        api_key: Any = "sk-test",
        name: str = "local",
        headers: dict[str, str] | None = None,
        **options: Any,
    ) -> OpenAIChatClient:
        options.setdefault("backoff_base", 0.001)
        client = OpenAIChatClient(name, provider(base_url, api_key, headers=headers), **options)
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()


def req(**fields: Any) -> ModelRequest:
    fields.setdefault("model", "test-model")
    fields.setdefault("messages", [{"role": "user", "content": "hello"}])
    return ModelRequest(**fields)


async def collect(client: OpenAIChatClient, request: ModelRequest | None = None) -> list[Any]:
    return [event async for event in client.stream(request or req())]


def texts(events: list[Any], kind: type) -> list[str]:
    return [e.text for e in events if isinstance(e, kind)]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class CountingTransport(httpx.AsyncHTTPTransport):
    """The real transport, counting the requests it is asked to send."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        return await super().handle_async_request(request)


# --------------------------------------------------------------------------------------------
# Streaming
# --------------------------------------------------------------------------------------------


async def test_streams_thinking_text_and_usage(openai_server, make_client):
    openai_server.script(
        Reply(text="Hello there, world!", thinking="Let me think.", usage=(12, 7), cached_tokens=3, cost=0.0012)
    )
    events = await collect(make_client(openai_server.url))

    thinking = texts(events, ThinkingDelta)
    text = texts(events, TextDelta)
    assert len(thinking) == 3 and "".join(thinking) == "Let me think."
    assert len(text) == 3 and "".join(text) == "Hello there, world!"
    kinds = [e.type for e in events]
    assert kinds == ["thinking"] * 3 + ["text"] * 3 + ["usage", "done"]
    usage = events[-2].usage
    assert (usage.input, usage.output, usage.total, usage.cache_read) == (12, 7, 19, 3)
    assert usage.cost_usd == pytest.approx(0.0012)
    assert events[-1] == TurnDone(stop_reason="stop")


async def test_streams_tool_calls_split_over_chunks(openai_server, make_client):
    args = {"limit": 5, "kinds": ["main", "group"], "note": "a longer argument string"}
    openai_server.script(Reply(text="Checking.", tool_calls=[("sessions_list", args), ("agents_list", {})], pieces=4))
    events = await collect(make_client(openai_server.url), req(tools=TOOLS))

    calls = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("call_0", "sessions_list", args),
        ("call_1", "agents_list", {}),
    ]
    assert json.loads(calls[0].raw_arguments) == args
    # Tool calls come once the stream ends, after the text, before usage and done.
    assert [e.type for e in events][-4:] == ["tool_call", "tool_call", "usage", "done"]
    assert events[-1].stop_reason == "toolUse"


async def test_tool_call_arguments_that_do_not_parse(openai_server, make_client):
    openai_server.script(Reply(tool_calls=[("sessions_send", '{"message": "hi"')]))
    events = await collect(make_client(openai_server.url))
    (call,) = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert call.name == "sessions_send"
    assert call.arguments == {}
    assert call.raw_arguments == '{"message": "hi"'


@pytest.mark.parametrize(
    ("finish", "expected"),
    [("length", "length"), ("tool_calls", "toolUse"), ("content_filter", "stop"), ("stop", "stop")],
)
async def test_stop_reason_mapping(openai_server, make_client, finish, expected):
    openai_server.script(Reply(text="x", finish_reason=finish))
    events = await collect(make_client(openai_server.url))
    assert events[-1] == TurnDone(stop_reason=expected)


async def test_no_usage_no_usage_event(openai_server, make_client):
    openai_server.script(Reply(text="hi", usage=None))
    events = await collect(make_client(openai_server.url))
    assert [e.type for e in events] == ["text", "text", "done"]


async def test_stream_without_done_marker_still_finishes(openai_server, make_client):
    chunk = {"choices": [{"index": 0, "delta": {"content": "partial"}, "finish_reason": None}]}
    openai_server.script(Reply(raw_events=[json.dumps(chunk)]))
    events = await collect(make_client(openai_server.url))
    assert [e.type for e in events] == ["text", "done"]


async def test_reasoning_field_and_usage_in_a_content_chunk(openai_server, make_client):
    chunks = [
        {"choices": [{"index": 0, "delta": {"reasoning": "hmm"}}]},
        {
            "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 4, "completion_tokens": 2, "total_tokens": 6},
        },
        "[DONE]",
    ]
    openai_server.script(Reply(raw_events=[c if isinstance(c, str) else json.dumps(c) for c in chunks]))
    events = await collect(make_client(openai_server.url))
    assert texts(events, ThinkingDelta) == ["hmm"]
    assert texts(events, TextDelta) == ["ok"]
    (usage,) = [e.usage for e in events if isinstance(e, UsageEvent)]
    assert (usage.input, usage.output, usage.total, usage.cost_usd) == (4, 2, 6, None)


async def test_server_that_ignores_stream_flag_answers_json(openai_server, make_client):
    completion = {
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "plain json"}}]
    }
    openai_server.script(Reply(raw_body=json.dumps(completion)))
    events = await collect(make_client(openai_server.url))
    assert [e.type for e in events] == ["text", "done"]
    assert events[0].text == "plain json"


# --------------------------------------------------------------------------------------------
# Non-streaming
# --------------------------------------------------------------------------------------------


async def test_non_streaming(openai_server, make_client):
    openai_server.script(
        Reply(text="Done.", thinking="Thought.", tool_calls=[("sessions_list", {"limit": 2})], usage=(30, 8))
    )
    client = make_client(openai_server.url, stream=False)
    events = await collect(client, req(tools=TOOLS))

    assert [e.type for e in events] == ["thinking", "text", "tool_call", "usage", "done"]
    assert events[0].text == "Thought." and events[1].text == "Done."
    call = events[2].call
    assert (call.id, call.name, call.arguments) == ("call_0", "sessions_list", {"limit": 2})
    assert (events[3].usage.input, events[3].usage.output, events[3].usage.total) == (30, 8, 38)
    assert events[4].stop_reason == "toolUse"
    body = openai_server.last_request
    assert body["stream"] is False and "stream_options" not in body
    assert "text/event-stream" not in openai_server.last_headers.get("accept", "")


# --------------------------------------------------------------------------------------------
# The request
# --------------------------------------------------------------------------------------------


async def test_request_body_with_system_and_tools(openai_server, make_client):
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "list sessions"},
    ]
    request = req(model="gpt-4o-mini", system="You are main.", messages=messages, tools=TOOLS)
    await collect(make_client(openai_server.url + "/"), request)

    assert openai_server.paths == ["/v1/chat/completions"]
    body = openai_server.last_request
    assert body["model"] == "gpt-4o-mini"
    assert body["messages"] == [{"role": "system", "content": "You are main."}, *messages]
    assert body["tools"] == TOOLS
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert openai_server.last_headers["accept"] == "text/event-stream"
    assert openai_server.last_headers["content-type"] == "application/json"


async def test_request_body_without_system_or_tools(openai_server, make_client):
    await collect(make_client(openai_server.url), req(system="", tools=[]))
    body = openai_server.last_request
    assert body["messages"] == [{"role": "user", "content": "hello"}]
    assert "tools" not in body


def test_default_base_url():
    client = OpenAIChatClient("openai", provider(None))
    assert client.url == f"{DEFAULT_BASE_URL}/chat/completions"
    asyncio.run(client.aclose())


def test_from_config():
    config, _ = parse_config({"models": {"providers": {"local": {"baseUrl": "http://x/v1/"}}}})
    client = OpenAIChatClient.from_config(config, "local")
    assert client.url == "http://x/v1/chat/completions"
    asyncio.run(client.aclose())
    with pytest.raises(ModelError, match="unknown model provider: nope"):
        OpenAIChatClient.from_config(config, "nope")


# --------------------------------------------------------------------------------------------
# API keys
# --------------------------------------------------------------------------------------------

ENV = {"MY_KEY": "from-my-key", "OPENAI_API_KEY": "from-openai", "MY_LLM_API_KEY": "from-fallback"}


@pytest.mark.parametrize(
    ("name", "api_key", "expected"),
    [
        ("openai", "sk-plain", "sk-plain"),
        ("openai", "${MY_KEY}", "from-my-key"),
        ("openai", "${UNSET_VAR}", None),
        ("openai", {"source": "env", "id": "MY_KEY"}, "from-my-key"),
        ("openai", {"source": "env", "provider": "default", "name": "MY_KEY"}, "from-my-key"),
        ("openai", {"source": "env", "id": "UNSET_VAR"}, None),
        ("openai", {"source": "file", "id": "/secrets/key"}, None),
        ("openai", None, "from-openai"),
        ("openai", "", "from-openai"),
        ("my-llm", None, "from-fallback"),
        ("other", None, None),
    ],
)
def test_resolve_api_key(name, api_key, expected):
    assert resolve_api_key(name, provider("http://x", api_key), env=ENV) == expected


def test_resolve_api_key_reads_os_environ_by_default(monkeypatch):
    monkeypatch.setenv("LOCAL_API_KEY", "from-env")
    assert resolve_api_key("local", provider("http://x", None)) == "from-env"


async def test_authorization_header_from_env_reference(openai_server, make_client, monkeypatch):
    monkeypatch.setenv("TEST_PROVIDER_KEY", "sk-secret")
    client = make_client(openai_server.url, api_key="${TEST_PROVIDER_KEY}", headers={"X-Title": "sessions-tui"})
    await collect(client)
    headers = openai_server.last_headers
    assert headers["authorization"] == "Bearer sk-secret"
    assert headers["x-title"] == "sessions-tui"


async def test_provider_env_fallback_key(openai_server, make_client, monkeypatch):
    monkeypatch.setenv("LOCAL_VLLM_API_KEY", "sk-fallback")
    await collect(make_client(openai_server.url, api_key=None, name="local.vllm"))
    assert openai_server.last_headers["authorization"] == "Bearer sk-fallback"


async def test_no_key_no_authorization_header(openai_server, make_client, monkeypatch):
    monkeypatch.delenv("LOCAL_API_KEY", raising=False)
    await collect(make_client(openai_server.url, api_key=None, name="local"))
    assert "authorization" not in openai_server.last_headers


# --------------------------------------------------------------------------------------------
# HTTP errors and retries
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
async def test_http_500_carries_provider_message(openai_server, make_client, stream):
    openai_server.script(Reply(status=500, error_message="model exploded"))
    with pytest.raises(ModelError) as info:
        await collect(make_client(openai_server.url, stream=stream))
    assert str(info.value) == "HTTP 500: model exploded"
    assert info.value.status == 500
    assert len(openai_server.requests) == 1  # 500 is not retried


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('{"error": {"message": "Invalid model", "type": "invalid_request_error"}}', "HTTP 400: Invalid model"),
        ('{"error": "bad thing happened"}', "HTTP 400: bad thing happened"),
        ('{"message": "nope"}', "HTTP 400: nope"),
        ("  upstream said no  \n", "HTTP 400: upstream said no"),
        ("", "HTTP 400: Bad Request"),
        ("x" * 1000, "HTTP 400: " + "x" * 500),
    ],
)
async def test_http_error_message_forms(openai_server, make_client, body, expected):
    openai_server.script(Reply(status=400, raw_body=body))
    with pytest.raises(ModelError) as info:
        await collect(make_client(openai_server.url))
    assert str(info.value) == expected
    assert info.value.status == 400


def test_provider_error_message_without_anything():
    assert provider_error_message(b"", "") == ""
    assert provider_error_message(b'[{"error": {"message": "list form"}}]') == "list form"


async def test_429_retried_then_success(openai_server, make_client):
    openai_server.script(Reply(status=429, error_message="slow down"), Reply(text="finally"))
    events = await collect(make_client(openai_server.url))
    assert texts(events, TextDelta) and "".join(texts(events, TextDelta)) == "finally"
    assert len(openai_server.requests) == 2


async def test_retry_after_is_honoured(openai_server, make_client):
    openai_server.script(Reply(status=503, error_message="busy", headers={"Retry-After": "0.3"}))
    started = time.monotonic()
    events = await collect(make_client(openai_server.url, backoff_base=0.0))
    assert time.monotonic() - started >= 0.28
    assert events[-1].type == "done"
    assert len(openai_server.requests) == 2


async def test_retryable_status_gives_up_after_max_retries(openai_server, make_client):
    openai_server.on(lambda body: Reply(status=503, error_message="overloaded"))
    with pytest.raises(ModelError) as info:
        await collect(make_client(openai_server.url, max_retries=2))
    assert str(info.value) == "HTTP 503: overloaded"
    assert info.value.status == 503 and info.value.retryable
    assert len(openai_server.requests) == 3  # the first try and two retries


async def test_connection_refused_is_retried_then_fails(make_client):
    transport = CountingTransport()
    client = make_client(f"http://127.0.0.1:{free_port()}/v1", max_retries=2, transport=transport)
    with pytest.raises(ModelError) as info:
        await collect(client)
    message = str(info.value)
    assert message.startswith("connection failed: ")
    assert message.endswith("(3 attempts)")
    assert info.value.retryable and info.value.status is None
    assert transport.calls == 3


async def test_connection_refused_without_retries(make_client):
    client = make_client(f"http://127.0.0.1:{free_port()}/v1", max_retries=0)
    with pytest.raises(ModelError, match=r"^connection failed: .* \(1 attempts\)$"):
        await collect(client)


async def test_dropped_connection_is_retried(openai_server, make_client):
    openai_server.script(Reply(drop_connection=True), Reply(text="second try"))
    events = await collect(make_client(openai_server.url))
    assert "".join(texts(events, TextDelta)) == "second try"
    assert len(openai_server.requests) == 2


async def test_dropped_connections_exhaust_retries(openai_server, make_client):
    openai_server.on(lambda body: Reply(drop_connection=True))
    with pytest.raises(ModelError, match=r"^connection failed: .* \(2 attempts\)$"):
        await collect(make_client(openai_server.url, max_retries=1))
    assert len(openai_server.requests) == 2


# --------------------------------------------------------------------------------------------
# Timeouts, bad payloads, cancellation
# --------------------------------------------------------------------------------------------


async def test_read_timeout_before_the_response(openai_server, make_client):
    openai_server.script(Reply(text="late", delay=2.0))
    started = time.monotonic()
    with pytest.raises(ModelError) as info:
        await collect(make_client(openai_server.url, read_timeout=0.2))
    assert str(info.value) == "model timed out after 0.2s"
    assert time.monotonic() - started < 0.8
    assert len(openai_server.requests) == 1  # a timeout is not retried


def _delta(text: str) -> str:
    return json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]})


async def test_read_timeout_mid_stream(openai_server, make_client):
    openai_server.script(Reply(raw_events=[_delta("first"), _delta("never")], chunk_delay=2.0))
    client = make_client(openai_server.url, read_timeout=0.2)
    seen: list[Any] = []
    with pytest.raises(ModelError, match=r"^model timed out after 0\.2s$"):
        async for event in client.stream(req()):
            seen.append(event)
    assert seen == [TextDelta(text="first")]
    assert len(openai_server.requests) == 1


async def test_connection_lost_after_an_event_is_not_retried(openai_server, make_client):
    openai_server.script(Reply(text="abcdef", pieces=3, drop_after=3))
    client = make_client(openai_server.url)
    seen: list[Any] = []
    with pytest.raises(ModelError) as info:
        async for event in client.stream(req()):
            seen.append(event)
    assert str(info.value).startswith("connection lost: ")
    assert info.value.retryable
    assert seen == [TextDelta(text="ab"), TextDelta(text="cd")]
    assert len(openai_server.requests) == 1


async def test_connection_lost_before_any_event_is_retried(openai_server, make_client):
    openai_server.script(Reply(text="abcdef", drop_after=1), Reply(text="again"))
    events = await collect(make_client(openai_server.url))
    assert "".join(texts(events, TextDelta)) == "again"
    assert len(openai_server.requests) == 2


async def test_invalid_json_in_sse(openai_server, make_client):
    openai_server.script(Reply(raw_events=["{not json"]))
    with pytest.raises(ModelError) as info:
        await collect(make_client(openai_server.url))
    assert str(info.value).startswith("invalid response from model server: ")
    assert "{not json" in str(info.value)
    assert len(openai_server.requests) == 1


async def test_invalid_json_body_non_streaming(openai_server, make_client):
    openai_server.script(Reply(raw_body="<html>oops</html>"))
    with pytest.raises(ModelError, match="^invalid response from model server: "):
        await collect(make_client(openai_server.url, stream=False))


async def test_error_event_in_stream(openai_server, make_client):
    openai_server.script(Reply(raw_events=[json.dumps({"error": {"message": "quota exceeded"}})]))
    with pytest.raises(ModelError, match="^model server error: quota exceeded$"):
        await collect(make_client(openai_server.url))


async def _wait_for(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        await asyncio.sleep(0.01)
    return predicate()


async def test_cancellation_mid_stream_closes_the_response(openai_server, make_client):
    openai_server.script(Reply(text="x" * 200, pieces=100, chunk_delay=0.03))
    client = make_client(openai_server.url)
    first = asyncio.Event()
    seen: list[Any] = []

    async def consume() -> None:
        async for event in client.stream(req()):
            seen.append(event)
            first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 1.0)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 0.1
    assert 1 <= len(seen) < 100
    # The server notices the closed connection on its next writes.
    assert await _wait_for(lambda: openai_server.disconnects == 1)
    assert openai_server.completed == 0
    # The client is still usable afterwards.
    events = await collect(client)
    assert events[-1] == TurnDone(stop_reason="stop")


async def test_closing_the_generator_early_closes_the_response(openai_server, make_client):
    openai_server.script(Reply(text="y" * 200, pieces=100, chunk_delay=0.03))
    client = make_client(openai_server.url)
    async with aclosing(client.stream(req())) as events:
        async for event in events:
            assert isinstance(event, TextDelta)
            break
    assert await _wait_for(lambda: openai_server.disconnects == 1)


async def test_client_is_reusable_and_closes(openai_server):
    async with OpenAIChatClient("local", provider(openai_server.url)) as client:
        first = await collect(client)
        second = await collect(client)
    assert first[-1].type == second[-1].type == "done"
    assert len(openai_server.requests) == 2


# --------------------------------------------------------------------------------------------
# The scripted server itself
# --------------------------------------------------------------------------------------------


async def test_server_rules_queue_and_default(openai_server, make_client):
    openai_server.default = Reply(text="default")
    openai_server.on(lambda body: Reply(text="REPLY_SKIP") if "Turn 2 of" in system_text(body) else None)
    openai_server.on(lambda body: Reply(text="ANNOUNCE_SKIP") if "announce step" in system_text(body) else None)
    openai_server.script(Reply(text="queued"))
    client = make_client(openai_server.url)

    async def answer(system: str) -> str:
        return "".join(texts(await collect(client, req(system=system)), TextDelta))

    assert await answer("Agent-to-agent reply step. Turn 2 of 5.") == "REPLY_SKIP"
    assert await answer("This is the announce step.") == "ANNOUNCE_SKIP"
    assert await answer("plain") == "queued"
    assert await answer("plain") == "default"
    assert openai_server.pending == 0
    assert len(openai_server.requests) == 4


def test_server_context_manager_and_stop():
    with ScriptedOpenAIServer() as server:
        port = server.port
        response = httpx.post(f"{server.url}/chat/completions", json={"model": "m", "messages": []}, timeout=2)
        assert response.json()["choices"][0]["message"]["content"] == "ok"
    with pytest.raises(httpx.ConnectError):
        httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json={}, timeout=2)
