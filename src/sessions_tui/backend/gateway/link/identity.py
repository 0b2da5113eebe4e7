"""This install's device identity towards OpenClaw gateways, and the deviceTokens they issue it.

A gateway gives an operator its scopes only when it proves a device identity: an Ed25519 key pair,
made once per install and kept in the user's config directory (`<config>/gateway/`, the directory
0700, every file 0600, the private key never printed). The gateway derives the device id as the
hex SHA-256 of the raw 32-byte public key, and checks, on every `connect`, a signature over the
`connect.challenge` it sent (`device_auth_payload`, the gateway's `buildDeviceAuthPayloadV3`).

Once a gateway has approved the device it issues a deviceToken (`hello-ok.auth.deviceToken`); it is
kept per gateway URL (`device-tokens.json`, 0600) with the device id and role it was issued for,
and sent the next time (`auth.deviceToken`) beside the shared token.

`cryptography` loads only here, and only the gateway backend loads this module.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import json
import os
import stat
import tempfile
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

__all__ = [
    "DeviceIdentity",
    "DeviceTokens",
    "IdentityError",
    "StoredDeviceToken",
    "b64url",
    "default_identity_dir",
    "device_auth_payload",
    "device_id_of",
    "load_or_create_identity",
]

_APP_NAME = "sessions-tui"
_KEY_FILE = "device-ed25519.json"
_TOKENS_FILE = "device-tokens.json"
_DIR_MODE = 0o700
_FILE_MODE = 0o600
_THREADS = threading.Lock()
"""One read-modify-write of the tokens file at a time in this process (`flock` orders processes)."""


class IdentityError(RuntimeError):
    """The identity file is unreadable, malformed, or open to other users."""


def default_identity_dir() -> Path:
    """`<the user's config directory>/sessions-tui/gateway` (platformdirs)."""
    import platformdirs

    return Path(platformdirs.user_config_dir(_APP_NAME)) / "gateway"


def b64url(data: bytes) -> str:
    """Base64url without padding, the gateway's spelling of keys and signatures."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def device_id_of(public_key_raw: bytes) -> str:
    """The device id a gateway derives from a raw 32-byte Ed25519 public key: its hex SHA-256."""
    return hashlib.sha256(public_key_raw).hexdigest()


def _metadata(value: str | None) -> str:
    """`normalizeDeviceMetadataForAuth`: trimmed, ASCII capitals lowered, absent as ''."""
    text = (value or "").strip()
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def device_auth_payload(
    *,
    device_id: str,
    client_id: str,
    client_mode: str,
    role: str,
    scopes: Sequence[str],
    signed_at_ms: int,
    token: str | None,
    nonce: str,
    platform: str | None,
    device_family: str | None,
) -> str:
    """The text a device signs on `connect`, exactly as the gateway rebuilds it to verify (v3).

    `v3|deviceId|clientId|clientMode|role|scopes joined by ","|signedAtMs|token|nonce|platform|deviceFamily`,
    where token is the one sent in `auth.token` (or the deviceToken when only that is sent), and
    platform and deviceFamily are trimmed and lower-cased.
    """
    return "|".join(
        [
            "v3",
            device_id,
            client_id,
            client_mode,
            role,
            ",".join(scopes),
            str(signed_at_ms),
            token or "",
            nonce,
            _metadata(platform),
            _metadata(device_family),
        ]
    )


def _secure_dir(directory: Path) -> None:
    directory.mkdir(mode=_DIR_MODE, parents=True, exist_ok=True)
    os.chmod(directory, _DIR_MODE)


