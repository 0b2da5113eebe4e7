"""A send into a session that lives in OpenClaw goes to its gateway when `gateway.remote` names one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from conftest import run_tool
from openclaw_fake import copy_fixture
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.openclaw.gateway_send import gateway_http_url
from sessions_tui.engine.openclaw.importer import import_openclaw

GROUP = "agent:main:discord:group:123"
TOKEN = "gw-token-5a1b"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path / "openclaw", "sqlite-state")


def engine_for(make_engine, root: Path, url: str | None, token: str | None = TOKEN) -> Engine:
    remote = {k: v for k, v in {"url": url, "token": token}.items() if v}
    engine: Engine = make_engine({"gateway": {"remote": remote}})
    import_openclaw(engine.store, engine.canonical, root)
    return engine


def runs_in(engine: Engine) -> int:
    with engine.store.read() as conn:
        return int(conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])


def test_the_gateway_makes_the_send_and_its_answer_is_the_result(make_engine, root, httpserver: HTTPServer):
    seen: list[dict] = []

    def answer(request: Request) -> Response:
        seen.append({"auth": request.headers.get("authorization"), "body": json.loads(request.get_data())})
        details = {
            "runId": "r-1",
            "status": "ok",
            "reply": "pong",
            "sessionKey": GROUP,
            "delivery": {"status": "pending"},
        }
        body = {"ok": True, "result": {"content": [{"type": "text", "text": json.dumps(details)}], "details": details}}
        return Response(json.dumps(body), content_type="application/json")

    httpserver.expect_request("/tools/invoke", method="POST").respond_with_handler(answer)
    engine = engine_for(make_engine, root, httpserver.url_for("/").rstrip("/").replace("http://", "ws://"))
    result = run_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "ping", "timeoutSeconds": 5})
    assert result == {
        "runId": "r-1",
        "status": "ok",
        "reply": "pong",
        "sessionKey": GROUP,
        "delivery": {"status": "pending"},
    }
    assert seen == [
        {
            "auth": f"Bearer {TOKEN}",
            "body": {"tool": "sessions_send", "args": {"sessionKey": GROUP, "message": "ping", "timeoutSeconds": 5}},
        }
    ]
    assert runs_in(engine) == 0  # the embedded engine never ran in OpenClaw's session


def test_a_gateway_that_denies_sessions_send_over_http_says_how_to_allow_it(make_engine, root, httpserver):
    httpserver.expect_request("/tools/invoke").respond_with_json(
        {"ok": False, "error": {"type": "not_found", "message": "Tool not available: sessions_send"}}, status=404
    )
    engine = engine_for(make_engine, root, httpserver.url_for("/"))
    result = run_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "ping", "timeoutSeconds": 0})
    assert result["status"] == "forbidden" and 'gateway.tools.allow: ["sessions_send"]' in result["error"]


def test_a_refused_token_and_an_unreachable_gateway_are_errors(make_engine, root, httpserver):
    httpserver.expect_request("/tools/invoke").respond_with_json(
        {"error": {"message": "Unauthorized", "type": "unauthorized"}}, status=401
    )
    engine = engine_for(make_engine, root, httpserver.url_for("/"))
    refused = run_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "x", "timeoutSeconds": 0})
    assert refused["status"] == "error" and "refused gateway.remote.token (401)" in refused["error"]
    assert TOKEN not in json.dumps(refused)
    gone = engine_for(make_engine, root, "http://127.0.0.1:9")
    failed = run_tool(gone, "sessions_send", {"sessionKey": GROUP, "message": "x", "timeoutSeconds": 0})
    assert failed["status"] == "error" and "ConnectError" in failed["error"]


def test_without_a_token_the_send_is_still_refused_where_it_lives(make_engine, root):
    engine = engine_for(make_engine, root, "http://127.0.0.1:9", token=None)
    result = run_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "x", "timeoutSeconds": 0})
    assert result["status"] == "forbidden" and "lives in OpenClaw" in result["error"]


@pytest.mark.parametrize(
    ("url", "http"),
    [("ws://h:18789", "http://h:18789"), ("wss://h/gw/", "https://h/gw"), ("http://h:1", "http://h:1")],
)
def test_the_gateways_ws_url_names_its_http_api(url, http):
    assert gateway_http_url(url) == http
