"""The dashboard's backend over an OpenClaw gateway's HTTP tool API, against a stand-in that answers
with the real gateway's recorded answers (fixtures/openclaw-2026.9.6/answers)."""

from __future__ import annotations

import asyncio
import copy
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.gateway.http import OpenClawGatewayBackend
from sessions_tui.backend.remote.backend import ToolNotAvailable
from sessions_tui.backend.values.views import BrowseQuery
from sessions_tui.backend.values.vocabulary import EngineEvent
from sessions_tui.cli.remote import connect

ANSWERS = Path(__file__).parents[1] / "fixtures" / "openclaw-2026.9.6" / "answers"
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
        self.list_args: list[dict[str, Any]] = []  # what each sessions_list asked for
        self.asked = threading.Condition(self.lock)  # notified at each sessions_list
        # The gateway's clock, for `activeMinutes`: just after the newest recorded session.
        self.now_ms = max(r["updatedAt"] for r in self.listing["sessions"]) + 10_000

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
                if args.get("activeMinutes"):
                    since = self.now_ms - args["activeMinutes"] * 60_000
                    details["sessions"] = [r for r in details["sessions"] if r["updatedAt"] >= since]
                    details["count"] = len(details["sessions"])
                self.list_args.append(args)
                self.asked.notify_all()
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
    from sessions_tui.backend.contract.types import BackendUnavailable

    with pytest.raises(BackendUnavailable, match="401"):
        connect(httpserver.url_for("/").rstrip("/"), "wrong")


async def test_the_gateway_keeps_no_send_ledger_and_says_so(backend):
    from sessions_tui.backend.contract.types import BackendUnavailable

    with pytest.raises(BackendUnavailable, match="keeps no send ledger"):
        await backend.sends(None, None, 10)


def _follow(backend, gateway):
    """Subscribe; returns (events got, a `wait(condition)` on them, stop)."""
    got: list[EngineEvent] = []
    moved = threading.Condition()

    def on_event(event: EngineEvent) -> None:
        with moved:
            got.append(event)
            moved.notify_all()

    def wait(condition, timeout: float = 15) -> bool:
        with moved:
            return moved.wait_for(lambda: condition(got), timeout)

    return got, wait, backend.subscribe(on_event)


def test_polls_ask_only_for_the_recently_active_sessions(backend, gateway):
    """After one read of the whole list, each poll is one small `sessions_list` of the sessions
    active in the last minute; a session that moves there, or a new one, is reported."""
    got, wait, stop = _follow(backend, gateway)
    try:
        with gateway.asked:
            gateway.list_args.clear()
            assert gateway.asked.wait_for(lambda: len(gateway.list_args) >= 3, 15)
            assert [a.get("activeMinutes") for a in gateway.list_args[-2:]] == [1, 1]
            assert all(a.get("limit") == 200 for a in gateway.list_args)
        with gateway.lock:
            newest = gateway.listing["sessions"][0]
            newest["updatedAt"] += 1000
            gateway.listing["sessions"].insert(0, {**newest, "key": "agent:main:discord:group:new", "sessionId": "n-1"})
        assert wait(lambda events: any(e.type == "store_changed" for e in events))
        changed = {e.session_key for e in got if e.type == "session_changed"}
        assert changed == {newest["key"], "agent:main:discord:group:new"}
    finally:
        stop()


def test_the_whole_list_is_read_again_for_what_the_recent_polls_cannot_see(backend, gateway, monkeypatch):
    """A session that changes while older than a minute, or goes away, shows at the next read of
    the whole list (every FULL_S)."""
    monkeypatch.setattr("sessions_tui.backend.gateway.http.FULL_S", 1.0)
    got, wait, stop = _follow(backend, gateway)
    try:
        assert gateway.listed.wait(15)
        with gateway.lock:
            oldest = gateway.listing["sessions"][-1]
            oldest["label"] = "renamed"
            oldest["updatedAt"] += 1  # still days older than the last minute
            gone = gateway.listing["sessions"].pop(-2)
        assert wait(lambda events: any(e.type == "session_changed" and e.session_key == oldest["key"] for e in events))
        rows = asyncio.run(backend.browse_rows(Requester(), [oldest["key"], gone["key"]]))
        assert set(rows) == {oldest["key"]} and rows[oldest["key"]]["label"] == "renamed"
    finally:
        stop()


def test_the_gateway_says_what_it_has(backend):
    from sessions_tui.backend.contract.types import Capability
    from sessions_tui.backend.several import SeveralBackends

    assert backend.capabilities == {Capability.READ, Capability.TOOLS, Capability.SPAWN_TREE, Capability.SEARCH}
    assert backend.not_offered(Capability.LEDGER).endswith(": an OpenClaw gateway keeps no send ledger")
    assert SeveralBackends([backend]).capabilities == backend.capabilities


async def test_what_the_gateway_has_not_it_refuses_with_its_line(backend):
    from sessions_tui.backend.contract.types import BackendUnavailable, Capability

    calls = {
        Capability.ANNOUNCES: backend.announcements("agent:main:main"),
        Capability.CONTROL: backend.owner_command("agent:main:main", "/send off"),
        Capability.EXPLAIN: backend.explain(Requester(), "agent:main:main", None),
        Capability.EXPORT: backend.export_session("agent:main:main"),
        Capability.SESSION_OPS: backend.rename_session("agent:main:main", "x"),
        Capability.COMPACT: backend.compact_session("agent:main:main"),
    }
    for capability, call in calls.items():
        assert capability not in backend.capabilities
        with pytest.raises(BackendUnavailable) as refused:
            await call
        assert str(refused.value) == backend.not_offered(capability)
    for capability in (Capability.SESSION_OPS, Capability.COMPACT):  # the socket has them: said so
        assert "is done over its WebSocket" in backend.not_offered(capability)


def test_a_command_for_what_the_gateway_has_not_says_one_line(httpserver: HTTPServer, gateway: StandIn, capsys):
    from sessions_tui.cli import main

    url = httpserver.url_for("/").rstrip("/")
    assert main(["--remote", url, "--token", TOKEN, "sends"]) == 2
    err = capsys.readouterr().err
    assert err == f"sessions-tui: {url}: an OpenClaw gateway keeps no send ledger\n"


async def test_the_dashboard_on_the_gateway_shows_no_key_for_what_it_has_not(backend):
    from sessions_tui.ui.app import SessionsApp
    from sessions_tui.ui.screens.ledger.sends import SendsScreen

    app = SessionsApp(backend)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        screen = app.main_screen
        shown = {b.binding.action for b in screen.active_bindings.values() if b.enabled}
        assert {"search", "filter"} <= shown
        assert not {"sends", "why", "export"} & shown
        await pilot.press("l")
        await pilot.pause()
        assert not isinstance(app.screen, SendsScreen)
