"""Usage through the seam (`Backend` `Metering`, Capability.USAGE): the local backend reads the engine's
hourly sums off its loop; a remote server, an OpenClaw gateway and several backends refuse with their line."""

from __future__ import annotations

import pytest

from conftest import NOW_MS
from sessions_tui.backend.contract.types import BackendUnavailable, Capability
from sessions_tui.backend.local.backend import open_local
from sessions_tui.backend.remote.backend import RemoteBackend
from sessions_tui.backend.several import SeveralBackends
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


async def test_the_local_backend_reports_the_requesters_view_and_the_spawn_tree(tmp_path):
    backend = open_local(tmp_path / "state", tmp_path / "none.json5")
    try:
        store = backend.engine.store
        for key, spawned_by in (("agent:main:main", None), ("agent:main:subagent:c", "agent:main:main")):
            store.sessions.create(key, {"spawnedBy": spawned_by} if spawned_by else {})
        store.sessions.create("agent:ops:main", {})
        usage = {"input": 100, "output": 20, "totalTokens": 120}
        for key in ("agent:main:main", "agent:main:subagent:c", "agent:ops:main"):
            line = {"role": "assistant", "content": [], "provider": "p", "model": "m", "usage": usage, "timestamp": 1}
            store.transcripts.append(key, line)
        everything = await backend.usage(UsageQuery(since=0, by="session", tree_of="agent:main:main"))
        assert everything.total.turns == 3
        assert [(n.key, n.tree.total_tokens) for n in everything.tree] == [("agent:main:subagent:c", 120)]
        as_main = await backend.usage(UsageQuery(since=0, by="agent", requester="agent:main:main"))
        assert [(g.name, g.totals.turns) for g in as_main.groups] == [("main", 2)]  # visibility tree: ops unseen
    finally:
        backend.close()


async def test_a_remote_server_and_several_backends_say_they_have_no_usage():
    one, two = RemoteBackend("http://127.0.0.1:9", None), RemoteBackend("http://127.0.0.1:8", None)
    try:
        with pytest.raises(BackendUnavailable, match="usage and cost is not on a server's operator API yet"):
            await one.usage(UsageQuery(since=0))
        both = SeveralBackends([one, two])
        assert Capability.USAGE not in both.capabilities
        with pytest.raises(BackendUnavailable, match="usage and cost is one server's each"):
            await both.usage(UsageQuery(since=0))
    finally:
        one.close()
        two.close()


async def test_an_openclaw_gateway_says_it_lacks_usage():
    from sessions_tui.backend.gateway.http import OpenClawGatewayBackend

    gateway = OpenClawGatewayBackend("http://127.0.0.1:9", None)
    try:
        assert Capability.USAGE not in gateway.capabilities
        with pytest.raises(BackendUnavailable, match=r"its sessions.usage, usage.cost\) is not read from here yet"):
            await gateway.usage(UsageQuery(since=0))
    finally:
        gateway.close()
