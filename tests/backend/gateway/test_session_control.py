"""The operator's operations on a gateway's sessions over the socket (backend/gateway/acting/session_control.py),
against the stand-in answering with the real gateway's recorded answers
(fixtures/openclaw-2026.9.6/ws/session_ops, scripts/record_session_ops_frames.py): what each sends,
how its answer becomes a `SessionOpOutcome`, and how its errors are said in the seam's words."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from gateway_replay import ReplayGateway, replaying, session_op
from sessions_tui.backend.contract.types import (
    BackendUnavailable,
    Capability,
    NewSession,
    OperationRefused,
    Requester,
)
from sessions_tui.backend.gateway.live import GatewaySocketBackend
from sessions_tui.tools.calling.base import ToolInputError

OPS = "agent:main:discord:group:ops"
HI = "agent:main:discord:group:hi"
MAIN = "agent:main:main"


answer = session_op
OPS_ROW = answer("describe", "sessions.describe")
NONE = answer("describe", "sessions.describe", 1)
MAIN_ROW = answer("archive_main", "sessions.describe")
HI_ROW = answer("reset", "sessions.describe")


@pytest.fixture
async def gateway() -> AsyncIterator[ReplayGateway]:
    async with replaying(ReplayGateway()) as stand_in:
        yield stand_in


@pytest.fixture
async def backend(gateway: ReplayGateway, tmp_path: Path) -> AsyncIterator[GatewaySocketBackend]:
    found = GatewaySocketBackend(gateway.url, "shared", identity_dir=tmp_path / "id")
    await found.connect()
    yield found
    await found.aclose()


def queue(gateway: ReplayGateway, method: str, recorded: tuple[bool, Any]) -> None:
    gateway.queue(method, *recorded)


def test_the_socket_backend_offers_the_operations_and_compacting(backend):
    assert {Capability.SESSION_OPS, Capability.COMPACT, Capability.ABORT} <= backend.capabilities


async def test_only_the_operator_asks_for_a_scope_of_its_own_when_told(gateway, tmp_path):
    plain = GatewaySocketBackend(gateway.url, "shared", identity_dir=tmp_path / "a")
    admin = GatewaySocketBackend(gateway.url, "shared", identity_dir=tmp_path / "b", admin=True)
    try:
        await plain.connect()
        await admin.connect()
    finally:
        await plain.aclose()
        await admin.aclose()
    assert [c["scopes"] for c in gateway.connects] == [
        ["operator.read", "operator.write"],
        ["operator.read", "operator.write", "operator.admin"],
    ]


async def test_create_is_sessions_create_once_the_key_names_none(backend, gateway):
    queue(gateway, "sessions.describe", NONE)
    queue(gateway, "sessions.create", answer("create", "sessions.create"))
    done = await backend.create_session(NewSession(key="discord:group:ops", label="ops"))
    assert gateway.methods("sessions.describe") == [{"key": OPS}]
    assert gateway.methods("sessions.create") == [{"key": OPS, "label": "ops"}]
    created = answer("create", "sessions.create")[1]
    assert (done.op, done.session_key, done.session_id) == ("create", backend.display(OPS), created["sessionId"])
    assert (done.label, done.model, done.thinking, done.send) == ("ops", None, None, None)


async def test_create_with_a_first_message_says_the_turn_the_gateway_started(backend, gateway):
    ok, created = answer("create_message", "sessions.create")
    queue(gateway, "sessions.describe", NONE)
    gateway.queue("sessions.create", ok, created)
    request = NewSession(key=HI, label="hi", model="local/demo", thinking="off", message="hello")
    done = await backend.create_session(request)
    params = {"key": HI, "label": "hi", "model": "local/demo", "thinkingLevel": "off", "message": "hello"}
    assert gateway.methods("sessions.create") == [params]
    assert created["runStarted"] is True
    assert done.send == {"runId": created["runId"], "status": "accepted", "sessionKey": backend.display(HI)}


async def test_a_first_turn_the_gateway_did_not_start_is_said_and_the_session_made(backend, gateway):
    ok, created = answer("create", "sessions.create")
    queue(gateway, "sessions.describe", NONE)
    gateway.queue("sessions.create", ok, {**created, "runStarted": False, "runError": {"message": "queue\nfull"}})
    done = await backend.create_session(NewSession(key=OPS, message="hello"))
    assert done.session_id == created["sessionId"]
    assert done.send == {"status": "error", "error": "queue full", "sessionKey": backend.display(OPS)}


async def test_create_refuses_a_key_that_exists_reserved_or_malformed_before_asking(backend, gateway):
    queue(gateway, "sessions.describe", OPS_ROW)  # the gateway would adopt it (create_adopts)
    with pytest.raises(OperationRefused, match=f"Session already exists: {OPS}"):
        await backend.create_session(NewSession(key=OPS))
    for reserved in ("global", "unknown"):
        with pytest.raises(OperationRefused, match="reserved"):
            await backend.create_session(NewSession(key=reserved))
    with pytest.raises(ToolInputError, match="not a session key"):
        await backend.create_session(NewSession(key="bad key!"))
    assert gateway.methods("sessions.create") == []


async def test_what_the_gateway_finds_wrong_in_a_create_is_bad_input(backend, gateway):
    queue(gateway, "sessions.describe", NONE)
    queue(gateway, "sessions.create", answer("create_invalid", "sessions.create"))
    with pytest.raises(ToolInputError) as bad:
        await backend.create_session(NewSession(key="agent:nobody:discord:group:x"))
    assert str(bad.value) == (
        f'gateway {gateway.url} refused sessions.create: Unknown agent id "nobody" (INVALID_REQUEST)'
    )


async def test_an_operation_asked_as_a_session_is_refused(backend, gateway):
    with pytest.raises(OperationRefused, match="the operator's: stop acting as agent:main:main"):
        await backend.rename_session(OPS, "x", requester=Requester(key=MAIN))
    with pytest.raises(OperationRefused):
        await backend.compact_session(OPS, requester=Requester())
    assert gateway.methods("sessions.describe") == []


async def test_a_key_of_no_session_is_bad_input_and_nothing_is_patched(backend, gateway):
    queue(gateway, "sessions.describe", NONE)
    with pytest.raises(ToolInputError, match="No session found: agent:main:discord:group:none"):
        await backend.rename_session("agent:main:discord:group:none", "x")
    assert gateway.methods("sessions.patch") == []  # a patch would have made the session


async def test_reset_in_place_names_no_previous_session_and_a_new_one_does(backend, gateway):
    queue(gateway, "sessions.describe", HI_ROW)
    queue(gateway, "sessions.reset", answer("reset", "sessions.reset"))
    done = await backend.reset_session(HI)
    before = HI_ROW[1]["session"]["sessionId"]
    assert gateway.methods("sessions.reset") == [{"key": HI, "reason": "reset", "expectedSessionId": before}]
    assert (done.op, done.session_id, done.previous_session_id) == ("reset", before, None)  # 2026.9.6: in place

    ok, reset = answer("reset", "sessions.reset")
    queue(gateway, "sessions.describe", HI_ROW)
    gateway.queue("sessions.reset", ok, {**reset, "entry": {**reset["entry"], "sessionId": "new-id"}})
    done = await backend.reset_session(HI)
    assert (done.session_id, done.previous_session_id) == ("new-id", before)


async def test_a_reset_without_operator_admin_is_refused_naming_how_to_ask_for_it(backend, gateway):
    queue(gateway, "sessions.describe", HI_ROW)
    queue(gateway, "sessions.reset", answer("reset_scope", "sessions.reset"))
    with pytest.raises(OperationRefused) as refused:
        await backend.reset_session(HI)
    said = str(refused.value)
    assert "missing scope: operator.admin (MISSING_SCOPE); this connection lacks operator.admin" in said
    assert said.endswith("(sessions-tui asks for it with SESSIONS_TUI_GATEWAY_ADMIN=1)")


async def test_rename_is_a_label_patch_and_a_label_in_use_is_a_refusal(backend, gateway):
    queue(gateway, "sessions.describe", OPS_ROW)
    queue(gateway, "sessions.patch", answer("rename", "sessions.patch"))
    done = await backend.rename_session(OPS, "ops renamed")
    assert gateway.methods("sessions.patch") == [{"key": OPS, "label": "ops renamed"}]
    assert (done.op, done.label) == ("rename", "ops renamed")

    queue(gateway, "sessions.describe", OPS_ROW)
    queue(gateway, "sessions.patch", answer("rename_in_use", "sessions.patch"))
    with pytest.raises(OperationRefused, match=r"refused sessions.patch: label already in use: hi \(INVALID_REQUEST\)"):
        await backend.rename_session(OPS, "hi")

    queue(gateway, "sessions.describe", OPS_ROW)
    queue(gateway, "sessions.patch", answer("rename_invalid", "sessions.patch"))
    with pytest.raises(ToolInputError, match="must not have fewer than 1 characters"):
        await backend.rename_session(OPS, "")


async def test_model_and_thinking_are_a_patch_and_default_and_off_clear_them(backend, gateway):
    queue(gateway, "sessions.describe", OPS_ROW)
    queue(gateway, "sessions.patch", answer("model", "sessions.patch"))
    done = await backend.set_session_model(OPS, "local/demo", "low")
    assert (done.op, done.model, done.thinking) == ("model", "local/demo", "off")  # as the gateway answered
    queue(gateway, "sessions.describe", OPS_ROW)
    queue(gateway, "sessions.patch", answer("model", "sessions.patch", 1))
    done = await backend.set_session_model(OPS, "default", "off")
    assert (done.model, done.thinking) == (None, None)
    assert gateway.methods("sessions.patch") == [
        {"key": OPS, "model": "local/demo", "thinkingLevel": "low"},
        {"key": OPS, "model": None, "thinkingLevel": None},
    ]
    queue(gateway, "sessions.describe", OPS_ROW)
    queue(gateway, "sessions.patch", answer("model", "sessions.patch", 2))
    with pytest.raises(ToolInputError, match='thinkingLevel "ultra" is not supported for local/demo'):
        await backend.set_session_model(OPS, None, "ultra")
    with pytest.raises(ToolInputError, match="give a model, a thinking level, or both"):
        await backend.set_session_model(OPS, None, None)


async def test_archive_and_unarchive_patch_with_the_sessionid_seen(backend, gateway):
    session_id = OPS_ROW[1]["session"]["sessionId"]
    queue(gateway, "sessions.describe", OPS_ROW)
    queue(gateway, "sessions.patch", answer("archive", "sessions.patch"))
    done = await backend.archive_session(OPS, True)
    assert (done.op, done.archived) == ("archive", True)
    queue(gateway, "sessions.describe", answer("archive", "sessions.describe", 1))  # archived: still described
    queue(gateway, "sessions.patch", answer("archive", "sessions.patch", 1))
    done = await backend.archive_session(OPS, False)
    assert (done.op, done.archived) == ("unarchive", False)
    assert gateway.methods("sessions.patch") == [
        {"key": OPS, "archived": True, "expectedSessionId": session_id},
        {"key": OPS, "archived": False, "expectedSessionId": session_id},
    ]
    queue(gateway, "sessions.describe", MAIN_ROW)
    queue(gateway, "sessions.patch", answer("archive_main", "sessions.patch"))
    with pytest.raises(OperationRefused, match="Cannot archive an agent's main session"):
        await backend.archive_session("main", True)


async def test_delete_archives_then_deletes_what_is_archived_and_refuses_a_main_session(backend, gateway):
    session_id = OPS_ROW[1]["session"]["sessionId"]
    queue(gateway, "sessions.describe", OPS_ROW)
    queue(gateway, "sessions.patch", answer("delete", "sessions.patch"))
    queue(gateway, "sessions.delete", answer("delete", "sessions.delete"))
    done = await backend.delete_session(OPS)
    assert [(m, p) for m, p in gateway.calls if m in ("sessions.patch", "sessions.delete")] == [
        ("sessions.patch", {"key": OPS, "archived": True, "expectedSessionId": session_id}),
        ("sessions.delete", {"key": OPS, "archivedOnly": True, "expectedSessionId": session_id}),
    ]
    assert (done.op, done.session_key, done.session_id) == ("delete", backend.display(OPS), session_id)

    queue(gateway, "sessions.describe", MAIN_ROW)
    with pytest.raises(OperationRefused, match=r"Cannot delete the main session \(agent:main:main\)"):
        await backend.delete_session("main")
    assert len(gateway.methods("sessions.delete")) == 1


async def test_compact_says_what_it_did_or_why_not(backend, gateway):
    queue(gateway, "sessions.describe", HI_ROW)
    queue(gateway, "sessions.compact", answer("compact", "sessions.compact"))
    done = await backend.compact_session(HI)
    assert gateway.methods("sessions.compact") == [{"key": HI}]
    assert (done.op, done.compacted, done.reason) == ("compact", True, None)
    assert done.session_id == HI_ROW[1]["session"]["sessionId"]
    queue(gateway, "sessions.describe", OPS_ROW)
    queue(gateway, "sessions.compact", answer("compact", "sessions.compact", 1))
    done = await backend.compact_session(OPS)
    assert (done.compacted, done.reason) == (False, "Nothing to compact (session too small)")


async def test_a_lost_socket_is_the_backend_unavailable(backend, gateway):
    queue(gateway, "sessions.describe", OPS_ROW)
    gateway.drop_on("sessions.patch")
    with pytest.raises(BackendUnavailable, match=r"sessions.patch: "):
        await backend.rename_session(OPS, "x")


async def test_a_created_session_shows_in_the_rows_from_the_gateways_own_event(backend, gateway):
    """No reload: the `sessions.changed` the gateway sends for it (reason `create`) adds the row."""
    from gateway_replay import CHANGED, event

    loop = asyncio.get_running_loop()
    seen: asyncio.Queue[object] = asyncio.Queue()
    backend.subscribe(lambda e: loop.call_soon_threadsafe(seen.put_nowait, e))
    queue(gateway, "sessions.describe", NONE)
    queue(gateway, "sessions.create", answer("create", "sessions.create"))
    await backend.create_session(NewSession(key=OPS, label="ops"))
    row = copy.deepcopy(next(f for f in CHANGED if f["payload"].get("session"))["payload"]["session"])
    row.update(key=OPS, label="ops", sessionId=answer("create", "sessions.create")[1]["sessionId"])
    await gateway.push(event("sessions.changed", {"sessionKey": OPS, "reason": "create", "session": row}))
    async with asyncio.timeout(10):
        while getattr(await seen.get(), "type", None) != "store_changed":
            pass
    assert (await backend.browse_rows(Requester(), [OPS]))[OPS]["label"] == "ops"


async def test_over_several_servers_compact_goes_to_the_gateway_the_key_names(backend, gateway, tmp_path):
    from sessions_tui.backend.local.backend import open_local
    from sessions_tui.backend.several import SeveralBackends

    local = open_local(tmp_path / "state", tmp_path / "none.json5")
    try:
        both = SeveralBackends([local, backend])
        assert Capability.COMPACT in both.capabilities
        on_gateway, on_local = reversed(list(both.backends))
        queue(gateway, "sessions.describe", HI_ROW)
        queue(gateway, "sessions.compact", answer("compact", "sessions.compact"))
        done = await both.compact_session(f"{on_gateway}/{HI}")
        assert (done.session_key, done.compacted) == (f"{on_gateway}/{backend.display(HI)}", True)
        with pytest.raises(BackendUnavailable, match="the embedded engine does not compact"):
            await both.compact_session(f"{on_local}/main")
    finally:
        local.close()
