"""A send into an OpenClaw-owned session goes through the engine's `openclaw_sender` when one is set.

The sender is injected (a fake here; the local backend sets the one over the gateway's
WebSocket, backend/gateway/acting/openclaw_sender.py); `gateway.remote` configured by hand wins over it;
a sender without a gateway for that OpenClaw (None) leaves the send refused as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import run_tool
from openclaw_fake import copy_fixture
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.openclaw import gateway_send
from sessions_tui.engine.openclaw.importer import import_openclaw
from sessions_tui.tools.calling.base import ToolCall
from sessions_tui.tools.requester.explain import explain_access

GROUP = "agent:main:discord:group:123"


class FakeSender:
    def __init__(self, answer: dict[str, Any] | None) -> None:
        self.answer = answer
        self.calls: list[tuple[Path, str, str, int, str]] = []
        self.closed = False

    async def send(
        self, owner: Path, key: str, message: str, *, timeout_seconds: int, display: str
    ) -> dict[str, Any] | None:
        self.calls.append((owner, key, message, timeout_seconds, display))
        return self.answer

    async def aclose(self) -> None:
        self.closed = True


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path / "openclaw", "sqlite-state")


def imported(engine: Engine, root: Path) -> Engine:
    import_openclaw(engine.store, engine.canonical, root)
    return engine


def test_the_sender_makes_the_send_and_its_answer_is_the_result(make_engine, root):
    engine = imported(make_engine(), root)
    answer = {"runId": "r-1", "status": "ok", "reply": "pong", "sessionKey": GROUP}
    engine.openclaw_sender = sender = FakeSender(answer)
    result = run_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hi", "timeoutSeconds": 7})
    assert result == answer
    assert sender.calls == [(root, GROUP, "hi", 7, GROUP)]
    with engine.store.read() as conn:  # nothing ran here: the gateway did
        assert conn.execute("SELECT COUNT(*) FROM runs WHERE session_key = ?", (GROUP,)).fetchone()[0] == 0
    entry = engine.ledger.entry("r-1")  # the send ledger has the gateway's answer
    assert entry is not None and entry.target == GROUP and entry.last_state == "replied"


def test_a_sender_without_a_gateway_leaves_the_send_refused(make_engine, root):
    engine = imported(make_engine(), root)
    engine.openclaw_sender = sender = FakeSender(None)
    result = run_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hi", "timeoutSeconds": 0})
    assert result["status"] == "forbidden" and "lives in OpenClaw" in result["error"]
    assert len(sender.calls) == 1


def test_gateway_remote_configured_by_hand_wins(make_engine, root, monkeypatch):
    remote = {"gateway": {"remote": {"url": "ws://127.0.0.1:1", "token": "t"}}}
    engine = imported(make_engine(remote), root)
    engine.openclaw_sender = sender = FakeSender({"status": "ok"})
    through_http: list[tuple[Any, ...]] = []

    async def fake_http(*args: Any) -> dict[str, Any]:
        through_http.append(args)
        return {"runId": "r-http", "status": "accepted", "sessionKey": GROUP}

    monkeypatch.setattr(gateway_send, "send_through_gateway", fake_http)
    result = run_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hi", "timeoutSeconds": 0})
    assert result["runId"] == "r-http" and sender.calls == []
    assert through_http == [(("http://127.0.0.1:1", "t"), GROUP, "hi", 0, GROUP)]


def test_a_session_of_our_own_never_reaches_the_sender(make_engine, root):
    engine = imported(make_engine(), root)
    engine.openclaw_sender = sender = FakeSender({"status": "ok"})
    engine.store.sessions.create("agent:main:discord:group:ours", {"chatType": "group"})
    run_tool(
        engine, "sessions_send", {"sessionKey": "agent:main:discord:group:ours", "message": "hi", "timeoutSeconds": 0}
    )
    assert sender.calls == []


async def test_the_sender_is_closed_with_the_engine(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "state")
    engine.openclaw_sender = sender = FakeSender(None)
    await engine.aclose()
    assert sender.closed


def test_explain_says_its_own_gateway_decides(make_engine, root):
    engine = imported(make_engine(), root)
    engine.openclaw_sender = FakeSender(None)
    (root / "openclaw.json").write_text('{"gateway": {"port": 19001}}', encoding="utf-8")
    send = explain_access(ToolCall(engine=engine), GROUP).verdict("send")
    assert (send.allowed, send.rule) == (True, "openclaw")
    assert send.why.startswith(f"the session is OpenClaw's ({root}): its own gateway (ws://127.0.0.1:19001) runs")
