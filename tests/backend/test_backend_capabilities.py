"""The seam as a contract: `Backend` is composed of one protocol per capability, and each backend's
`capabilities` says what it does (the OpenClaw gateway's, against the recorded stand-in, in
test_openclaw_gateway_backend.py)."""

from __future__ import annotations

from typing import Protocol

import pytest

from sessions_tui.backend.contract.protocols import EVERY_BACKEND, PROTOCOL_OF, Backend
from sessions_tui.backend.contract.types import EVERY_CAPABILITY, Capability
from sessions_tui.backend.remote.backend import RemoteBackend
from sessions_tui.backend.several import SeveralBackends

OWN = {"__init__", "__slots__", "__module__", "__qualname__", "__doc__", "__annotations__", "__dict__", "__weakref__"}


def _members(protocol: type) -> set[str]:
    return {
        name
        for name in vars(protocol)
        if name not in OWN and not name.startswith("_abc") and name not in vars(Protocol) and not name.startswith("__")
    }


def test_every_member_of_the_seam_is_in_exactly_one_capability_protocol():
    parts = [*EVERY_BACKEND, *PROTOCOL_OF.values()]
    assert len(set(parts)) == len(parts)
    assert set(Backend.__mro__[1 : 1 + len(parts)]) == set(parts)  # Backend is made of them and no more
    assert not _members(Backend)  # it adds nothing of its own
    seen: dict[str, list[str]] = {}
    for part in parts:
        for name in _members(part):
            seen.setdefault(name, []).append(part.__name__)
    assert {name: homes for name, homes in seen.items() if len(homes) != 1} == {}
    assert len(seen) > 40  # every member: the places, keys, events, lifecycle and each capability's


def test_every_capability_names_one_protocol():
    assert set(PROTOCOL_OF) == EVERY_CAPABILITY == set(Capability)


async def test_a_local_backend_does_everything_but_compacting(tmp_path):
    from sessions_tui.backend.contract.types import BackendUnavailable
    from sessions_tui.backend.local.backend import open_local

    backend = open_local(tmp_path / "state", tmp_path / "none.json5")
    try:
        assert backend.capabilities == EVERY_CAPABILITY - {Capability.COMPACT}
        line = "compacting a session is not on this backend: the embedded engine does not compact"
        assert backend.not_offered(Capability.COMPACT) == f"{tmp_path / 'state'}: {line}"
        with pytest.raises(BackendUnavailable, match="the embedded engine does not compact"):
            await backend.compact_session("main")
    finally:
        backend.close()


async def test_a_remote_backend_offers_all_but_importing_here_compacting_hooks_and_usage():
    from sessions_tui.backend.contract.types import BackendUnavailable

    remote = RemoteBackend("http://127.0.0.1:9", None)
    try:
        assert remote.capabilities == EVERY_CAPABILITY - {
            Capability.IMPORT,
            Capability.COMPACT,
            Capability.HOOKS,
            Capability.USAGE,
        }
        assert remote.not_offered(Capability.IMPORT) == (
            "http://127.0.0.1:9: importing an OpenClaw state directory is done on the server's machine"
        )
        with pytest.raises(BackendUnavailable, match="a sessions-tui engine does not compact"):
            await remote.compact_session("main")  # refused here, nothing asked of the server
        assert remote.not_offered(Capability.HOOKS) == (
            "http://127.0.0.1:9: inbound hooks are posted to the server itself (POST /hooks/agent)"
        )
    finally:
        remote.close()


def test_several_backends_have_what_any_of_them_has_but_importing_cron_jobs_and_usage():
    one, two = RemoteBackend("http://127.0.0.1:9", None), RemoteBackend("http://127.0.0.1:8", None)
    try:
        both = SeveralBackends([one, two])
        assert both.capabilities == EVERY_CAPABILITY - {
            Capability.IMPORT,
            Capability.COMPACT,
            Capability.HOOKS,
            Capability.CRON,
            Capability.USAGE,
        }
        assert both.not_offered(Capability.COMPACT) == one.not_offered(Capability.COMPACT)
        said = both.not_offered(Capability.CRON)
        assert said.endswith("cron jobs are one server's each: manage them with --remote naming that one")
    finally:
        one.close()
        two.close()


def test_only_a_local_backend_must_be_polled_for_other_writers(tmp_path):
    """A face that follows changes polls `data_version` only where the events do not say them all."""
    from sessions_tui.backend.local.backend import open_local

    local = open_local(tmp_path / "state", tmp_path / "none.json5")
    one, two = RemoteBackend("http://127.0.0.1:9", None), RemoteBackend("http://127.0.0.1:8", None)
    try:
        assert local.pushes_events is False
        assert one.pushes_events is True
        assert SeveralBackends([one, two]).pushes_events is True
    finally:
        local.close()
        one.close()
        two.close()
