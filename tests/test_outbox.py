"""The outbox: deliveries recorded with their state; webhooks POSTed with retries (real HTTP)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from werkzeug import Response

from conftest import add_session, call_tool
from sessions_tui.config import ConfigError, parse_config


def cli_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    env["HOME"] = str(home)
    env["XDG_DATA_HOME"] = str(home / "xdg")
    return env


def webhook_config(httpserver):
    return {"channels": {"discord": {"webhookUrl": httpserver.url_for("/hook")}}}


async def test_without_a_webhook_the_outbox_is_the_record(live_engine):
    engine = live_engine()
    delivery = engine.outbox.enqueue(kind="a2a", message="hello", session_key="k", channel="telegram", to="123")
    assert delivery.state == "recorded" and engine.outbox.list()[0].id == delivery.id


async def test_webhook_receives_the_announce(live_engine, httpserver):
    httpserver.expect_request("/hook", method="POST").respond_with_json({"ok": True})
    engine = live_engine(webhook_config(httpserver))
    add_session(engine, "agent:main:discord:group:dev")
    await call_tool(engine, "sessions_send", {"sessionKey": "agent:main:discord:group:dev", "message": "status"})
    await engine.drain()
    [delivery] = engine.outbox.list()
    assert delivery.state == "delivered" and delivery.attempts == 1 and delivery.delivered_at is not None
    [(request, _)] = httpserver.log
    body = json.loads(request.data)
    assert (body["channel"], body["to"], body["kind"]) == ("discord", "group:dev", "a2a")
    assert body["message"] == delivery.message and body["sessionKey"] == "agent:main:discord:group:dev"
    assert request.headers["Idempotency-Key"] == f"outbox-{delivery.id}"


async def test_transient_failures_are_retried_then_delivered(live_engine, httpserver):
    calls = []

    def handler(request):
        calls.append(1)
        return Response("busy", status=503) if len(calls) < 3 else Response("{}", status=200)

    httpserver.expect_request("/hook").respond_with_handler(handler)
    engine = live_engine(webhook_config(httpserver))
    engine.outbox.retry_base_ms = 10
    engine.outbox.enqueue(kind="a2a", message="m", session_key="k", channel="discord", to="group:x")
    await engine.drain()
    [delivery] = engine.outbox.list()
    assert delivery.state == "delivered" and delivery.attempts == 3


async def test_failures_are_recorded_never_raised(live_engine, httpserver):
    httpserver.expect_request("/hook").respond_with_data("nope", status=500)
    engine = live_engine(webhook_config(httpserver))
    engine.outbox.retry_base_ms = 5
    add_session(engine, "agent:main:discord:group:dev")
    result = await call_tool(engine, "sessions_send", {"sessionKey": "agent:main:discord:group:dev", "message": "x"})
    assert result["status"] == "ok"  # "ok" never promised delivery
    await engine.drain()
    [delivery] = engine.outbox.list()
    assert delivery.state == "failed" and delivery.attempts == 4 and delivery.last_error == "HTTP 500: nope"


async def test_a_client_error_is_not_retried(live_engine, httpserver):
    httpserver.expect_request("/hook").respond_with_data("bad", status=400)
    engine = live_engine(webhook_config(httpserver))
    engine.outbox.enqueue(kind="a2a", message="m", session_key="k", channel="discord", to="group:x")
    await engine.drain()
    [delivery] = engine.outbox.list()
    assert delivery.state == "failed" and delivery.attempts == 1


async def test_unreachable_webhook_fails_after_retries(live_engine):
    engine = live_engine({"channels": {"discord": {"webhookUrl": "http://127.0.0.1:9/hook"}}})
    engine.outbox.retry_base_ms = 5
    engine.outbox.enqueue(kind="a2a", message="m", session_key="k", channel="discord", to="group:x")
    await engine.drain()
    [delivery] = engine.outbox.list()
    assert delivery.state == "failed" and delivery.attempts == 4 and "Connect" in delivery.last_error


@pytest.mark.parametrize("url", ["ftp://x", "not a url", "http://", "javascript:alert(1)", "http:///x",
                                 "https://h:99999/x", "hooks.example.com/x"])
def test_a_webhook_url_that_is_not_http_is_refused_at_load_with_its_key_path(url):
    with pytest.raises(ConfigError) as caught:
        parse_config({"channels": {"telegram": {"webhookUrl": url}}}, source="cfg.json5")
    assert str(caught.value) == "cfg.json5: channels.telegram.webhookUrl: must be an http(s) URL"


def test_http_and_https_webhook_urls_load_and_an_empty_one_is_none():
    config, _ = parse_config({"channels": {
        "a": {"webhookUrl": "https://hooks.example.com/x?token=1"}, "b": {"webhookUrl": "http://127.0.0.1:8080/h"},
        "c": {"webhookUrl": ""},
    }})
    assert config.channels["a"].webhook_url == "https://hooks.example.com/x?token=1"
    assert config.channels["b"].webhook_url == "http://127.0.0.1:8080/h"
    assert config.channels["c"].webhook_url is None


def test_the_cli_exits_2_on_a_bad_webhook_url_naming_the_file_and_key(tmp_path):
    config = tmp_path / "config.json5"
    config.write_text('{channels: {telegram: {webhookUrl: "ftp://x"}}}', encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "sessions_tui", "tool", "sessions_list", "--state", str(tmp_path / "s"),
         "--config", str(config)], capture_output=True, text=True, env=cli_env(tmp_path), timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"sessions-tui: {config}: channels.telegram.webhookUrl: must be an http(s) URL\n"
