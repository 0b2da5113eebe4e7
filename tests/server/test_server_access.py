"""Who may call `serve`: the bearer token, the lockout after repeated failures off loopback, and
the token `serve` chooses or refuses to run without."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from server_support import TOKEN, local_backend
from sessions_tui.cli.commands.serve import choose_token
from sessions_tui.cli.errors import UsageError
from sessions_tui.server.access import AuthLockout, bearer_token, http_denied
from sessions_tui.server.app import build_app
from sessions_tui.server.settings import ServerSettings, is_loopback_host

BODY = {"tool": "agents_list"}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def asgi_client(app, address: str) -> httpx.AsyncClient:
    """A client whose requests come from `address`, straight into the application."""
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://sessions-tui.test")


@pytest.fixture
def app(tmp_path):
    backend = local_backend(tmp_path / "state")
    settings = ServerSettings(token=SecretStr(TOKEN))
    yield build_app(backend, settings, manage_backend=False)
    backend.close()


async def test_ten_failures_from_one_address_lock_it_out_with_retry_after(app):
    async with asgi_client(app, "203.0.113.9") as remote, asgi_client(app, "198.51.100.7") as other:
        wrong = {"authorization": "Bearer nope"}
        statuses = [(await remote.post("/tools/invoke", json=BODY, headers=wrong)).status_code for _ in range(10)]
        assert statuses == [401] * 10
        locked = await remote.post("/tools/invoke", json=BODY, headers={"authorization": f"Bearer {TOKEN}"})
        assert locked.status_code == 429
        assert locked.headers["retry-after"] == "300"
        assert locked.json() == {
            "error": {
                "message": "Too many failed authentication attempts. Please try again later.",
                "type": "rate_limited",
            }
        }
        ok = await other.post("/tools/invoke", json=BODY, headers={"authorization": f"Bearer {TOKEN}"})
        assert ok.status_code == 200


async def test_loopback_is_never_locked_out(app):
    async with asgi_client(app, "127.0.0.1") as local:
        for _ in range(25):
            assert (
                await local.post("/tools/invoke", json=BODY, headers={"authorization": "Bearer x"})
            ).status_code == 401
        ok = await local.post("/tools/invoke", json=BODY, headers={"authorization": f"Bearer {TOKEN}"})
        assert ok.status_code == 200


async def test_the_event_stream_and_the_operator_api_need_the_token_too(app):
    async with asgi_client(app, "127.0.0.1") as client:
        assert (await client.get("/events")).status_code == 401
        assert (await client.post("/sessions-tui/v1/info", json={})).status_code == 401
        answer = await client.post("/sessions-tui/v1/info", json={}, headers={"authorization": f"Bearer {TOKEN}"})
        assert answer.status_code == 200


def test_a_lockout_ends_and_failures_age_out_of_the_window():
    clock = FakeClock()
    lockout = AuthLockout(3, window_s=60, lockout_s=300, clock=clock)
    lockout.failed("203.0.113.9")
    lockout.failed("203.0.113.9")
    clock.now += 61  # those two left the window
    lockout.failed("203.0.113.9")
    assert lockout.retry_after("203.0.113.9") is None
    lockout.failed("203.0.113.9")
    lockout.failed("203.0.113.9")
    assert lockout.retry_after("203.0.113.9") == 300
    clock.now += 299.5
    assert lockout.retry_after("203.0.113.9") == 1
    clock.now += 1
    assert lockout.retry_after("203.0.113.9") is None


def test_a_success_forgets_the_failures():
    lockout = AuthLockout(2, window_s=60, lockout_s=300, clock=FakeClock())
    lockout.failed("203.0.113.9")
    lockout.succeeded("203.0.113.9")
    lockout.failed("203.0.113.9")
    assert lockout.retry_after("203.0.113.9") is None


def test_a_flood_of_addresses_is_bounded():
    clock = FakeClock()
    lockout = AuthLockout(1, window_s=60, lockout_s=300, clock=clock, max_entries=100)
    for i in range(1000):
        lockout.failed(f"203.0.{i // 256}.{i % 256}")
    assert len(lockout._by_client) == 100


@pytest.mark.parametrize(
    ("header", "token"),
    [
        ("Bearer abc", "abc"),
        ("bearer abc", "abc"),
        ("BEARER  abc ", "abc"),
        ("Basic abc", None),
        ("Bearer", None),
        ("", None),
        (None, None),
    ],
)
def test_the_bearer_token_of_a_header(header, token):
    assert bearer_token(header) == token


def test_the_http_deny_list_gives_way_to_allow_and_deny_wins():
    assert {"sessions_send", "sessions_spawn"} <= http_denied((), ())
    assert "sessions_send" not in http_denied(["Sessions_Send"], ())
    assert "sessions_spawn" in http_denied(["sessions_spawn"], ["sessions_spawn"])
    assert "agents_list" in http_denied((), ["agents_list"])


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.0.1", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("192.168.1.4", False),
        ("example.com", False),
    ],
)
def test_which_hosts_are_loopback(host, loopback):
    assert is_loopback_host(host) is loopback


def _opts(**kw):
    return Namespace(**{"token": None, "host": "127.0.0.1", **kw})


def test_without_any_token_loopback_gets_a_new_one_in_a_private_file(tmp_path, monkeypatch):
    monkeypatch.delenv("SESSIONS_TUI_TOKEN", raising=False)
    backend = local_backend(tmp_path / "state")
    token, origin = choose_token(_opts(), backend)
    path = tmp_path / "state" / "serve.token"
    assert path.read_text().strip() == token and len(token) >= 40
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert origin == f"in {path}"
    assert choose_token(_opts(), backend)[0] != token  # a new one each start
    backend.close()


def test_the_new_token_is_never_written_through_a_link(tmp_path, monkeypatch):
    """A link put where the token goes is replaced, not followed: its target stays as it was."""
    monkeypatch.delenv("SESSIONS_TUI_TOKEN", raising=False)
    backend = local_backend(tmp_path / "state")
    target = tmp_path / "elsewhere"
    target.write_text("untouched\n")
    path = tmp_path / "state" / "serve.token"
    path.symlink_to(target)
    token, _ = choose_token(_opts(), backend)
    assert target.read_text() == "untouched\n"
    assert not path.is_symlink() and path.read_text().strip() == token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    backend.close()


def test_the_token_comes_from_the_flag_then_the_environment_then_the_config(tmp_path, monkeypatch):
    backend = local_backend(tmp_path / "state", {"gateway": {"auth": {"token": "from-config"}}})
    monkeypatch.setenv("SESSIONS_TUI_TOKEN", "from-env")
    assert choose_token(_opts(token="from-flag"), backend) == ("from-flag", "--token")
    assert choose_token(_opts(), backend) == ("from-env", "$SESSIONS_TUI_TOKEN")
    monkeypatch.delenv("SESSIONS_TUI_TOKEN")
    assert choose_token(_opts(host="0.0.0.0"), backend) == ("from-config", "gateway.auth.token")
    backend.close()


def test_a_host_off_loopback_without_a_token_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("SESSIONS_TUI_TOKEN", raising=False)
    backend = local_backend(tmp_path / "state")
    with pytest.raises(UsageError, match="0.0.0.0 is not loopback and there is no token"):
        choose_token(_opts(host="0.0.0.0"), backend)
    assert not (tmp_path / "state" / "serve.token").exists()
    backend.close()


def _serve(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "sessions_tui", "--state", str(tmp_path / "s"), "serve", *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
    )


def test_serve_refuses_a_public_host_without_a_token_with_exit_2(tmp_path):
    done = _serve(tmp_path, "--host", "0.0.0.0")
    assert done.returncode == 2
    assert "is not loopback and there is no token" in done.stderr and "Traceback" not in done.stderr


def test_serve_on_a_port_in_use_says_so_with_exit_2(tmp_path):
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        done = _serve(tmp_path, "--port", str(port), env={"SESSIONS_TUI_TOKEN": "a-secret-token"})
    assert done.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "Traceback" not in done.stderr
    assert "a-secret-token" not in done.stdout + done.stderr


def test_answers_are_valid_json_whatever_they_hold():
    import json

    from sessions_tui.server.invoke import compact_json, indented_json

    assert compact_json({"a": "é", "n": [1, None]}) == '{"a":"é","n":[1,null]}'.encode()
    huge = {"n": 2**70, "s": "x\ud800"}  # orjson refuses both; the standard encoder writes them
    assert json.loads(compact_json(huge)) == huge
    assert compact_json(huge).isascii()
    assert json.loads(indented_json({"n": 2**70})) == {"n": 2**70}
    assert indented_json({"a": [1]}) == '{\n  "a": [\n    1\n  ]\n}'
