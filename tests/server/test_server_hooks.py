"""`serve`'s inbound hooks beyond the recorded answers: off unless enabled, a path of its own, a
stalled body, the throttle's clock, the replay rule under concurrency and over time, the body as
OpenClaw normalises it, and the seam (a backend without hooks says so)."""

from __future__ import annotations

import asyncio
import json
import socket

import httpx
import pytest

from conftest import FAST_DEMO
from server_support import local_backend, served
from sessions_tui.backend.contract.types import Capability, OperationRefused
from sessions_tui.backend.remote.backend import RemoteBackend, RemoteError
from sessions_tui.backend.several import SeveralBackends
from sessions_tui.backend.values.vocabulary import HookAdmitted, HookCompletion, HookRun, ToolInputError
from sessions_tui.cli.commands.serve import hook_settings
from sessions_tui.server.access import AuthLockout
from sessions_tui.server.hook_payload import PayloadRefused, agent_hook, idempotency_key
from sessions_tui.server.hook_replay import HookReplays

HOOK = "hook-token-1"
AUTH = {"authorization": f"Bearer {HOOK}"}


def _hooked(tmp_path, **hooks):
    backend = local_backend(tmp_path / "s", {**FAST_DEMO, "hooks": {"enabled": True, "token": HOOK, **hooks}})
    return backend, hook_settings(backend)


def test_hooks_are_off_unless_enabled(tmp_path):
    backend = local_backend(tmp_path / "s", {"hooks": {"token": HOOK}})
    assert hook_settings(backend) is None
    with served(backend) as url:
        assert httpx.post(f"{url}/hooks/agent", json={"message": "x"}, headers=AUTH).status_code == 404


def test_the_hooks_live_under_their_own_path(tmp_path):
    backend, settings = _hooked(tmp_path, path="ingress/")
    with served(backend, hooks=settings) as url:
        assert httpx.post(f"{url}/ingress/agent", json={"message": "x"}, headers=AUTH, timeout=30).status_code == 200
        assert httpx.post(f"{url}/hooks/agent", json={"message": "x"}, headers=AUTH).status_code == 404


def test_a_hook_body_that_stalls_gets_408(tmp_path):
    backend, settings = _hooked(tmp_path)
    with served(backend, hooks=settings.model_copy(update={"body_timeout_s": 0.3})) as url:
        host, port = url.removeprefix("http://").rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=20) as conn:
            conn.sendall(
                f"POST /hooks/agent HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {HOOK}\r\n"
                'Content-Length: 100\r\n\r\n{"message":'.encode()
            )
            answer = b""
            while chunk := conn.recv(65536):
                answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408") and b"connection: close" in head.lower()
    assert json.loads(body) == {"ok": False, "error": "request body timeout"}


def test_the_same_hook_posted_200_times_at_once_runs_once(tmp_path):
    backend, settings = _hooked(tmp_path)
    with served(backend, hooks=settings) as url:

        async def post_all() -> list[httpx.Response]:
            headers = {**AUTH, "idempotency-key": "once"}
            async with httpx.AsyncClient(base_url=url, timeout=60) as client:
                posts = [client.post("/hooks/agent", json={"message": "m"}, headers=headers) for _ in range(200)]
                return await asyncio.gather(*posts)

        answers = asyncio.run(post_all())
        assert {a.status_code for a in answers} == {200}
        assert len({a.json()["runId"] for a in answers}) == 1
    again = local_backend(tmp_path / "s")
    try:
        assert again.engine.store.sessions.count() == 1  # one hook session, one run
    finally:
        again.close()


def test_a_refused_hook_is_not_kept_for_its_replays(tmp_path):
    backend, settings = _hooked(tmp_path)
    with served(backend, hooks=settings) as url:
        body = {"message": "m", "sessionKey": "hook:x"}
        headers = {**AUTH, "idempotency-key": "k"}
        first = httpx.post(f"{url}/hooks/agent", json=body, headers=headers)
        again = httpx.post(f"{url}/hooks/agent", json=body, headers=headers)
    assert first.status_code == again.status_code == 400
    assert "hooks.allowRequestSessionKey=true" in first.json()["error"]


def test_the_throttle_spares_no_loopback_and_ends_after_its_lockout():
    now = [0.0]
    lockout = AuthLockout(20, 60.0, 60.0, clock=lambda: now[0], exempt_loopback=False)
    for _ in range(20):
        assert lockout.retry_after("127.0.0.1") is None
        lockout.failed("127.0.0.1")
    assert lockout.retry_after("127.0.0.1") == 60
    now[0] = 59.5
    assert lockout.retry_after("127.0.0.1") == 1
    now[0] = 60.0
    assert lockout.retry_after("127.0.0.1") is None
    assert AuthLockout(1, 60.0, 60.0).retry_after("127.0.0.1") is None  # the gateway's own: loopback spared


