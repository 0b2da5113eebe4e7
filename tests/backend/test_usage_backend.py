"""Usage through the seam (`Backend` `Metering`, Capability.USAGE): the local backend reads the engine's
hourly sums off its loop; a remote one asks the server's `usage` op (the report as the engine's, its keys
redacted and read back), and says its line where the server has no such op."""

from __future__ import annotations

import pytest

from conftest import FAST_DEMO, NOW_MS, add_session
from server_support import TOKEN, local_backend, served
from sessions_tui.backend.contract.types import BackendUnavailable, Capability
from sessions_tui.backend.local.backend import open_local
from sessions_tui.backend.remote.backend import RemoteBackend
from sessions_tui.backend.values.usage import UsageQuery


async def test_the_local_backend_reports_usage_by_model(tmp_path):
    backend = open_local(tmp_path / "state", tmp_path / "none.json5")
    try:
        assert Capability.USAGE in backend.capabilities
        store = backend.engine.store
        store.sessions.create("agent:main:main", {})
        usage = {"input": 100, "output": 20, "totalTokens": 120, "cost": {"total": 0.5}}
        store.transcripts.append(
            "agent:main:main",
            {"role": "assistant", "content": [], "provider": "p", "model": "m", "usage": usage, "timestamp": NOW_MS},
        )
        report = await backend.usage(UsageQuery(since=0, by="model"))
        assert [(g.name, g.totals.total_tokens, g.totals.cost_usd) for g in report.groups] == [("p/m", 120, 0.5)]
    finally:
        backend.close()


SECRET = "sk-1234567890abcdef1234"


def _turn(model: str, input_: int) -> dict:
    usage = {"input": input_, "output": 1, "totalTokens": input_ + 1}
    return {"role": "assistant", "content": [], "provider": "acme", "model": model, "usage": usage, "timestamp": NOW_MS}


async def test_a_remote_backend_reads_the_servers_usage_as_the_engines_report(tmp_path):
    backend = local_backend(tmp_path / "s", FAST_DEMO)
    secret_key = add_session(backend.engine, f"agent:main:discord:group:{SECRET}", [_turn("m1", 100)])
    add_session(backend.engine, "agent:ops:main", [_turn("m2", 7)])
    with served(backend) as url:
        remote = RemoteBackend(url, TOKEN)
        remote.connect_blocking()
        try:
            assert Capability.USAGE in remote.capabilities
            local = await backend.usage(UsageQuery(since=0, by="model", every="hour"))
            assert await remote.usage(UsageQuery(since=0, by="model", every="hour")) == local
            by_session = await remote.usage(UsageQuery(since=0, by="session"))
            names = [g.name for g in by_session.groups]
            assert secret_key not in names and all(SECRET not in name for name in names)
            shown = names[0]  # the most tokens first: the secret one, redacted
            only = await remote.usage(UsageQuery(since=0, by="agent", keys=(shown,)))
            assert [(g.name, g.totals.input) for g in only.groups] == [("main", 100)]
            # A server that does not answer the op (an older one) is not asked.
            assert remote._info is not None
            remote._info = remote._info.model_copy(update={"ops": ["info", "browse"]})
            assert Capability.USAGE not in remote.capabilities
            with pytest.raises(BackendUnavailable, match="this server does not answer usage and cost"):
                await remote.usage(UsageQuery(since=0))
        finally:
            remote.close()


async def test_a_remote_backend_not_connected_offers_no_usage():
    one = RemoteBackend("http://127.0.0.1:9", None)
    try:
        assert Capability.USAGE not in one.capabilities
        with pytest.raises(BackendUnavailable, match="this server does not answer usage and cost"):
            await one.usage(UsageQuery(since=0))
    finally:
        one.close()


async def test_an_openclaw_gateway_says_it_lacks_usage():
    from sessions_tui.backend.gateway.http import OpenClawGatewayBackend

    gateway = OpenClawGatewayBackend("http://127.0.0.1:9", None)
    try:
        assert Capability.USAGE not in gateway.capabilities
        with pytest.raises(BackendUnavailable, match=r"its sessions.usage, usage.cost\) is not read from here yet"):
            await gateway.usage(UsageQuery(since=0))
    finally:
        gateway.close()
