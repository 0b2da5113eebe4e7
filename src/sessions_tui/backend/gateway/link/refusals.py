"""What a gateway's refusal means for the person running sessions-tui: one line each, typed.

A refused `connect` is one of three things. `PairingRequired` is an outcome, not a failure: the
gateway has filed a pairing request for this device, the owner approves it (`openclaw devices
approve <requestId>`, or the Control UI's Devices page), and the client connects by itself once
approved. `GatewayRefused` is every other refusal, with one line that says what to do, in the
gateway's `recommendedNextStep` words where it gives them; `retryable` ones (start-up, a full
queue) are retried quietly. `RequestFailed` is a method's `ok: false` on a live connection.
"""

from __future__ import annotations

from dataclasses import dataclass

from sessions_tui.backend.gateway.link.frames import ErrorCode, GatewayError

__all__ = [
    "ConnectionLost",
    "GatewayRefused",
    "PairingRequired",
    "RequestFailed",
    "approve_command",
    "refusal_line",
]

_NEXT_STEP = {
    "update_auth_configuration": "update the gateway's auth configuration (gateway.auth)",
    "update_auth_credentials": "give the gateway's current token or password (--token / --password)",
    "wait_then_retry": "wait, then retry",
    "review_auth_configuration": "review the gateway's auth configuration (gateway.auth)",
}
"""The gateway's `recommendedNextStep` values, in words (`connect-error-details.ts`)."""

_ADVICE: dict[str, str] = {
    ErrorCode.AUTH_TOKEN_MISMATCH: "the token is not this gateway's gateway.auth.token: give the right one (--token)",
    ErrorCode.AUTH_TOKEN_MISSING: "this gateway wants its token: give it (--token)",
    ErrorCode.AUTH_PASSWORD_MISMATCH: "the password is not this gateway's: give the right one (--password)",
    ErrorCode.AUTH_PASSWORD_MISSING: "this gateway wants its password: give it (--password)",
    ErrorCode.AUTH_DEVICE_TOKEN_MISMATCH: "the stored deviceToken was revoked or rotated: connect with the token",
    ErrorCode.AUTH_SCOPE_MISMATCH: "this device is approved for other scopes: approve the new request "
    "(openclaw devices list, then openclaw devices approve <id>)",
    ErrorCode.AUTH_RATE_LIMITED: "too many failed attempts: wait, then retry",
    ErrorCode.PROTOCOL_MISMATCH: "this gateway does not speak protocol 4: update OpenClaw (2026.9 or later)",
    ErrorCode.CLIENT_VERSION_MISMATCH: "this gateway refuses this client's version: update sessions-tui",
    ErrorCode.DEVICE_IDENTITY_REQUIRED: "this gateway wants a device identity",
    ErrorCode.MISSING_SCOPE: "approve the device for that scope on the gateway (openclaw devices approve)",
}
_DEVICE_AUTH_ADVICE = (
    "the gateway refused this device's proof: check this machine's clock, "
    "or delete sessions-tui's gateway identity to make a new one"
)


def approve_command(request_id: str) -> str:
    """The command that approves a pairing request on the gateway's machine."""
    return f"openclaw devices approve {request_id}"


def refusal_line(error: GatewayError, *, url: str) -> str:
    """One line: who refused, the gateway's own message and code, and what to do."""
    code = error.detail_code or error.code
    message = error.message.strip() or "refused"
    details = error.details
    next_step = details.recommendedNextStep if details is not None else None
    # The client makes the one retry with a stored deviceToken itself: when a refusal still says
    # to, there was none to offer, or it failed too; what is left to do is the code's advice.
    step = _NEXT_STEP.get(next_step or "") if next_step != "retry_with_device_token" else None
    advice = step or _ADVICE.get(code)
    if advice is None and code.startswith("DEVICE_AUTH_"):
        advice = _DEVICE_AUTH_ADVICE
    if code == ErrorCode.MISSING_SCOPE and details is not None and details.missingScope:
        advice = f"this connection lacks {details.missingScope}: {advice or _ADVICE[ErrorCode.MISSING_SCOPE]}"
    line = f"gateway {url} refused: {message} ({code})"
    return f"{line}; {advice}" if advice else line


class GatewayRefused(Exception):
    """A refusal: `line` says it in one line; `retryable` ones pass (start-up, a full queue)."""

    def __init__(self, error: GatewayError, *, url: str) -> None:
        self.error = error
        self.url = url
        self.code = error.detail_code or error.code
        self.line = refusal_line(error, url=url)
        retry_after = error.retryAfterMs
        if retry_after is None and error.details is not None:
            retry_after = error.details.retryAfterMs
        self.retry_after = retry_after / 1000.0 if retry_after is not None else None
        self.retryable = bool(error.retryable) or error.code == ErrorCode.UNAVAILABLE
        super().__init__(self.line)


class RequestFailed(Exception):
    """A method answered `ok: false` on a live connection."""

    def __init__(self, method: str, error: GatewayError, *, url: str) -> None:
        self.method = method
        self.error = error
        self.code = error.detail_code or error.code
        self.line = refusal_line(error, url=url).replace(" refused:", f" refused {method}:", 1)
        super().__init__(self.line)


class ConnectionLost(ConnectionError):
    """The socket closed before the answer came (the request may or may not have run)."""


@dataclass(frozen=True, slots=True)
class PairingRequired:
    """The gateway filed a pairing request for this device; its owner approves it, then we connect."""

    url: str
    request_id: str | None
    reason: str | None = None
    """`not-paired`, `role-upgrade`, `scope-upgrade` or `metadata-upgrade`."""

    @property
    def approve_command(self) -> str:
        """`openclaw devices approve <requestId>` (with `--latest` when the gateway gave no id)."""
        return approve_command(self.request_id) if self.request_id else "openclaw devices approve --latest"

    @property
    def line(self) -> str:
        """One line for the dashboard's header or the command line's stderr."""
        what = "an upgrade of this device" if self.reason and self.reason != "not-paired" else "this device"
        return (
            f"gateway {self.url} asks its owner to approve {what}: run `{self.approve_command}` on the "
            "gateway's machine (or approve it on the Control UI's Devices page); waiting…"
        )
