"""sessions-tui as a CLIENT of the REAL OpenClaw gateway (npm `openclaw`, 2026.9.6 by default).

`make test-openclaw` runs these (marker `openclaw`). Two gateways are started for this module on
the same seed (tests/fixtures/openclaw-2026.9.6/legacy-state): `gateway`, with no config, and
`allow_gateway`, whose `gateway.tools` is `http_cases.PROFILES["allow"]` (so it offers
`sessions_send` over HTTP). Both are stopped at teardown, whatever happened.

What is checked: the recorded `POST /tools/invoke` answers still hold (a drift check for
OpenClaw upgrades); `--remote` on a gateway prints what the gateway answers and refuses a wrong
token; the gateway backend's table, events and dashboard; a send through `gateway.remote`. These
are of the HTTP tool API, which `--remote` keeps as a fallback: they ask for it (`--remote-http-only`,
`connect(http_only=True)`); the WebSocket backend's interop test is test_openclaw_ws.py.

The tests run in file order: the drift check first, before the sends change the sessions.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import secrets
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_openclaw_gateway import (
    DEADLINE_SECONDS,
    GROUP,
    LEGACY,
    Gateway,
    started_gateway,
    text_of_message,
    wait_until,
)

import http_cases
from conftest import run_tool
from scenes import until as on_screen
from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.gateway.http import POLL_S, OpenClawGatewayBackend
from sessions_tui.backend.values.views import BrowseQuery
from sessions_tui.backend.values.vocabulary import EngineEvent
from sessions_tui.cli.options import TOKEN_ENV
from sessions_tui.cli.remote import connect
from sessions_tui.engine.openclaw.importer import import_openclaw
from sessions_tui.ui.app import SessionsApp
from sessions_tui.ui.widgets.transcript import MessageView

pytestmark = pytest.mark.openclaw

DIRECT = "agent:main:telegram:direct:999"


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    with started_gateway(tmp_path_factory, None) as started:
        yield started


@pytest.fixture(scope="module")
def allow_gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    with started_gateway(
        tmp_path_factory, {"gateway": {"mode": "local", "tools": http_cases.PROFILES["allow"]}}
    ) as started:
        yield started


def details(gateway: Gateway, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The `result.details` of the gateway's answer to `POST /tools/invoke`."""
    response = httpx.post(
        f"{gateway.url}/tools/invoke",
        json={"tool": tool, "args": args},
        headers={"Authorization": f"Bearer {gateway.token}"},
        timeout=30,
    )
    response.raise_for_status()
    body = response.json()
    assert body.get("ok") is True, body
    found: dict[str, Any] = body["result"]["details"]
    return found


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`sessions-tui ARGS` as a real process (the venv's console script), with no token in its environment."""
    script = Path(sys.executable).with_name("sessions-tui")
    entry = [str(script)] if script.exists() else [sys.executable, "-m", "sessions_tui"]
    env = {k: v for k, v in os.environ.items() if k != TOKEN_ENV}
    return subprocess.run([*entry, *args], capture_output=True, text=True, env=env, timeout=120)


# -- 1. the recorded answers still hold -----------------------------------------------------------


def test_the_recorded_answers_still_hold(gateway: Gateway, allow_gateway: Gateway) -> None:
    recorded = json.loads(http_cases.ANSWERS.read_text())
    assert set(recorded) == {case.name for case in http_cases.CASES}
    urls = {"default": gateway, "allow": allow_gateway}
    drifted = []
    for case in http_cases.CASES:
        live = urls[case.profile]
        with httpx.Client(base_url=live.url, timeout=30) as client:
            answers = http_cases.send(client, case, live.token)
        theirs = [http_cases.compared(case, a) for a in recorded[case.name]]
        ours = [http_cases.compared(case, a) for a in answers]
        if ours != theirs:
            drifted.append(f"{case.name}: recorded {theirs}, now {ours}")
    assert drifted == [], "\n".join(drifted)


SEARCH_ANSWERS = Path(__file__).parent.parent / "fixtures" / "openclaw-2026.9.6" / "search" / "answers.json"


def test_the_recorded_search_answers_still_hold(gateway: Gateway) -> None:
    """`sessions_search` as recorded for tests/tools/reading/test_sessions_search.py (scores to 1e-9: one store)."""
    drifted = []
    for name, case in json.loads(SEARCH_ANSWERS.read_text()).items():
        body: dict[str, Any] = {"tool": "sessions_search", "args": case["args"]}
        if "requester" in case:
            body["sessionKey"] = case["requester"]
        response = httpx.post(
            f"{gateway.url}/tools/invoke",
            json=body,
            headers={"Authorization": f"Bearer {gateway.token}"},
            timeout=60,
        )
        now = {"status": response.status_code, "body": response.json()}
        if not _same(now, {"status": case["status"], "body": case["body"]}):
            drifted.append(f"{name}: recorded {case['status']} {case['body']}, now {now}")
    assert drifted == [], "\n".join(drifted)


def _same(a: Any, b: Any) -> bool:
    """Equal, floats to 1e-9 (the same store answers the same scores, up to their last digits)."""
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1.0)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def test_the_gateway_backend_searches_with_the_gateways_tool(gateway: Gateway) -> None:
    backend = connect(gateway.url, gateway.token, http_only=True)
    try:
        assert isinstance(backend, OpenClawGatewayBackend)
        found = asyncio.run(backend.search(Requester(), "README"))
    finally:
        backend.close()
    theirs = details(gateway, "sessions_search", {"query": "README", "limit": 25})["results"]
    assert [(h.session_key, h.message_id, h.snippet) for h in found.hits] == [
        (r["sessionKey"], r["messageId"], r["snippet"]) for r in theirs
    ]


