"""The device identity: made once, kept private (0700/0600), signing what the gateway verifies."""

from __future__ import annotations

import base64
import hashlib
import os
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from sessions_tui.backend.gateway.link.identity import (
    DeviceTokens,
    IdentityError,
    StoredDeviceToken,
    device_auth_payload,
    load_or_create_identity,
)


def _raw(b64: str) -> bytes:
    return base64.urlsafe_b64decode(b64 + "=" * (-len(b64) % 4))


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_identity_is_made_once_and_kept_private(tmp_path: Path) -> None:
    directory = tmp_path / "config" / "gateway"
    first = load_or_create_identity(directory)
    assert _mode(directory) == 0o700
    files = list(directory.iterdir())
    assert [f.name for f in files] == ["device-ed25519.json"] and _mode(files[0]) == 0o600
    again = load_or_create_identity(directory)
    assert (again.device_id, again.public_key) == (first.device_id, first.public_key)
    assert "privateKey" not in repr(first) and first.public_key not in repr(first)


def test_the_device_id_is_the_sha256_of_the_raw_public_key(tmp_path: Path) -> None:
    identity = load_or_create_identity(tmp_path)
    raw = _raw(identity.public_key)
    assert len(raw) == 32 and "=" not in identity.public_key
    assert identity.device_id == hashlib.sha256(raw).hexdigest()


def test_the_signature_verifies_over_the_v3_payload(tmp_path: Path) -> None:
    identity = load_or_create_identity(tmp_path)
    payload = device_auth_payload(
        device_id=identity.device_id,
        client_id="gateway-client",
        client_mode="ui",
        role="operator",
        scopes=["operator.read", "operator.write"],
        signed_at_ms=1737264000000,
        token="tok",
        nonce="n-1",
        platform=" Linux ",
        device_family=None,
    )
    assert payload == (
        f"v3|{identity.device_id}|gateway-client|ui|operator|operator.read,operator.write|1737264000000|tok|n-1|linux|"
    )
    signature = identity.sign(payload)
    Ed25519PublicKey.from_public_bytes(_raw(identity.public_key)).verify(_raw(signature), payload.encode())


def test_a_key_file_others_may_read_is_refused(tmp_path: Path) -> None:
    load_or_create_identity(tmp_path)
    os.chmod(tmp_path / "device-ed25519.json", 0o644)
    with pytest.raises(IdentityError, match="chmod 600"):
        load_or_create_identity(tmp_path)


def test_device_tokens_are_kept_per_gateway_device_and_role(tmp_path: Path) -> None:
    tokens = DeviceTokens(tmp_path)
    url = "ws://127.0.0.1:18789"
    assert tokens.get(url, device_id="d1", role="operator") is None
    tokens.put(url, StoredDeviceToken(token="dt-1", device_id="d1", role="operator", scopes=("operator.read",)))
    assert _mode(tokens.path) == 0o600 and _mode(tmp_path) == 0o700
    stored = DeviceTokens(tmp_path).get(url, device_id="d1", role="operator")
    assert stored is not None and stored.token == "dt-1" and stored.scopes == ("operator.read",)
    assert "dt-1" not in repr(stored)
    assert tokens.get(url, device_id="d2", role="operator") is None  # another identity's
    assert tokens.get("ws://elsewhere:1", device_id="d1", role="operator") is None
    tokens.forget(url)
    assert tokens.get(url, device_id="d1", role="operator") is None


def test_installs_first_identity_is_one_however_many_threads_ask_at_once(tmp_path):
    """Several gateways connected at once each ask for the identity: one is made, all get it."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(8) as pool:
        made = list(pool.map(lambda _: load_or_create_identity(tmp_path / "id"), range(8)))
    assert len({m.device_id for m in made}) == 1
    assert load_or_create_identity(tmp_path / "id").device_id == made[0].device_id
    assert not [p.name for p in (tmp_path / "id").iterdir() if p.name.endswith(".tmp")]


def test_tokens_stored_at_once_for_several_gateways_are_all_kept(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    tokens = DeviceTokens(tmp_path / "id")
    urls = [f"ws://127.0.0.1:{18000 + n}" for n in range(12)]

    def put(url: str) -> None:
        DeviceTokens(tmp_path / "id").put(url, StoredDeviceToken(f"t-{url}", "dev", "operator", ("operator.read",)))

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(put, urls))
    assert [tokens.get(u, device_id="dev", role="operator").token for u in urls] == [f"t-{u}" for u in urls]
    assert oct((tmp_path / "id" / "device-tokens.json").stat().st_mode & 0o777) == "0o600"
