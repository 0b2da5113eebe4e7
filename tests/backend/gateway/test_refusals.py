"""Each refusal is one line that says what to do, in the gateway's words where it gives them."""

from __future__ import annotations

from sessions_tui.backend.gateway.link.frames import ErrorDetails, GatewayError
from sessions_tui.backend.gateway.link.refusals import GatewayRefused, PairingRequired, refusal_line

URL = "ws://gw:18789"


def test_missing_scope_names_the_scope() -> None:
    error = GatewayError(
        code="FORBIDDEN",
        message="missing scope: operator.write",
        details=ErrorDetails(code="MISSING_SCOPE", missingScope="operator.write", requiredScopes=["operator.write"]),
    )
    line = refusal_line(error, url=URL)
    assert line.startswith(f"gateway {URL} refused: missing scope: operator.write (MISSING_SCOPE); ")
    assert "lacks operator.write" in line and "openclaw devices approve" in line


def test_the_gateways_next_step_is_said_in_words() -> None:
    error = GatewayError(
        code="INVALID_REQUEST",
        message="unauthorized",
        details=ErrorDetails(code="AUTH_PASSWORD_MISMATCH", recommendedNextStep="update_auth_credentials"),
    )
    assert refusal_line(error, url=URL).endswith("give the gateway's current token or password (--token / --password)")


def test_device_auth_and_protocol_refusals_say_what_to_do() -> None:
    device = GatewayError(code="INVALID_REQUEST", message="device signature expired")
    device.details = ErrorDetails(code="DEVICE_AUTH_SIGNATURE_EXPIRED", reason="device-signature-stale")
    assert "check this machine's clock" in refusal_line(device, url=URL)
    protocol = GatewayError(code="INVALID_REQUEST", message="protocol mismatch")
    protocol.details = ErrorDetails(code="PROTOCOL_MISMATCH")
    assert "protocol 4" in refusal_line(protocol, url=URL)


def test_unavailable_is_retried_after_what_the_gateway_says() -> None:
    refused = GatewayRefused(
        GatewayError(code="UNAVAILABLE", message="starting", retryable=True, retryAfterMs=1500), url=URL
    )
    assert refused.retryable and refused.retry_after == 1.5


def test_pairing_without_an_id_approves_the_latest() -> None:
    pairing = PairingRequired(url=URL, request_id=None, reason="scope-upgrade")
    assert pairing.approve_command == "openclaw devices approve --latest"
    assert "an upgrade of this device" in pairing.line