# -- 2. `--remote URL tool …` prints the gateway's details ---------------------------------------


@pytest.mark.parametrize(
    ("tool", "args"),
    [("sessions_list", {"limit": 50}), ("sessions_history", {"sessionKey": "agent:main:main"})],
)
def test_the_tool_command_prints_the_gateways_details(gateway: Gateway, tool: str, args: dict[str, Any]) -> None:
    before = details(gateway, tool, args)
    done = cli("--remote", gateway.url, "--remote-http-only", "--token", gateway.token, "tool", tool, json.dumps(args))
    after = details(gateway, tool, args)
    assert done.returncode == 0, done.stderr
    assert before == after, "the gateway's answer changed during the call"
    assert json.loads(done.stdout) == before


# -- 3. the gateway backend: table and events -----------------------------------------------------


def test_the_backend_lists_the_gateways_sessions_and_hears_a_send(gateway: Gateway) -> None:
    backend = connect(gateway.url, gateway.token, http_only=True)
    try:
        assert isinstance(backend, OpenClawGatewayBackend)  # no /sessions-tui/v1/info there
        page = asyncio.run(backend.browse(Requester(), BrowseQuery(), offset=0, limit=100))
        theirs = {row["key"] for row in details(gateway, "sessions_list", {"limit": 50})["sessions"]}
        assert {row["_key"] for row in page.rows} == theirs and page.total == len(theirs) >= 10

        changed: list[str] = []
        lock = threading.Lock()

        def on_event(event: EngineEvent) -> None:
            if event.type == "session_changed":
                with lock:
                    changed.append(event.session_key)

        stop = backend.subscribe(on_event)
        try:
            # The first poll has read the list when one poll period has passed; nothing moved yet.
            time.sleep(POLL_S * 1.5)
            with lock:
                assert changed == []
            run_id = gateway.send(DIRECT, f"hello backend {secrets.token_hex(4)}")
            sent = time.monotonic()

            def heard() -> bool:
                with lock:
                    return DIRECT in changed

            wait_until(heard, f"a session_changed for {DIRECT}")
            latency = time.monotonic() - sent
            assert latency <= 2 * POLL_S + 1.0, f"heard {latency:.1f} s after the send (poll every {POLL_S} s)"
            gateway.wait_run_failed(DIRECT, run_id)
            with lock:
                assert set(changed) == {DIRECT}, changed
        finally:
            stop()
    finally:
        backend.close()


