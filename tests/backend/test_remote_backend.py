"""The remote backend against a real `serve` on loopback: tools, the dashboard's reads, events,
errors; and one backend over several servers."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from typing import Any

import pytest

from conftest import FAST_DEMO, add_session
from server_support import TOKEN, local_backend, served
from sessions_tui.backend.contract.types import BackendUnavailable, Requester
from sessions_tui.backend.remote.backend import RemoteBackend, ToolNotAvailable
from sessions_tui.backend.several import SeveralBackends
from sessions_tui.backend.values.views import BrowseQuery
from sessions_tui.backend.values.vocabulary import EngineEvent
from sessions_tui.tools.calling.base import ToolInputError

GROUP = "agent:main:discord:group:dev"
SECRET = "sk-1234567890abcdef1234"
ALLOW_SEND = {**FAST_DEMO, "gateway": {"tools": {"allow": ["sessions_send"]}}}


def _state(tmp_path, name="s", config=None, sessions=(GROUP,)):
    backend = local_backend(tmp_path / name, config or FAST_DEMO)
    for key in sessions:
        add_session(backend.engine, key, [{"role": "user", "content": f"hello from {key} {SECRET}"}])
    return backend


def _connected(url: str, token: str | None = TOKEN) -> RemoteBackend:
    remote = RemoteBackend(url, token)
    remote.connect_blocking()
    return remote


async def test_tools_go_through_tools_invoke_as_the_requester(tmp_path):
    with served(_state(tmp_path, config=ALLOW_SEND), allow=("sessions_send",)) as url:
        remote = _connected(url)
        try:
            listed = await remote.call_tool("sessions_list", {}, Requester())
            assert [row["key"] for row in listed["sessions"]] == [GROUP]
            history = await remote.call_tool("sessions_history", {"sessionKey": GROUP}, Requester())
            assert SECRET not in json.dumps(history)  # redacted by the server
            sent = await remote.call_tool(
                "sessions_send", {"sessionKey": GROUP, "message": "ping", "timeoutSeconds": 20}, Requester()
            )
            assert sent["status"] == "ok"
            with pytest.raises(ToolInputError, match="sessionKey required"):
                await remote.call_tool("sessions_history", {}, Requester())
        finally:
            await remote.aclose()


async def test_a_tool_the_server_denies_says_how_to_allow_it(tmp_path):
    with served(_state(tmp_path)) as url:
        remote = _connected(url)
        try:
            with pytest.raises(ToolNotAvailable, match=r'gateway\.tools\.allow: \["sessions_send"\]'):
                await remote.call_tool("sessions_send", {"sessionKey": GROUP, "message": "x"}, Requester())
        finally:
            await remote.aclose()


def test_a_wrong_token_or_no_server_is_said_plainly(tmp_path):
    with served(_state(tmp_path)) as url:
        with pytest.raises(BackendUnavailable, match=r"refused the token \(401\)"):
            _connected(url, "wrong")
    with pytest.raises(BackendUnavailable, match=r"the server is not reachable \(Connection refused\)"):
        _connected(url)  # the server is gone (issue 28: said so, not as httpx's ConnectError)


async def test_the_dashboards_reads_and_config_come_from_the_server(tmp_path):
    config = {**FAST_DEMO, "session": {"mainKey": "work"}, "ui": {"theme": "nord", "notify": {"watch": "all"}}}
    with served(_state(tmp_path, config=config, sessions=(GROUP, "agent:main:cron:nightly"))) as url:
        remote = _connected(url)
        try:
            assert remote.main_session_key() == "agent:main:work"
            assert remote.canonical("cron:nightly") == "agent:main:cron:nightly"
            assert remote.theme == "nord" and remote.location == url
            assert remote.notify.watch == "all"  # ui.notify: the server's, as its keys and theme
            page = await remote.browse(Requester(), BrowseQuery(kinds=["cron"]), offset=0, limit=10)
            assert [r["_key"] for r in page.rows] == ["agent:main:cron:nightly"] and page.total == 1
            assert await remote.browse_count(Requester(), BrowseQuery()) == 2
            assert not await remote.state_is_empty()
            assert await remote.owner_key("cron:nightly") == "agent:main:cron:nightly"
            assert "off" in (await remote.owner_command(GROUP, "/send off") or "")
            assert "on" in (await remote.owner_command("discord:group:dev", "/send on") or "")  # any spelling
            with pytest.raises(ToolInputError, match="^No session found: agent:main:nope$"):
                await remote.owner_command("agent:main:nope", "/send off")  # as the local backend says it
            assert remote.describe_requester(Requester()).visibility == "all"
        finally:
            await remote.aclose()


async def test_events_arrive_from_the_stream(tmp_path):
    with served(_state(tmp_path)) as url:
        remote = _connected(url)
        got: list[EngineEvent] = []
        arrived = threading.Event()

        def on_event(event: EngineEvent) -> None:
            got.append(event)
            if event.type == "session_changed":
                arrived.set()

        stop = remote.subscribe(on_event)
        try:
            # the stream is open once the server sends anything: ask until the change comes through
            for _ in range(50):
                await remote.owner_command(GROUP, "/send off" if len(got) % 2 else "/send on")
                if await asyncio.to_thread(arrived.wait, 0.2):
                    break
            assert arrived.is_set()
            assert any(e.type == "session_changed" and e.session_key == GROUP for e in got)
            assert await remote.data_version() >= 1
        finally:
            stop()
            await remote.aclose()


async def test_one_backend_over_two_servers_marks_and_routes_by_key(tmp_path):
    one = _state(tmp_path, "one", sessions=(GROUP,))
    two = _state(tmp_path, "two", sessions=(GROUP, "agent:main:cron:nightly"))
    with served(one) as url_one, served(two) as url_two:
        remotes = [_connected(url_one), _connected(url_two)]
        both = SeveralBackends(remotes)
        label_one, label_two = (url.removeprefix("http://") for url in (url_one, url_two))
        try:
            page = await both.browse(Requester(), BrowseQuery(), offset=0, limit=10)
            assert sorted(r["_key"] for r in page.rows) == sorted(
                [f"{label_one}/{GROUP}", f"{label_two}/{GROUP}", f"{label_two}/agent:main:cron:nightly"]
            )
            assert {r["gateway"] for r in page.rows} == {label_one, label_two} and page.total == 3
            history = await both.call_tool("sessions_history", {"sessionKey": f"{label_two}/{GROUP}"}, Requester())
            assert history["sessionKey"] == f"{label_two}/{GROUP}"
            assert both.display(f"{label_two}/agent:main:cron:nightly") == f"{label_two}/cron:nightly"
            assert await both.browse_count(Requester(), BrowseQuery(search="nightly")) == 1
            rows = await both.browse_rows(Requester(), [f"{label_one}/{GROUP}"])
            assert list(rows) == [f"{label_one}/{GROUP}"]
        finally:
            await both.aclose()


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "sessions_tui", *args], capture_output=True, text=True, env=environment, timeout=60
    )


def test_tool_on_a_remote_prints_what_the_server_answered(tmp_path):
    with served(_state(tmp_path)) as url:
        done = _cli("--remote", url, "--token", TOKEN, "tool", "sessions_history", json.dumps({"sessionKey": GROUP}))
        via_env = _cli("--remote", url, "tool", "sessions_list", env={"SESSIONS_TUI_TOKEN": TOKEN})
    assert done.returncode == 0, done.stderr
    details: dict[str, Any] = json.loads(done.stdout)
    assert details["sessionKey"] == GROUP and SECRET not in done.stdout
    assert via_env.returncode == 0 and json.loads(via_env.stdout)["count"] == 1


def test_send_on_a_remote_reports_the_reply(tmp_path):
    with served(_state(tmp_path, config=ALLOW_SEND), allow=("sessions_send",)) as url:
        done = _cli("--remote", url, "--token", TOKEN, "send", GROUP, "ping")
    assert done.returncode == 0, done.stderr
    assert "ok" in done.stdout.splitlines()[-1] or "ok" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--remote", "ftp://host", "tool", "agents_list"), "not an http:// or https:// URL"),
        (("--remote", "http://[::1", "tool", "agents_list"), "--remote 'http://[::1': not a URL: Invalid IPv6 URL"),
        (("--remote", "http://127.0.0.1:99999", "tool", "agents_list"), "not a URL: Port out of range 0-65535"),
        (("--remote", "http://h:port", "search", "x"), "not a URL: Port could not be cast"),
        (("--remote", "http://u:p@host:1", "tool", "agents_list"), "give the token with --token"),
        (("--remote", "http://127.0.0.1:9", "--state", "/tmp/x", "tool", "agents_list"), "--remote and --state"),
        (("--remote", "http://127.0.0.1:9", "serve"), "not serve"),
        (("--remote", "http://127.0.0.1:9", "--token", "a", "--token", "b", "tool", "agents_list"), "2 tokens for 1"),
        (("--remote", "http://127.0.0.1:9", "tool", "agents_list"), "the server is not reachable"),
    ],
)
def test_bad_remote_arguments_exit_2_with_a_reason(args, message):
    done = _cli(*args)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


async def test_closing_twice_is_harmless(tmp_path):
    with served(_state(tmp_path)) as url:
        remote = _connected(url)
        await remote.aclose()
        await remote.aclose()
        remote.close()


async def test_the_send_ledger_over_a_remote_and_over_two(tmp_path):
    one = _state(tmp_path, "one", config=ALLOW_SEND)
    two = _state(tmp_path, "two", config=ALLOW_SEND)
    with served(one, allow=("sessions_send",)) as url_one, served(two, allow=("sessions_send",)) as url_two:
        remotes = [_connected(url_one), _connected(url_two)]
        try:
            args = {"sessionKey": GROUP, "message": f"remember {SECRET}", "timeoutSeconds": 20}
            sent = await remotes[1].call_tool("sessions_send", args, Requester())
            entries = await remotes[1].sends(None, None, 50)
            assert [e.run_id for e in entries] == [sent["runId"]]
            assert "replied" in [s.state for s in entries[0].states]
            assert SECRET not in entries[0].message  # redacted by the server
            both = SeveralBackends(remotes)
            label_two = url_two.removeprefix("http://")
            marked = await both.sends(None, None, 50)
            assert [e.target for e in marked] == [f"{label_two}/{GROUP}"]
            assert await both.sends(f"{url_one.removeprefix('http://')}/{GROUP}", None, 50) == []
        finally:
            await asyncio.gather(*(r.aclose() for r in remotes))


def test_sends_on_a_remote_prints_the_servers_ledger(tmp_path):
    backend = _state(tmp_path, config=ALLOW_SEND)
    with served(backend, allow=("sessions_send",)) as url:
        sent = _cli(
            "--remote",
            url,
            "--token",
            TOKEN,
            "tool",
            "sessions_send",
            json.dumps({"sessionKey": GROUP, "message": "ping", "timeoutSeconds": 20}),
        )
        listed = _cli("--remote", url, "--token", TOKEN, "sends", "--json", "--reached", "replied")
    assert sent.returncode == 0 and listed.returncode == 0, listed.stderr
    entries = json.loads(listed.stdout)
    assert [e["runId"] for e in entries] == [json.loads(sent.stdout)["runId"]]
    assert entries[0]["target"] == GROUP and entries[0]["message"] == "ping"


async def test_explain_over_a_remote_is_the_servers_answer(tmp_path):
    config = {**FAST_DEMO, "session": {"sendPolicy": {"rules": [{"action": "deny", "match": {"channel": "discord"}}]}}}
    backend = _state(tmp_path, config=config)
    local = await backend.explain(Requester(), GROUP, None)
    with served(backend) as url:
        remote = _connected(url)
        try:
            found = await remote.explain(Requester(), GROUP, None)
            with pytest.raises(ToolInputError):
                await remote.explain(Requester(), "agent:main:nope:none", None)
        finally:
            await remote.aclose()
    assert found == local
    assert not found.verdict("send").allowed and found.verdict("send").rule == "sendPolicy"
