"""An OpenClaw's own gateway, read from its openclaw.json: port, bind, TLS, token or password."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessions_tui.engine.openclaw.gateway_address import GatewayAddress, NoGatewayAddress, read_gateway_address


def _root(tmp_path: Path, text: str) -> Path:
    (tmp_path / "openclaw.json").write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("config", "env", "expected"),
    [
        # OpenClaw's defaults: port 18789, loopback, and the token from the environment if any.
        ("{}", {}, GatewayAddress("ws://127.0.0.1:18789")),
        ("{}", {"OPENCLAW_GATEWAY_TOKEN": "t-env"}, GatewayAddress("ws://127.0.0.1:18789", token="t-env")),
        (
            '{gateway: {port: 19001, bind: "loopback", auth: {mode: "token", token: "t1"}}}',  # JSON5
            {},
            GatewayAddress("ws://127.0.0.1:19001", token="t1"),
        ),
        (  # every bind is reached on 127.0.0.1 from this machine
            '{"gateway": {"bind": "lan", "auth": {"token": "t1"}}}',
            {},
            GatewayAddress("ws://127.0.0.1:18789", token="t1"),
        ),
        (
            '{"gateway": {"bind": "custom", "customBindHost": "10.0.0.5", "tls": {"enabled": true}}}',
            {},
            GatewayAddress("wss://127.0.0.1:18789"),
        ),
        (
            '{"gateway": {"auth": {"mode": "password", "password": "p1", "token": "t1"}}}',
            {},
            GatewayAddress("ws://127.0.0.1:18789", password="p1"),
        ),
        ('{"gateway": {"auth": {"password": "p1"}}}', {}, GatewayAddress("ws://127.0.0.1:18789", password="p1")),
        (
            '{"gateway": {"auth": {"token": "${MY_TOKEN}"}}}',
            {"MY_TOKEN": "from-var"},
            GatewayAddress("ws://127.0.0.1:18789", token="from-var"),
        ),
        (
            '{"gateway": {"auth": {"token": {"source": "env", "provider": "default", "id": "GW_TOKEN"}}}}',
            {"GW_TOKEN": "from-ref"},
            GatewayAddress("ws://127.0.0.1:18789", token="from-ref"),
        ),
        (
            '{"gateway": {"auth": {"mode": "none", "token": "t1"}}}',
            {"OPENCLAW_GATEWAY_TOKEN": "t-env"},
            GatewayAddress("ws://127.0.0.1:18789"),
        ),
        (
            '{"gateway": {"auth": {"mode": "trusted-proxy", "password": "p1"}}}',
            {},
            GatewayAddress("ws://127.0.0.1:18789", password="p1"),
        ),
        (  # as for the gateway itself: OPENCLAW_GATEWAY_PORT wins over gateway.port
            '{"gateway": {"port": 19001}}',
            {"OPENCLAW_GATEWAY_PORT": "19002"},
            GatewayAddress("ws://127.0.0.1:19002"),
        ),
    ],
)
def test_the_address_of_an_openclaws_gateway(
    tmp_path: Path, config: str, env: dict[str, str], expected: GatewayAddress
) -> None:
    assert read_gateway_address(_root(tmp_path, config), env) == expected


def test_the_secrets_stay_out_of_its_repr() -> None:
    assert "t1" not in repr(GatewayAddress("ws://127.0.0.1:1", token="t1", password="t1"))


@pytest.mark.parametrize(
    ("config", "reason"),
    [
        ("{gateway: ", "not JSON5"),
        ('{"gateway": {"port": "many"}}', "gateway.port is not a port"),
        ('{"gateway": {"port": 70000}}', "gateway.port is not a port"),
        (
            '{"gateway": {"auth": {"token": {"source": "file", "provider": "vault", "id": "/gw"}}}}',
            "gateway.auth.token is a file SecretRef: only env refs are read here",
        ),
        ('{"gateway": {"auth": {"password": 12}}}', "gateway.auth.password is neither a string nor a SecretRef"),
        (
            '{"gateway": {"auth": {"mode": "trusted-proxy"}}}',
            "gateway.auth.mode is trusted-proxy and no gateway.auth.password is set",
        ),
    ],
)
def test_no_address_says_why_in_one_line(tmp_path: Path, config: str, reason: str) -> None:
    found = read_gateway_address(_root(tmp_path, config), {})
    assert isinstance(found, NoGatewayAddress)
    assert found.reason.startswith(f"{tmp_path / 'openclaw.json'}: ") and reason in found.reason
    assert "\n" not in found.reason


def test_a_missing_or_unreadable_file_is_no_address(tmp_path: Path) -> None:
    missing = read_gateway_address(tmp_path, {})
    assert missing == NoGatewayAddress(f"{tmp_path / 'openclaw.json'}: no such file, so no gateway to send through")
    (tmp_path / "openclaw.json").mkdir()
    unreadable = read_gateway_address(tmp_path, {})
    assert isinstance(unreadable, NoGatewayAddress) and "cannot read it" in unreadable.reason
