"""The dashboard on a real OpenClaw gateway, from its recorded answers: the transcript's header counts
the messages the transcript holds (issue 28 item 5) and a send the gateway refuses into the calling
session says how to reply there (item 20).

Over its HTTP tool API (`--remote-http-only`) the gateway's `sessions_history` gives no
`totalMessages` (fixtures/openclaw-2026.9.6/answers/history_main.json): the header read `main   0
messages` above its ten messages. Over its WebSocket, `chat.history` gives the total
(ws/chat_history.jsonl: 6, of which the first page shows 4)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from gateway_replay import ReplayGateway, replaying
from scenes import select, until
from sessions_tui.backend.gateway.http import OpenClawGatewayBackend
from sessions_tui.backend.gateway.live import GatewaySocketBackend
from sessions_tui.cli.remote import connect
from sessions_tui.ui.app import SessionsApp
from sessions_tui.ui.widgets.transcript import MessageView, TranscriptPane
from ui_support import send_from_composer, text_of

ANSWERS = Path(__file__).parents[1] / "fixtures" / "openclaw-2026.9.6" / "answers"
TOKEN = "peer-test-token"
MAIN = "agent:main:main"
GROUP = "agent:main:discord:group:123"
SELF_SEND = {
    "runId": "1ae98220-af18-4359-bad5-daf50a427917",
    "status": "error",
    "error": "sessions_send cannot target the calling session; use your own reply instead",
    "sessionKey": "main",
}
"""OpenClaw 2026.9.6's `sessions_send` answer to a send from a session into itself (its
sessions-spawn-tool's text; its default config never lets an HTTP call meet it)."""


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def _details(name: str) -> dict[str, Any]:
    details: dict[str, Any] = json.loads((ANSWERS / name).read_text())["result"]["details"]
    return details


class HttpGateway:
    """`POST /tools/invoke` answered from the recordings: its sessions, main's history, and a send
    refused as OpenClaw refuses one into the calling session."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sent: list[dict[str, Any]] = []

    def answer(self, request: Request) -> Response:
        body = json.loads(request.get_data() or b"{}")
        tool, args = body.get("tool"), body.get("args") or {}
        details: dict[str, Any]
        if tool == "agents_list":
            details = {"requester": "main", "allowAny": False, "agents": [{"id": "main"}]}
        elif tool == "sessions_list":
            details = _details("list_all.json")
        elif tool == "sessions_history" and args.get("sessionKey") == MAIN:
            details = _details("history_main.json")
        elif tool == "sessions_send":
            with self.lock:
                self.sent.append(body)
            details = SELF_SEND
        else:
            body = {"ok": False, "error": {"type": "not_found", "message": f"Tool not available: {tool}"}}
            return Response(json.dumps(body), status=404, content_type="application/json")
        text = json.dumps(details)
        answer = {"ok": True, "result": {"content": [{"type": "text", "text": text}], "details": details}}
        return Response(json.dumps(answer), status=200, content_type="application/json")


@pytest.fixture
def http_backend(httpserver: HTTPServer):
    httpserver.expect_request("/tools/invoke", method="POST").respond_with_handler(HttpGateway().answer)
    httpserver.expect_request("/sessions-tui/v1/info", method="POST").respond_with_data(
        "Not Found", status=404, content_type="text/plain"
    )
    found = connect(httpserver.url_for("/").rstrip("/"), TOKEN)
    assert isinstance(found, OpenClawGatewayBackend)
    yield found
    found.close()


def header(app: SessionsApp) -> str:
    return text_of(app.main_screen.query_one("#transcript-title"))


async def test_item_5_the_header_counts_the_messages_a_gateways_http_history_gives_without_a_total(http_backend):
    app = SessionsApp(http_backend, acting_as="main", watch_store=False, steady=True)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.main_screen.query_one(TranscriptPane)
        await select(pilot, MAIN)
        await until(pilot, lambda: pane.key == MAIN and not pane.page_loading and pane.last_seq > 0, "main's history")
        shown = len(pane.query(MessageView))
        assert shown == len(_details("history_main.json")["messages"]) == 10
        assert header(app).split() == ["main", "10", "messages"]  # was `main   0 messages`


async def test_item_5_the_header_counts_a_gateways_total_over_its_socket() -> None:
    async with replaying(ReplayGateway()) as gateway:
        backend = GatewaySocketBackend(gateway.url, "shared")
        backend.connect_in_background()
        app = SessionsApp(backend, watch_store=False, steady=True)
        try:
            async with app.run_test(size=(120, 40)) as pilot:
                pane = app.main_screen.query_one(TranscriptPane)
                await select(pilot, GROUP)
                await until(pilot, lambda: pane.key == GROUP and pane.last_seq > 0, "the group's history")
                assert len(pane.query(MessageView)) == 4
                assert "   6 messages" in header(app)  # the gateway's totalMessages, more than the page shows
        finally:
            backend.close()


async def test_item_20_a_send_refused_into_the_calling_session_says_to_act_as_another(http_backend):
    app = SessionsApp(http_backend, acting_as="main", watch_store=False, steady=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await send_from_composer(pilot, MAIN, "are you there?")
        outcome = text_of(app.main_screen.query_one("#outcome"))
        assert outcome.startswith("error · sessions_send cannot target the calling session")
        assert "act as another session (a) and send from it" in " ".join(outcome.split())
