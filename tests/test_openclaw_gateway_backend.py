"""The dashboard's backend over an OpenClaw gateway's HTTP tool API, against a stand-in that answers
with the real gateway's recorded answers (fixtures/openclaw-2026.9.6/answers)."""

from __future__ import annotations

import copy
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from sessions_tui.backend import BrowseQuery, EngineEvent, Requester
from sessions_tui.backend.openclaw_gateway import OpenClawGatewayBackend
from sessions_tui.backend.remote import ToolNotAvailable
from sessions_tui.cli_remote import connect

ANSWERS = Path(__file__).parent / "fixtures" / "openclaw-2026.9.6" / "answers"
TOKEN = "peer-test-token"


def _details(name: str) -> dict[str, Any]:
    details: dict[str, Any] = json.loads((ANSWERS / name).read_text())["result"]["details"]
    return details


class StandIn:
    """`POST /tools/invoke` as the gateway answers it, from the recordings; `sessions_send` denied."""

    def __init__(self) -> None:
        self.listing = _details("list_all.json")
        self.histories = {
            "agent:main:main": _details("history_main.json"),
            "agent:main:cron:job1": _details("history_cron.json"),
        }
        self.lock = threading.Lock()
        self.listed = threading.Event()  # set at each sessions_list answered

    def answer(self, request: Request) -> Response:
        if request.headers.get("authorization") != f"Bearer {TOKEN}":
            return _json(401, {"error": {"message": "Unauthorized", "type": "unauthorized"}})
        body = json.loads(request.get_data() or b"{}")
        tool, args = body.get("tool"), body.get("args") or {}
        with self.lock:
            if tool == "agents_list":
                details: dict[str, Any] = {"requester": "main", "allowAny": False, "agents": [{"id": "main"}]}
            elif tool == "sessions_list":
                details = copy.deepcopy(self.listing)
                self.listed.set()
            elif tool == "sessions_history" and args.get("sessionKey") in self.histories:
                details = self.histories[args["sessionKey"]]
            else:
                return _json(
                    404, {"ok": False, "error": {"type": "not_found", "message": f"Tool not available: {tool}"}}
                )
        text = json.dumps(details, indent=2)
        return _json(200, {"ok": True, "result": {"content": [{"type": "text", "text": text}], "details": details}})


def _json(status: int, body: Any) -> Response:
    return Response(json.dumps(body), status=status, content_type="application/json; charset=utf-8")


@pytest.fixture
def gateway(httpserver: HTTPServer) -> StandIn:
    stand_in = StandIn()
    httpserver.expect_request("/tools/invoke", method="POST").respond_with_handler(stand_in.answer)
    httpserver.expect_request("/sessions-tui/v1/info", method="POST").respond_with_data(
        "Not Found", status=404, content_type="text/plain"
    )
    return stand_in


@pytest.fixture
def backend(httpserver: HTTPServer, gateway: StandIn):
    found = connect(httpserver.url_for("/").rstrip("/"), TOKEN)
    assert isinstance(found, OpenClawGatewayBackend)  # no operator API there: a gateway
    yield found
    found.close()


async def test_the_table_reads_the_gateways_sessions_filtered_and_sorted(backend):
    page = await backend.browse(Requester(), BrowseQuery(), offset=0, limit=100)
    assert len(page.rows) == 10 and page.total == 10
    updated = [r["updatedAt"] for r in page.rows]
    assert updated == sorted(updated, reverse=True)
    crons = await backend.browse(Requester(), BrowseQuery(kinds=["cron"]), offset=0, limit=100)
    assert {r["_key"] for r in crons.rows} == {"agent:main:cron:job1", "agent:main:cron:job2"}
    assert {r["key"] for r in crons.rows} == {"cron:job1", "cron:job2"}  # shown as OpenClaw's users read them
    assert await backend.browse_count(Requester(), BrowseQuery(search="guild")) == 1
    second = await backend.browse(Requester(), BrowseQuery(), offset=8, limit=5)
    assert [r["_key"] for r in second.rows] == [r["_key"] for r in page.rows[8:]]


async def test_transcripts_come_from_sessions_history_and_sends_need_the_gateways_allow(backend):
    history = await backend.call_tool("sessions_history", {"sessionKey": "agent:main:main"}, Requester())
    assert history["messages"]
    with pytest.raises(ToolNotAvailable, match="gateway.tools.allow"):
        await backend.call_tool("sessions_send", {"sessionKey": "main", "message": "x"}, Requester())


async def test_a_sub_agent_shows_under_its_parent(backend):
    children = await backend.children("agent:main:main")
    assert [c.child_key for c in children] == ["agent:main:subagent:9a1f0c2e-0000-4000-8000-00000000abcd"]
    assert children[0].label == "count-words"


def test_a_change_on_the_gateway_arrives_as_events(backend, gateway):
    changed = threading.Event()
    got: list[EngineEvent] = []

    def on_event(event: EngineEvent) -> None:
        got.append(event)
        if event.type == "store_changed":
            changed.set()

    gateway.listed.clear()
    stop = backend.subscribe(on_event)
    try:
        assert gateway.listed.wait(15)  # the first poll has read the list as it was
        with gateway.lock:
            gateway.listing["sessions"][0]["updatedAt"] += 1000
        assert changed.wait(15)
        moved = gateway.listing["sessions"][0]["key"]
        assert any(e.type == "session_changed" and e.session_key == moved for e in got)
        assert not any(e.type == "session_changed" and e.session_key != moved for e in got)
    finally:
        stop()


def test_a_wrong_token_is_refused(httpserver: HTTPServer, gateway: StandIn):
    from sessions_tui.backend import BackendUnavailable

    with pytest.raises(BackendUnavailable, match="401"):
        connect(httpserver.url_for("/").rstrip("/"), "wrong")


async def test_the_gateway_keeps_no_send_ledger_and_says_so(backend):
    from sessions_tui.backend import BackendUnavailable

    with pytest.raises(BackendUnavailable, match="keeps no send ledger"):
        await backend.sends(None, None, 10)
