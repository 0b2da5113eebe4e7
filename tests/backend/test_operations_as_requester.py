"""An operation asked as a session (the dashboard's act-as, `session … --as`) reaches only what that
session may: its visibility (`tools.sessions.visibility`), agent-to-agent, and a sandboxed requester
only its own tree, as its tools do (tools/requester/operating.py). The operator (no requester) reaches all;
the audit names who asked. The same rules hold over `serve`."""

from __future__ import annotations

import pytest

from conftest import FAST_DEMO, add_session
from scenes import merge
from server_support import TOKEN, local_backend, served
from sessions_tui.backend.contract.types import NewSession, OperationRefused, Requester
from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.backend.remote.backend import RemoteBackend

PARENT = "agent:main:discord:group:ops"
CHILD = "agent:main:subagent:c1"
OTHER = "agent:main:discord:group:other"
SANDBOXED = Requester(key=PARENT, sandboxed=True)


def tree(engine) -> None:
    add_session(engine, PARENT)
    add_session(engine, CHILD, spawnedBy=PARENT)
    add_session(engine, OTHER)


def audit_of(engine, kind: str):
    return [entry for entry in engine.store.audit.audit_rows(20) if entry.kind == kind]


async def test_a_sandboxed_requester_operates_only_on_its_own_tree(make_engine):
    engine = make_engine(FAST_DEMO)
    tree(engine)
    backend = LocalBackend(engine)
    assert (await backend.rename_session(CHILD, "kid", requester=SANDBOXED)).label == "kid"
    [renamed] = audit_of(engine, "session_rename")
    assert (renamed.requester, renamed.via) == (PARENT, "acting as")
    for operation in (
        backend.rename_session(OTHER, "x", requester=SANDBOXED),
        backend.reset_session(OTHER, requester=SANDBOXED),
        backend.archive_session(OTHER, True, requester=SANDBOXED),
        backend.delete_session(OTHER, requester=SANDBOXED),
        backend.abort_run(OTHER, requester=SANDBOXED),
        backend.create_session(NewSession(key="discord:group:new"), requester=SANDBOXED),
    ):
        with pytest.raises(OperationRefused, match="^Session not visible from this sandboxed agent session: "):
            await operation
    assert engine.store.sessions.get(OTHER) is not None and engine.store.sessions.get(OTHER).archived_at is None
    assert engine.store.sessions.get("agent:main:discord:group:new") is None
    # The operator reaches every session.
    assert (await backend.rename_session(OTHER, "x")).label == "x"
    assert audit_of(engine, "session_rename")[0].via == "operator"


async def test_visibility_self_keeps_a_requester_to_its_own_session(make_engine):
    engine = make_engine(merge(FAST_DEMO, {"tools": {"sessions": {"visibility": "self"}}}))
    tree(engine)
    backend = LocalBackend(engine)
    asking = Requester(key=PARENT)
    assert (await backend.rename_session(PARENT, "mine", requester=asking)).label == "mine"
    with pytest.raises(OperationRefused) as refused:
        await backend.rename_session(OTHER, "x", requester=asking)
    assert str(refused.value) == (
        "Session operation visibility is restricted to the current session (tools.sessions.visibility=self)."
    )


async def test_another_agents_session_needs_agent_to_agent(make_engine):
    engine = make_engine(merge(FAST_DEMO, {"tools": {"sessions": {"visibility": "all"}}}))
    add_session(engine, PARENT)
    add_session(engine, "agent:helper:main")
    with pytest.raises(OperationRefused, match="^Agent-to-agent session operations are disabled. Set"):
        await LocalBackend(engine).reset_session("agent:helper:main", requester=Requester(key=PARENT))


async def test_a_key_of_no_session_stays_bad_input_for_a_requester_that_could_reach_it(make_engine):
    from sessions_tui.backend.values.vocabulary import ToolInputError

    engine = make_engine(FAST_DEMO)
    tree(engine)
    with pytest.raises(ToolInputError, match="^No session found: agent:main:discord:group:gone$"):
        await LocalBackend(engine).reset_session("agent:main:discord:group:gone", requester=Requester(key=PARENT))


async def test_over_serve_the_requester_travels_with_the_operation(tmp_path):
    backend = local_backend(tmp_path / "s", FAST_DEMO)
    tree(backend.engine)
    with served(backend) as url:
        remote = RemoteBackend(url, TOKEN)
        remote.connect_blocking()
        try:
            assert (await remote.rename_session(CHILD, "kid", requester=SANDBOXED)).label == "kid"
            with pytest.raises(OperationRefused, match="^Session not visible from this sandboxed agent session: "):
                await remote.rename_session(OTHER, "x", requester=SANDBOXED)
            with pytest.raises(OperationRefused, match="^Session not visible from this sandboxed agent session: "):
                await remote.abort_run(OTHER, requester=SANDBOXED)
            assert (await remote.abort_run(CHILD, requester=SANDBOXED)).status == "no-active-run"
        finally:
            await remote.aclose()
