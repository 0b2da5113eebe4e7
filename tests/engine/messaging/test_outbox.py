"""The outbox: deliveries recorded with their state; webhooks POSTed with retries (real HTTP)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from werkzeug import Response

from conftest import add_session, call_tool
from sessions_tui.engine.config import ConfigError, parse_config


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
    assert request.headers["Idempotency-Key"] == delivery.idempotency_key


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


@pytest.mark.parametrize(
    "url",
    ["ftp://x", "not a url", "http://", "javascript:alert(1)", "http:///x", "https://h:99999/x", "hooks.example.com/x"],
)
def test_a_webhook_url_that_is_not_http_is_refused_at_load_with_its_key_path(url):
    with pytest.raises(ConfigError) as caught:
        parse_config({"channels": {"telegram": {"webhookUrl": url}}}, source="cfg.json5")
    assert str(caught.value) == "cfg.json5: channels.telegram.webhookUrl: must be an http(s) URL"


def test_http_and_https_webhook_urls_load_and_an_empty_one_is_none():
    config, _ = parse_config(
        {
            "channels": {
                "a": {"webhookUrl": "https://hooks.example.com/x?token=1"},
                "b": {"webhookUrl": "http://127.0.0.1:8080/h"},
                "c": {"webhookUrl": ""},
            }
        }
    )
    assert config.channels["a"].webhook_url == "https://hooks.example.com/x?token=1"
    assert config.channels["b"].webhook_url == "http://127.0.0.1:8080/h"
    assert config.channels["c"].webhook_url is None


def test_the_cli_exits_2_on_a_bad_webhook_url_naming_the_file_and_key(tmp_path):
    config = tmp_path / "config.json5"
    config.write_text('{channels: {telegram: {webhookUrl: "ftp://x"}}}', encoding="utf-8")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "sessions_tui",
            "tool",
            "sessions_list",
            "--state",
            str(tmp_path / "s"),
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
        env=cli_env(tmp_path),
        timeout=60,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"sessions-tui: {config}: channels.telegram.webhookUrl: must be an http(s) URL\n"


# --------------------------------------------------------------------------------------------
# Idempotency keys, leases, bounds
# --------------------------------------------------------------------------------------------


async def test_idempotency_keys_are_unique_across_state_directories(live_engine, httpserver):
    httpserver.expect_request("/hook").respond_with_json({})
    first, second = live_engine(webhook_config(httpserver)), live_engine(webhook_config(httpserver))
    for engine in (first, second):
        engine.outbox.enqueue(kind="a2a", message="m", session_key="k", channel="discord", to="group:x")
        await engine.drain()
    [a], [b] = first.outbox.list(), second.outbox.list()
    assert a.id == b.id == 1  # the same row id in both state directories…
    sent = [request.headers["Idempotency-Key"] for request, _ in httpserver.log]
    assert sent == [a.idempotency_key, b.idempotency_key] and a.idempotency_key != b.idempotency_key  # …not the key


async def test_every_retry_of_a_delivery_sends_the_same_key(live_engine, httpserver):
    keys = []

    def handler(request):
        keys.append(request.headers["Idempotency-Key"])
        return Response("busy", status=503) if len(keys) < 3 else Response("{}", status=200)

    httpserver.expect_request("/hook").respond_with_handler(handler)
    engine = live_engine(webhook_config(httpserver))
    engine.outbox.retry_base_ms = 1
    delivery = engine.outbox.enqueue(kind="a2a", message="m", session_key="k", channel="discord", to="group:x")
    await engine.drain()
    assert keys == [delivery.idempotency_key] * 3 and engine.outbox.get(delivery.id).state == "delivered"


def test_rows_of_an_older_store_get_a_key_each_when_it_is_opened(tmp_path):
    from sessions_tui.engine.store.schema import SCHEMA_VERSION
    from sessions_tui.engine.store.store import Store

    store = Store(tmp_path / "s")
    with store.write() as conn:
        for column in ("idempotency_key", "lease_owner", "lease_until"):
            conn.execute(f"ALTER TABLE outbox DROP COLUMN {column}")
        for n in range(2):
            conn.execute(
                "INSERT INTO outbox (created_at, kind, message, state) VALUES (0, 'a2a', ?, 'pending')", (f"m{n}",)
            )
        conn.execute("PRAGMA user_version=1")
    store.close()
    store = Store(tmp_path / "s")
    with store.read() as conn:
        keys = [r[0] for r in conn.execute("SELECT idempotency_key FROM outbox ORDER BY id")]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    store.close()
    assert version == SCHEMA_VERSION and len(set(keys)) == 2 and all(len(k) == 32 for k in keys)


def insert_pending(engine, *, owner=None, until=None) -> int:
    with engine.store.write() as conn:
        cur = conn.execute(
            "INSERT INTO outbox (created_at, kind, channel, target, message, state, idempotency_key, lease_owner, "
            "lease_until) VALUES (0, 'a2a', 'discord', 'group:x', 'left behind', 'pending', 'key-1', ?, ?)",
            (owner, until),
        )
        return int(cur.lastrowid)


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


async def test_two_engines_opening_at_once_resume_a_left_row_once(make_engine, tmp_path, httpserver):
    import socket
    import time

    from sessions_tui.tools.calling.host import EngineToolHost

    httpserver.expect_request("/hook").respond_with_json({})
    state = tmp_path / "shared"
    first = make_engine(webhook_config(httpserver), state=state)
    second = make_engine(webhook_config(httpserver), state=state)
    for engine in (first, second):
        EngineToolHost(engine)
    owner = f"{socket.gethostname()}/{dead_pid()}/gone"
    row = insert_pending(first, owner=owner, until=int(time.time() * 1000) + 3_600_000)  # its process died
    claims = [first.outbox.resume(), second.outbox.resume()]
    assert sorted(claims) == [[], [row]]
    await first.drain()
    await second.drain()
    assert [r.headers["Idempotency-Key"] for r, _ in httpserver.log] == ["key-1"]
    delivered = first.outbox.get(row)
    assert delivered.state == "delivered" and delivered.attempts == 1
    assert first.outbox.resume() == second.outbox.resume() == []


async def test_a_live_lease_is_respected_until_it_expires(make_engine, httpserver):
    import time

    httpserver.expect_request("/hook").respond_with_json({})
    engine = make_engine(webhook_config(httpserver))
    other = f"{__import__('socket').gethostname()}/{os.getpid()}/another-engine"  # alive: this very process
    row = insert_pending(engine, owner=other, until=int(time.time() * 1000) + 3_600_000)
    assert engine.outbox.resume() == []
    with engine.store.write() as conn:
        conn.execute("UPDATE outbox SET lease_until = 1 WHERE id = ?", (row,))
    assert engine.outbox.resume() == [row]
    await engine.drain()
    assert engine.outbox.get(row).state == "delivered"


async def test_a_lease_of_another_host_is_respected_until_it_expires(make_engine, httpserver):
    import time

    engine = make_engine(webhook_config(httpserver))
    insert_pending(engine, owner=f"elsewhere.example/{dead_pid()}/x", until=int(time.time() * 1000) + 3_600_000)
    assert engine.outbox.resume() == []  # that pid means nothing here


async def test_a_row_whose_channel_has_no_webhook_now_fails_with_the_reason_and_is_never_retried(make_engine):
    engine = make_engine({"channels": {"slack": {"webhookUrl": "http://127.0.0.1:9/hook"}}})  # discord has none
    seen = []
    engine.events.subscribe(seen.append)
    row = insert_pending(engine)
    assert engine.outbox.resume() == []
    failed = engine.outbox.get(row)
    assert (failed.state, failed.attempts, failed.last_error) == (
        "failed",
        0,
        "no webhookUrl configured for channel discord",
    )
    assert [(e.outbox_id, e.state, e.error) for e in seen] == [
        (row, "failed", "no webhookUrl configured for channel discord")
    ]
    assert engine.outbox.resume() == [] and engine.outbox.get(row) == failed  # left as it is from then on


async def test_a_row_another_live_process_holds_is_left_to_it_even_without_a_webhook_here(make_engine):
    import time

    engine = make_engine()
    other = f"{__import__('socket').gethostname()}/{os.getpid()}/another-engine"  # alive: this very process
    row = insert_pending(engine, owner=other, until=int(time.time() * 1000) + 3_600_000)
    assert engine.outbox.resume() == []
    assert engine.outbox.get(row).state == "pending"  # the process delivering it has its own config


async def test_a_delivery_stopped_at_exit_stays_pending_with_its_lease_given_back(live_engine):
    import asyncio

    from webhook_servers import SilentServer

    with SilentServer() as server:
        engine = live_engine({"channels": {"discord": {"webhookUrl": server.url}}})
        delivery = engine.outbox.enqueue(kind="a2a", message="m", session_key="k", channel="discord", to="group:x")
        assert await asyncio.to_thread(server.accepted.wait, 30)
        await engine.outbox.aclose()
        with engine.store.read() as conn:
            row = conn.execute(
                "SELECT state, attempts, lease_owner, lease_until FROM outbox WHERE id = ?", (delivery.id,)
            ).fetchone()
        assert tuple(row) == ("pending", 0, None, None)
        assert engine.outbox.resume() == [delivery.id]  # the next process takes it up
        await engine.outbox.aclose()


async def test_a_webhook_that_never_answers_fails_after_each_attempts_timeout(live_engine):
    from webhook_servers import SilentServer

    with SilentServer() as server:
        engine = live_engine({"channels": {"discord": {"webhookUrl": server.url}}})
        engine.outbox.timeout_s, engine.outbox.retry_base_ms = 0.05, 1
        delivery = engine.outbox.enqueue(kind="a2a", message="m", session_key="k", channel="discord", to="group:x")
        await engine.drain(delivery_wait=60)
    failed = engine.outbox.get(delivery.id)
    assert failed.state == "failed" and failed.attempts == 4
    assert failed.last_error in ("ReadTimeout: no answer within 0.05 s", "ConnectTimeout: no answer within 0.05 s")


async def test_a_webhook_that_never_answers_fails_at_the_total_bound(live_engine):
    from webhook_servers import SilentServer

    with SilentServer() as server:
        engine = live_engine({"channels": {"discord": {"webhookUrl": server.url}}})
        engine.outbox.bound_s = 0.2  # well inside the first attempt's own timeout
        delivery = engine.outbox.enqueue(kind="a2a", message="m", session_key="k", channel="discord", to="group:x")
        await engine.drain(delivery_wait=60)
    failed = engine.outbox.get(delivery.id)
    assert failed.state == "failed" and failed.last_error == "gave up after 0.2 s (last: not attempted)"
    with engine.store.read() as conn:
        assert conn.execute("SELECT lease_owner FROM outbox WHERE id = ?", (delivery.id,)).fetchone()[0] is None
