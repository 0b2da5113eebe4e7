"""Where an OpenClaw's own gateway listens and how to authenticate to it, read from its openclaw.json.

An OpenClaw state directory's `openclaw.json` (JSON5) names its gateway (OpenClaw's
docs/gateway/config-gateway.md): `gateway.port` (default 18789; `OPENCLAW_GATEWAY_PORT` wins over
it, as for the gateway itself), `gateway.bind` and `gateway.auth` (`mode` token | password | none |
trusted-proxy, `token`, `password`). A client on the same machine reaches every bind on
127.0.0.1: `loopback` and `lan` listen there, and a `tailnet` or `custom` address requires a
127.0.0.1 listener on the same port; `gateway.tls.enabled` makes it `wss://`. A secret is a
string, `"${VAR}"` (engine/config/secret_refs.py), or an env SecretRef (`{source: "env", id}`);
without one in the file, `OPENCLAW_GATEWAY_TOKEN` / `OPENCLAW_GATEWAY_PASSWORD` as the gateway
reads them. `file`, `exec` and `store` SecretRefs need OpenClaw's secret providers: not read here.

`read_gateway_address(root)` answers a `GatewayAddress`, or `NoGatewayAddress` with one line why
(no file, unreadable, not JSON5, a secret this reader cannot resolve, trusted-proxy without a
password).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessions_tui.engine.config.model.secret_refs import secret_text

__all__ = ["DEFAULT_PORT", "GatewayAddress", "NoGatewayAddress", "read_gateway_address"]

DEFAULT_PORT = 18789
CONFIG_NAME = "openclaw.json"


@dataclass(frozen=True, slots=True)
class GatewayAddress:
    """An OpenClaw gateway's WebSocket URL and its shared secret (token or password, or neither)."""

    url: str
    token: str | None = field(default=None, repr=False)  # secrets stay out of logs and tracebacks
    password: str | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class NoGatewayAddress:
    """Why no gateway address could be read, in one line."""

    reason: str


class _Unresolved(Exception):
    """A secret in the file this reader cannot turn into its value."""


def _section(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _secret(value: Any, where: str, env: Mapping[str, str]) -> str | None:
    """A string, `"${VAR}"`, or an env SecretRef -> its value; None when absent or unset."""
    if value is None:
        return None
    if isinstance(value, str):
        return secret_text(value, env)
    if isinstance(value, dict):
        source, ident = value.get("source"), value.get("id")
        if source == "env" and isinstance(ident, str) and ident:
            return env.get(ident) or None
        raise _Unresolved(f"{where} is a {source or 'malformed'} SecretRef: only env refs are read here")
    raise _Unresolved(f"{where} is neither a string nor a SecretRef")


def _port(gateway: dict[str, Any], env: Mapping[str, str]) -> int | None:
    raw = env.get("OPENCLAW_GATEWAY_PORT") or gateway.get("port", DEFAULT_PORT)
    try:
        port = int(raw)
    except (TypeError, ValueError):
        return None
    return port if 0 < port < 65536 else None


def read_gateway_address(root: Path, env: Mapping[str, str] | None = None) -> GatewayAddress | NoGatewayAddress:
    """The gateway of the OpenClaw state directory `root` (see the module's docstring)."""
    import json5  # only when an OpenClaw's gateway is looked for

    env = os.environ if env is None else env
    path = root / CONFIG_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return NoGatewayAddress(f"{path}: no such file, so no gateway to send through")
    except (OSError, UnicodeDecodeError) as exc:
        return NoGatewayAddress(f"{path}: cannot read it: {getattr(exc, 'strerror', None) or exc}")
    try:
        data = json5.loads(text)
    except ValueError as exc:
        return NoGatewayAddress(f"{path}: not JSON5: {' '.join(str(exc).split())}")
    gateway = _section(_section(data).get("gateway"))
    port = _port(gateway, env)
    if port is None:
        return NoGatewayAddress(f"{path}: gateway.port is not a port")
    scheme = "wss" if _section(gateway.get("tls")).get("enabled") is True else "ws"
    auth = _section(gateway.get("auth"))
    try:
        token = _secret(auth.get("token"), "gateway.auth.token", env) or env.get("OPENCLAW_GATEWAY_TOKEN") or None
        password = (
            _secret(auth.get("password"), "gateway.auth.password", env) or env.get("OPENCLAW_GATEWAY_PASSWORD") or None
        )
    except _Unresolved as exc:
        return NoGatewayAddress(f"{path}: {exc}")
    mode = auth.get("mode")
    if mode == "none":
        token = password = None
    elif mode == "password":
        token = None
    elif mode == "trusted-proxy":  # same-host callers use the password; the token is not accepted
        if not password:
            return NoGatewayAddress(f"{path}: gateway.auth.mode is trusted-proxy and no gateway.auth.password is set")
        token = None
    elif mode == "token" or token:
        password = None
    return GatewayAddress(url=f"{scheme}://127.0.0.1:{port}", token=token, password=password)
