"""Deliveries outlive the process that made them: `tool` never waits on a hanging webhook past
its bound (`EXIT_WAIT_S`), a process SIGKILLed mid-delivery or while its delivery waits to be
retried loses nothing, and the next process to open the state directory delivers what was left,
exactly once, with the same Idempotency-Key, and the send's ledger entry says so.

Real processes (`python -m sessions_tui tool …`) and a real loopback webhook that hangs until the
test opens its gate; every wait is on a process or an event, never a sleep.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.local.backend import open_local
from sessions_tui.engine.store.store import Store
from webhook_servers import DownServer, GatedServer

KEY = "agent:main:discord:group:dev"


@pytest.fixture
def webhook():
    server = GatedServer()
    yield server
    server.close()


def setup_state(tmp_path: Path, url: str) -> tuple[Path, Path]:
    state, config = tmp_path / "state", tmp_path / "config.json5"
    config.write_text(
        json.dumps(
            {
                "channels": {"discord": {"webhookUrl": url}},
                "models": {"demo": {"latencyMs": 0, "chunkMs": 0}},
            }
        ),
        encoding="utf-8",
    )
    store = Store(state)
    store.sessions.create(KEY, {})
    store.close()
    return state, config


def tool(state: Path, config: Path, name: str, args: dict[str, Any]) -> list[str]:
    return [
        sys.executable,
        "-m",
        "sessions_tui",
        "tool",
        name,
        json.dumps(args),
        "--state",
        str(state),
        "--config",
        str(config),
    ]


def cli_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "xdg"))
    return env


def run(cmd: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, env=cli_env(home), timeout=120)


def rows(state: Path) -> list[dict[str, Any]]:
    store = Store(state)
    try:
        with store.read() as conn:
            return [
                dict(r)
                for r in conn.execute(
                    "SELECT id, state, attempts, idempotency_key, lease_owner, lease_until FROM outbox ORDER BY id"
                )
            ]
    finally:
        store.close()


SEND = {"sessionKey": KEY, "message": "status"}
LEFT_PENDING = (
    "warning: delivery #1 to discord is still pending (the webhook did not finish within 5 s); "
    "the next sessions-tui process to open this state directory will retry it\n"
)


def test_tool_stops_waiting_on_a_hanging_webhook_and_the_next_process_delivers(tmp_path, webhook):
    state, config = setup_state(tmp_path, webhook.url)
    proc = run(tool(state, config, "sessions_send", SEND), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "ok"
    assert webhook.arrived.is_set()  # it was POSTed, and the webhook never answered
    assert proc.stderr == LEFT_PENDING  # the user is told
    [row] = rows(state)
    assert (row["state"], row["attempts"], row["lease_owner"], row["lease_until"]) == ("pending", 0, None, None)

    webhook.gate.set()  # the webhook answers again
    proc = run(tool(state, config, "sessions_list", {}), tmp_path)
    assert proc.returncode == 0 and proc.stderr == ""  # delivered before it exits: nothing to tell
    [row] = rows(state)
    assert (row["state"], row["attempts"], row["lease_owner"]) == ("delivered", 1, None)
    assert webhook.keys == [row["idempotency_key"]] * 2  # the same delivery, so the same key

    proc = run(tool(state, config, "sessions_list", {}), tmp_path)
    assert proc.returncode == 0 and len(webhook.keys) == 2  # delivered once is delivered


def test_a_delivery_of_a_killed_process_goes_to_exactly_one_of_the_next_two(tmp_path, webhook):
    state, config = setup_state(tmp_path, webhook.url)
    env = cli_env(tmp_path)
    sender = subprocess.Popen(
        tool(state, config, "sessions_send", SEND), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        assert webhook.arrived.wait(60), "the delivery never reached the webhook"
        sender.send_signal(signal.SIGKILL)
    finally:
        sender.wait()
    [row] = rows(state)
    assert row["state"] == "pending" and f"/{sender.pid}/" in row["lease_owner"]  # leased by the dead process

    webhook.gate.set()
    both = [
        subprocess.Popen(
            tool(state, config, "sessions_list", {}),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for proc in both:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    [row] = rows(state)
    assert (row["state"], row["attempts"], row["lease_owner"]) == ("delivered", 1, None)
    assert webhook.keys == [row["idempotency_key"]] * 2  # the killed attempt, then one resumed delivery


def test_a_delivery_waiting_to_be_retried_when_its_process_is_killed_is_taken_once_from_the_next(tmp_path):
    """The webhook is down (503) when a send announces: its delivery is pending, to be retried,
    when the sender is SIGKILLed. The webhook comes up, the next process delivers it: the webhook
    takes it exactly once, under the key the refused attempt had, and the ledger says delivered."""
    webhook = DownServer()
    try:
        state, config = setup_state(tmp_path, webhook.url)
        env = cli_env(tmp_path)
        sender = subprocess.Popen(
            tool(state, config, "sessions_send", SEND), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            assert webhook.refused_one.wait(60), "the delivery never reached the webhook"
            sender.send_signal(signal.SIGKILL)  # its retry is a second away
        finally:
            sender.wait()
        [row] = rows(state)
        assert row["state"] == "pending" and webhook.accepted == []

        webhook.up.set()
        proc = run(tool(state, config, "sessions_list", {}), tmp_path)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        [row] = rows(state)
        assert (row["state"], row["lease_owner"]) == ("delivered", None)
        assert webhook.accepted == [row["idempotency_key"]]  # taken once
        assert set(webhook.refused) == {row["idempotency_key"]}  # the same delivery it refused

        cmd = [sys.executable, "-m", "sessions_tui", "sends", "--json", "--state", str(state), "--config", str(config)]
        [entry] = json.loads(run(cmd, tmp_path).stdout)
        assert [s["state"] for s in entry["states"]][-2:] == ["announce", "delivered"]
        assert entry["states"][-1]["detail"] == {"outboxId": row["id"]}
        assert webhook.accepted == [row["idempotency_key"]]  # reading the ledger delivers nothing again
    finally:
        webhook.close()


def test_send_stops_waiting_on_a_hanging_webhook_too(tmp_path, webhook):
    state, config = setup_state(tmp_path, webhook.url)
    cmd = [sys.executable, "-m", "sessions_tui", "send", KEY, "status", "--state", str(state), "--config", str(config)]
    proc = run(cmd, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert webhook.arrived.is_set()
    assert proc.stderr == LEFT_PENDING and "delivery #1" not in proc.stdout
    [row] = rows(state)
    assert (row["state"], row["lease_owner"]) == ("pending", None)


def test_a_send_whose_delivery_is_delivered_tells_nothing_on_stderr(tmp_path, webhook):
    webhook.gate.set()
    state, config = setup_state(tmp_path, webhook.url)
    cmd = [sys.executable, "-m", "sessions_tui", "send", KEY, "status", "--state", str(state), "--config", str(config)]
    proc = run(cmd, tmp_path)
    assert proc.returncode == 0 and proc.stderr == ""
    assert "delivery #1 delivered" in proc.stdout


async def test_a_delivery_under_way_when_the_dashboard_quits_is_left_pending_and_said(tmp_path, webhook):
    """The dashboard quits at once, not waiting on a hanging webhook: its delivery stays pending
    for the next process, and the line printed once the terminal is the shell's says why."""
    state, config = setup_state(tmp_path, webhook.url)
    backend = open_local(state, config)
    await backend.start()
    result = await backend.call_tool("sessions_send", SEND, Requester())
    assert result["status"] == "ok"
    assert await asyncio.to_thread(webhook.arrived.wait, 60)
    await backend.aclose()  # as the dashboard's unmount does, with no drain
    assert backend.left_pending_line() == (
        "warning: delivery #1 to discord is still pending (it was under way when sessions-tui quit); "
        "the next sessions-tui process to open this state directory will retry it"
    )
    [row] = rows(state)
    assert (row["state"], row["lease_owner"]) == ("pending", None)


def test_the_dashboard_command_prints_the_left_pending_line_after_the_app(tmp_path, monkeypatch, capsys):
    from cli_support import as_on_a_terminal
    from sessions_tui import cli
    from sessions_tui.backend.local.backend import LocalBackend
    from sessions_tui.ui.app import SessionsApp

    shown: list[str] = []
    as_on_a_terminal(monkeypatch)
    monkeypatch.setattr(SessionsApp, "run", lambda self: shown.append("app ran"))
    monkeypatch.setattr(
        LocalBackend, "left_pending_line", lambda self: shown.append("asked") or "warning: \x1b[2J left"
    )
    code = cli.main(["--state", str(tmp_path / "state")])
    assert code == 0 and shown == ["app ran", "asked"]
    assert capsys.readouterr().err == "warning: ␛[2J left\n"