def _written_beside(path: Path, data: dict[str, Any]) -> Path:
    """`data` as JSON in a new file beside `path` (0600 from its first byte, a name no other
    thread or process uses), synced; its path."""
    _secure_dir(path.parent)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)  # 0600
    tmp = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, sort_keys=True)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _write_private(path: Path, data: dict[str, Any]) -> None:
    """Write JSON to `path` atomically, the file 0600 from its first byte."""
    tmp = _written_beside(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _create_private(path: Path, data: dict[str, Any]) -> bool:
    """Write JSON to `path` only if no file is there (atomically, across threads and processes);
    False when another got there first."""
    tmp = _written_beside(path, data)
    try:
        os.link(tmp, path)
    except FileExistsError:
        return False
    finally:
        tmp.unlink(missing_ok=True)
    return True


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """`path`'s read-modify-write held by this thread alone, and by this process alone among
    those on the same file (several gateways store their tokens at once)."""
    _secure_dir(path.parent)
    with _THREADS, open(path.with_name(f".{path.name}.lock"), "a", opener=_private_opener) as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def _private_opener(name: str, flags: int) -> int:
    return os.open(name, flags, _FILE_MODE)


def _read_private(path: Path) -> dict[str, Any] | None:
    """The JSON object in `path`, None when absent; refuses a file other users may read."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise IdentityError(f"{path} is readable by other users; chmod 600 it (or delete it to make a new one)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IdentityError(f"{path} is unreadable: {exc}") from None
    if not isinstance(data, dict):
        raise IdentityError(f"{path} does not hold a JSON object")
    return data


@dataclass(frozen=True, slots=True)
class DeviceIdentity:
    """An Ed25519 key pair and the device id a gateway derives from it. `repr` shows no key."""

    device_id: str
    public_key: str
    """Base64url (no padding) of the raw 32-byte public key, as `connect.params.device.publicKey`."""
    _private: Ed25519PrivateKey

    def __repr__(self) -> str:
        return f"DeviceIdentity(device_id={self.device_id!r})"

    def sign(self, payload: str) -> str:
        """The base64url Ed25519 signature of `payload`'s UTF-8 bytes."""
        return b64url(self._private.sign(payload.encode("utf-8")))

    @classmethod
    def generate(cls) -> DeviceIdentity:
        """A new key pair (not stored: `load_or_create_identity` stores it)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls._of(Ed25519PrivateKey.generate())

    @classmethod
    def _of(cls, private: Ed25519PrivateKey) -> DeviceIdentity:
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        raw = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return cls(device_id=device_id_of(raw), public_key=b64url(raw), _private=private)

    def _private_raw(self) -> bytes:
        from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

        return self._private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())

    def _to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "algorithm": "ed25519",
            "deviceId": self.device_id,
            "publicKey": self.public_key,
            "privateKey": b64url(self._private_raw()),
        }

    @classmethod
    def _from_json(cls, data: dict[str, Any], path: Path) -> DeviceIdentity:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        private_text = data.get("privateKey")
        if data.get("algorithm") != "ed25519" or not isinstance(private_text, str):
            raise IdentityError(f"{path} holds no Ed25519 key")
        try:
            private = Ed25519PrivateKey.from_private_bytes(_unb64url(private_text))
        except ValueError:
            raise IdentityError(f"{path} holds a malformed Ed25519 key") from None
        return cls._of(private)


def load_or_create_identity(directory: Path | None = None) -> DeviceIdentity:
    """This install's identity from `directory` (default `default_identity_dir()`), made on first use."""
    directory = directory if directory is not None else default_identity_dir()
    path = directory / _KEY_FILE
    data = _read_private(path)
    if data is not None:
        return DeviceIdentity._from_json(data, path)
    identity = DeviceIdentity.generate()
    if _create_private(path, identity._to_json()):
        return identity
    made = _read_private(path)  # another thread or process made it first: this install's is that one
    if made is None:
        raise IdentityError(f"{path} vanished while it was made")
    return DeviceIdentity._from_json(made, path)


@dataclass(frozen=True, slots=True)
class StoredDeviceToken:
    """A deviceToken one gateway issued, and for which device, role and scopes."""

    token: str
    device_id: str
    role: str
    scopes: tuple[str, ...]

    def __repr__(self) -> str:
        return f"StoredDeviceToken(device_id={self.device_id!r}, role={self.role!r}, scopes={self.scopes!r})"


class DeviceTokens:
    """The deviceTokens gateways issued this install, one per gateway URL, in one 0600 file."""

    def __init__(self, directory: Path | None = None) -> None:
        self.path = (directory if directory is not None else default_identity_dir()) / _TOKENS_FILE

    def _all(self) -> dict[str, Any]:
        data = _read_private(self.path)
        gateways = (data or {}).get("gateways")
        return gateways if isinstance(gateways, dict) else {}

    def get(self, url: str, *, device_id: str, role: str) -> StoredDeviceToken | None:
        """The token stored for `url`, if it was issued to this device for this role."""
        entry = self._all().get(url)
        if not isinstance(entry, dict):
            return None
        token, scopes = entry.get("token"), entry.get("scopes")
        if not isinstance(token, str) or entry.get("deviceId") != device_id or entry.get("role") != role:
            return None
        kept = tuple(s for s in scopes if isinstance(s, str)) if isinstance(scopes, list) else ()
        return StoredDeviceToken(token=token, device_id=device_id, role=role, scopes=kept)

    def put(self, url: str, stored: StoredDeviceToken) -> None:
        """Keep `stored` as `url`'s token (replacing the one before)."""
        with _locked(self.path):
            gateways = self._all()
            gateways[url] = {
                "token": stored.token,
                "deviceId": stored.device_id,
                "role": stored.role,
                "scopes": list(stored.scopes),
            }
            _write_private(self.path, {"version": 1, "gateways": gateways})

    def forget(self, url: str) -> None:
        """Drop `url`'s token (the gateway refused it)."""
        with _locked(self.path):
            gateways = self._all()
            if gateways.pop(url, None) is not None:
                _write_private(self.path, {"version": 1, "gateways": gateways})