class _Dispatches:
    def __init__(self) -> None:
        self.count = 0
        self.fail = False

    async def __call__(self) -> HookAdmitted:
        self.count += 1
        await asyncio.sleep(0)
        if self.fail:
            raise ToolInputError("refused")
        return HookAdmitted(run_id=f"run-{self.count}", session_key="k")


async def _done(run_id: str) -> HookCompletion:
    return HookCompletion(status="ok")


async def test_a_replay_is_kept_five_minutes_after_its_run_ended_and_a_failed_one_not_at_all():
    now = [0.0]
    replays = HookReplays(clock=lambda: now[0])
    dispatch = _Dispatches()
    key = replays.key("k", "token", "agent", {"message": "m"})
    assert replays.key("k", "token", "agent", {"message": "n"}) != key
    assert replays.key(None, "token", "agent", {}) is None
    first, completion = await replays.admit(key, dispatch, _done)
    assert (await completion()).status == "ok"
    again, _ = await replays.admit(key, dispatch, _done)
    assert first == again and dispatch.count == 1
    now[0] = 301.0
    later, _ = await replays.admit(key, dispatch, _done)
    assert later.run_id == "run-2"
    dispatch.fail = True
    other = replays.key("other", "token", "agent", {})
    for _ in range(2):
        with pytest.raises(ToolInputError):
            await replays.admit(other, dispatch, _done)
    assert dispatch.count == 4


async def test_at_most_the_newest_ended_replays_are_kept():
    replays = HookReplays(max_ended=2)
    dispatch = _Dispatches()
    keys = [replays.key(str(n), "t", "agent", {}) for n in range(3)]
    for key in keys:
        _, completion = await replays.admit(key, dispatch, _done)
        await completion()
    assert len(replays) == 2
    replayed, _ = await replays.admit(keys[0], dispatch, _done)
    assert replayed.run_id == "run-4"  # the oldest was dropped: run again


def test_the_body_as_openclaw_normalises_it():
    hook = agent_hook(
        {"message": "  hi ", "name": " CI ", "timeoutSeconds": 7.9, "channel": "OPS", "to": " #a ", "thinking": "low"},
        ("ops",),
        "/hooks/agent",
    )
    assert (hook.message, hook.name, hook.timeout_seconds, hook.channel, hook.to) == ("hi", "CI", 7, "ops", "#a")
    assert agent_hook({"message": "x", "timeoutSeconds": True}, (), "/h").timeout_seconds is None
    assert agent_hook({"message": "x", "deliver": False, "channel": 3}, (), "/h").deliver is False
    with pytest.raises(PayloadRefused, match=r"channel must be last\|ops"):
        agent_hook({"message": "x", "channel": "sms", "to": "1"}, ("ops",), "/h")


def test_the_replay_key_comes_from_the_headers_first():
    assert idempotency_key({"idempotency-key": " a "}, {"idempotencyKey": "c"}) == "a"
    assert idempotency_key({"x-openclaw-idempotency-key": "b"}, {"idempotencyKey": "c"}) == "b"
    assert idempotency_key({"idempotency-key": "x" * 257}, {"idempotencyKey": "c"}) == "c"
    assert idempotency_key({}, {"idempotencyKey": 5}) is None


async def test_the_seam_says_where_hooks_are_taken_and_how_they_are_refused(tmp_path, monkeypatch):
    remote = RemoteBackend("http://127.0.0.1:9", None)
    try:
        assert Capability.HOOKS not in remote.capabilities
        with pytest.raises(RemoteError, match="inbound hooks are posted to the server itself"):
            await remote.run_hook(HookRun(message="x"))
        several = SeveralBackends([remote])
        with pytest.raises(Exception, match="inbound hooks are posted to the server itself"):
            await several.run_hook(HookRun(message="x"))
    finally:
        remote.close()
    local = local_backend(
        tmp_path / "s", {"agents": {"list": [{"id": "main"}, {"id": "ops"}]}, "hooks": {"allowedAgentIds": ["main"]}}
    )
    try:
        assert Capability.HOOKS in local.capabilities
        with pytest.raises(ToolInputError, match="agentId is not allowed by hooks.allowedAgentIds"):
            await local.run_hook(HookRun(message="x", agent_id="ops"))
        monkeypatch.setattr(local.engine, "owner_of", lambda key: tmp_path)
        with pytest.raises(OperationRefused, match="target session changed"):
            await local.run_hook(HookRun(message="x"))
    finally:
        await local.aclose()