# -- 4. the dashboard on the gateway --------------------------------------------------------------


async def test_the_dashboard_shows_the_gateways_sessions_and_a_transcript(gateway: Gateway) -> None:
    theirs = {row["key"] for row in details(gateway, "sessions_list", {"limit": 50})["sessions"]}
    backend = await asyncio.to_thread(connect, gateway.url, gateway.token)
    app = SessionsApp(backend, acting_as="main")  # closes the backend when it exits
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.main_screen
        table = screen.query_one("#sessions")
        pane = screen.query_one("#transcript")

        until = functools.partial(on_screen, pilot, timeout=DEADLINE_SECONDS)

        await until(lambda: {row.value for row in table.rows} == theirs, "every gateway session in the table")
        table.move_cursor(row=table.get_row_index(GROUP))
        history = details(gateway, "sessions_history", {"sessionKey": GROUP})["messages"]
        full = details(gateway, "sessions_history", {"sessionKey": GROUP, "includeTools": True})["messages"]

        def ids(messages: list[dict[str, Any]]) -> set[str]:
            return {str((m.get("__openclaw") or {}).get("id")) for m in messages}

        def group_shown() -> bool:
            views = ids([view.message for view in pane.query(MessageView)])
            return pane.key == GROUP and ids(history) <= views <= ids(full)

        await until(group_shown, "the group's transcript open, its messages the gateway's")
        shown = [view.plain for view in pane.query(MessageView)]
        assert any(plain.endswith("\npong") for plain in shown), shown
        missing = [text for text in map(text_of_message, history) if not any(text in plain for plain in shown)]
        assert missing == [], shown


# -- 5. a send through gateway.remote -------------------------------------------------------------


def test_a_send_through_gateway_remote_is_accepted_by_the_gateway(
    allow_gateway: Gateway, make_engine, tmp_path: Path
) -> None:
    legacy = tmp_path / "legacy"
    shutil.copytree(LEGACY, legacy)
    remote = {"url": f"ws://127.0.0.1:{allow_gateway.port}", "token": allow_gateway.token}
    engine = make_engine({"gateway": {"remote": remote}})
    report = import_openclaw(engine.store, engine.canonical, legacy)
    assert report.problems == []

    text = f"hello through gateway.remote {secrets.token_hex(4)}"
    result = run_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": text, "timeoutSeconds": 0})
    recorded = json.loads(http_cases.ANSWERS.read_text())["send_allowed"][0]["body"]["result"]["details"]
    assert set(result) == set(recorded), result
    assert result["status"] == "accepted" and result["sessionKey"] == GROUP, result
    assert result["delivery"] == recorded["delivery"] and result["targetDisposition"] == recorded["targetDisposition"]
    assert isinstance(result["runId"], str) and result["runId"]

    # No model provider: the run fails before a reply, and the gateway keeps the message as an
    # interrupted pending input of the session, not as a transcript line.
    allow_gateway.wait_run_failed(GROUP, result["runId"])
    history = details(allow_gateway, "sessions_history", {"sessionKey": GROUP})
    held = [m for m in history["messages"] if m.get("role") == "user"]
    held += [item.get("message") or {} for item in (history.get("pendingInputs") or {}).get("items") or []]
    assert any(text_of_message(m) == text for m in held), history


# -- 6. a wrong token ----------------------------------------------------------------------------


def test_a_wrong_token_exits_2(gateway: Gateway) -> None:
    done = cli("--remote", gateway.url, "--remote-http-only", "--token", "not-the-token", "tool", "sessions_list", "{}")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "refused the token (401)" in done.stderr
    assert done.stdout == ""
