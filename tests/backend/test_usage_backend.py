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


async def test_several_servers_usage_is_summed_sessions_and_agents_marked_models_merged(tmp_path):
    from sessions_tui.backend.several import SeveralBackends, label_of

    one, two = local_backend(tmp_path / "one", FAST_DEMO), local_backend(tmp_path / "two", FAST_DEMO)
    add_session(one.engine, "agent:main:main", [_turn("m1", 100)])
    add_session(two.engine, "agent:main:main", [_turn("m1", 50), _turn("m2", 5)])
    with served(one) as url_one, served(two) as url_two:
        remotes = [RemoteBackend(url_one, TOKEN), RemoteBackend(url_two, TOKEN)]
        for remote in remotes:
            remote.connect_blocking()
        silent = RemoteBackend("http://127.0.0.1:9", None)  # not connected: no usage of its own
        other = RemoteBackend("http://127.0.0.1:8", None)
        both = SeveralBackends([*remotes, silent])
        a, b = label_of(url_one), label_of(url_two)
        try:
            assert Capability.USAGE in both.capabilities
            models = await both.usage(UsageQuery(since=0, by="model"))
            assert [(g.name, g.totals.input) for g in models.groups] == [("acme/m1", 150), ("acme/m2", 5)]
            assert models.total.turns == 3 and len(models.series) == 1 and models.series[0].totals.turns == 3
            assert models.note == "127.0.0.1:9: not counted: " + silent.not_offered(Capability.USAGE)
            agents = await both.usage(UsageQuery(since=0, by="agent"))
            assert {(g.name, g.totals.turns) for g in agents.groups} == {(f"{a}/main", 1), (f"{b}/main", 2)}
            sessions = await both.usage(UsageQuery(since=0, by="session", keys=(f"{b}/agent:main:main",)))
            assert [(g.name, g.totals.turns) for g in sessions.groups] == [(f"{b}/agent:main:main", 2)]
            assert sessions.note is None  # only the server the keys name was asked
            alone = SeveralBackends([silent, other])
            with pytest.raises(BackendUnavailable, match="this server does not answer usage and cost"):
                await alone.usage(UsageQuery(since=0))
        finally:
            for remote in remotes:
                remote.close()
            silent.close()
            other.close()


async def test_the_requesters_view_the_tree_and_the_sparklines_travel_over_serve(tmp_path):
    backend = local_backend(tmp_path / "s", {**FAST_DEMO, "tools": {"sessions": {"visibility": "self"}}})
    child = add_session(backend.engine, "agent:main:subagent:c", [_turn("m1", 50)], spawnedBy="agent:main:main")
    add_session(backend.engine, "agent:main:main", [_turn("m1", 100)])
    add_session(backend.engine, "agent:ops:main", [_turn("m2", 7)])
    with served(backend) as url:
        remote = RemoteBackend(url, TOKEN)
        remote.connect_blocking()
        try:
            for query in (
                UsageQuery(since=0, by="session", tree_of="agent:main:main"),
                UsageQuery(since=0, by="session", requester="agent:main:main"),
                UsageQuery(since=0, keys=("agent:main:main", child), activity_ms=3 * 3_600_000),
            ):
                assert await remote.usage(query) == await backend.usage(query)
            report = await remote.usage(UsageQuery(since=0, by="session", tree_of="agent:main:main"))
            assert [(n.key, n.tree.total_tokens) for n in report.tree] == [(child, 51)]
            mine = await remote.usage(UsageQuery(since=0, by="session", requester="agent:main:main"))
            assert [g.name for g in mine.groups] == ["agent:main:main"]
            # The tree's root and the requester in another spelling name the same sessions over serve.
            bare_tree = await remote.usage(UsageQuery(since=0, by="session", tree_of="main"))
            bare_requester = await remote.usage(UsageQuery(since=0, by="session", requester="main"))
            assert bare_tree.tree == report.tree and bare_requester.groups == mine.groups
        finally:
            remote.close()
