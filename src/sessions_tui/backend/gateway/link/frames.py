"""The OpenClaw gateway's WebSocket frames (protocol 4) as typed models, and its refusal codes.

Three frames cross the socket as JSON text: a request (`req`), its response (`res`, with `ok` and
either `payload` or `error`), and an event (`event`, with an optional `seq`). The handshake's own
shapes are here too: the `connect.challenge` event's payload, the `connect` request's parameters,
and the `hello-ok` payload that answers it. Every model keeps the fields it does not name
(`extra="allow"`): the gateway adds fields between releases, and a client must not refuse them.

`ErrorCode` lists, once, the codes a refusal carries in `error.details.code` (and the few top-level
`error.code`s this client tells apart). The wire shapes are those of the gateway's
`packages/gateway-protocol` (`docs/gateway/protocol/` in the installed package).
"""

from __future__ import annotations

import json
from enum import StrEnum
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter

from sessions_tui.engine.lazy_model import LazyModel

__all__ = [
    "PROTOCOL_VERSION",
    "ClientInfo",
    "ConnectAuth",
    "ConnectChallenge",
    "ConnectParams",
    "DeviceProof",
    "ErrorCode",
    "ErrorDetails",
    "EventFrame",
    "Frame",
    "FrameError",
    "GatewayError",
    "HelloAuth",
    "HelloFeatures",
    "HelloOk",
    "HelloPolicy",
    "HelloServer",
    "RequestFrame",
    "ResponseFrame",
    "encode_frame",
    "parse_frame",
]

PROTOCOL_VERSION = 4
"""The wire protocol this client speaks (`minProtocol` = `maxProtocol`)."""


class ErrorCode(StrEnum):
    """The refusal codes a client acts on: `error.details.code`, or `error.code` for the last two."""

    PAIRING_REQUIRED = "PAIRING_REQUIRED"
    """A device the gateway has not approved; `details.requestId` names the pending request."""
    NOT_PAIRED = "NOT_PAIRED"
    """An older spelling of the same refusal."""
    AUTH_REQUIRED = "AUTH_REQUIRED"
    AUTH_UNAUTHORIZED = "AUTH_UNAUTHORIZED"
    AUTH_TOKEN_MISSING = "AUTH_TOKEN_MISSING"
    AUTH_TOKEN_MISMATCH = "AUTH_TOKEN_MISMATCH"
    AUTH_TOKEN_NOT_CONFIGURED = "AUTH_TOKEN_NOT_CONFIGURED"
    AUTH_PASSWORD_MISSING = "AUTH_PASSWORD_MISSING"
    AUTH_PASSWORD_MISMATCH = "AUTH_PASSWORD_MISMATCH"
    AUTH_PASSWORD_NOT_CONFIGURED = "AUTH_PASSWORD_NOT_CONFIGURED"
    AUTH_DEVICE_TOKEN_MISMATCH = "AUTH_DEVICE_TOKEN_MISMATCH"
    """The stored deviceToken is no longer valid (revoked or rotated): forget it, retry."""
    AUTH_SCOPE_MISMATCH = "AUTH_SCOPE_MISMATCH"
    AUTH_RATE_LIMITED = "AUTH_RATE_LIMITED"
    PROTOCOL_MISMATCH = "PROTOCOL_MISMATCH"
    """The gateway speaks no protocol in [minProtocol, maxProtocol]."""
    CLIENT_VERSION_MISMATCH = "CLIENT_VERSION_MISMATCH"
    DEVICE_IDENTITY_REQUIRED = "DEVICE_IDENTITY_REQUIRED"
    DEVICE_AUTH_INVALID = "DEVICE_AUTH_INVALID"
    DEVICE_AUTH_DEVICE_ID_MISMATCH = "DEVICE_AUTH_DEVICE_ID_MISMATCH"
    DEVICE_AUTH_SIGNATURE_EXPIRED = "DEVICE_AUTH_SIGNATURE_EXPIRED"
    DEVICE_AUTH_NONCE_REQUIRED = "DEVICE_AUTH_NONCE_REQUIRED"
    DEVICE_AUTH_NONCE_MISMATCH = "DEVICE_AUTH_NONCE_MISMATCH"
    DEVICE_AUTH_SIGNATURE_INVALID = "DEVICE_AUTH_SIGNATURE_INVALID"
    DEVICE_AUTH_PUBLIC_KEY_INVALID = "DEVICE_AUTH_PUBLIC_KEY_INVALID"
    MISSING_SCOPE = "MISSING_SCOPE"
    """A method the connection's scopes do not cover (`details.missingScope`)."""
    UNAVAILABLE = "UNAVAILABLE"
    """Top-level `error.code`: retryable (start-up, a full queue); `retryAfterMs` says when."""
    FORBIDDEN = "FORBIDDEN"
    """Top-level `error.code` of a scope refusal (its details carry `MISSING_SCOPE`)."""
    INVALID_REQUEST = "INVALID_REQUEST"
    """Top-level `error.code` of params the method refuses: bad input, or what the state forbids."""


class _Wire(LazyModel):
    """A wire shape: validated lazily, and keeping the fields it does not name."""

    model_config = ConfigDict(defer_build=True, extra="allow")


# -- the three frames ------------------------------------------------------------------------------


class RequestFrame(_Wire):
    """`{"type":"req","id","method","params"}`: a call; its answer is the `res` with the same id."""

    type: Literal["req"] = "req"
    id: str
    method: str
    params: Any = None


class ErrorDetails(_Wire):
    """`error.details`: the refusal's code and what the gateway suggests doing about it."""

    code: str | None = None
    reason: str | None = None
    recommendedNextStep: str | None = None
    requestId: str | None = None
    canRetryWithDeviceToken: bool | None = None
    pauseReconnect: bool | None = None
    missingScope: str | None = None
    requiredScopes: list[str] | None = None
    retryAfterMs: int | None = None


class GatewayError(_Wire):
    """A response's `error`: `{code, message, details?, retryable?, retryAfterMs?}`."""

    code: str
    message: str = ""
    details: ErrorDetails | None = None
    retryable: bool | None = None
    retryAfterMs: int | None = None

    @property
    def detail_code(self) -> str | None:
        """`details.code` when given, else the top-level code (what a client branches on)."""
        if self.details is not None and self.details.code:
            return self.details.code
        return self.code


class ResponseFrame(_Wire):
    """`{"type":"res","id","ok","payload"|"error"}`: the answer to the request with that id."""

    type: Literal["res"] = "res"
    id: str
    ok: bool
    payload: Any = None
    error: GatewayError | None = None


class EventFrame(_Wire):
    """`{"type":"event","event","payload","seq"?,"stateVersion"?}`: something that happened."""

    type: Literal["event"] = "event"
    event: str
    payload: Any = None
    seq: int | None = None
    stateVersion: Any = None


Frame = Annotated[RequestFrame | ResponseFrame | EventFrame, Field(discriminator="type")]
"""Any frame, told apart by its `type`."""


class FrameError(ValueError):
    """A text frame that is not JSON or not one of the three frames."""


@cache
def _frame_adapter() -> TypeAdapter[RequestFrame | ResponseFrame | EventFrame]:
    return TypeAdapter(Frame)


def parse_frame(text: str | bytes) -> RequestFrame | ResponseFrame | EventFrame:
    """The frame a text message holds; `FrameError` when it holds none."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise FrameError(f"not JSON: {exc}") from None
    try:
        return _frame_adapter().validate_python(data)
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        raise FrameError(f"not a gateway frame: {str(exc).splitlines()[0]}") from None


def encode_frame(frame: RequestFrame | ResponseFrame | EventFrame) -> str:
    """The JSON text of a frame, without the fields left at None."""
    return frame.model_dump_json(exclude_none=True)


# -- the handshake ---------------------------------------------------------------------------------


class ConnectChallenge(_Wire):
    """The `connect.challenge` event's payload: the nonce to sign and the time to sign it at."""

    nonce: str = Field(min_length=1)
    ts: int = Field(ge=0)


class ClientInfo(_Wire):
    """`connect.params.client`: which client this is (`id` from the gateway's closed list)."""

    id: str
    version: str
    platform: str
    mode: str
    displayName: str | None = None
    deviceFamily: str | None = None
    instanceId: str | None = None


class ConnectAuth(_Wire):
    """`connect.params.auth`: the shared token or password, or a deviceToken the gateway issued."""

    token: str | None = None
    password: str | None = None
    deviceToken: str | None = None
    bootstrapToken: str | None = None


class DeviceProof(_Wire):
    """`connect.params.device`: the device's public key, its id, and its signature over the challenge."""

    id: str
    publicKey: str
    signature: str
    signedAt: int
    nonce: str


class ConnectParams(_Wire):
    """The `connect` request's parameters."""

    minProtocol: int = PROTOCOL_VERSION
    maxProtocol: int = PROTOCOL_VERSION
    client: ClientInfo
    role: str = "operator"
    scopes: list[str]
    caps: list[str] = Field(default_factory=list)
    auth: ConnectAuth | None = None
    device: DeviceProof | None = None
    locale: str | None = None
    userAgent: str | None = None


class HelloServer(_Wire):
    """`hello-ok.server`: the gateway's version and this connection's id."""

    version: str
    connId: str


class HelloFeatures(_Wire):
    """`hello-ok.features`: the methods and events this gateway offers."""

    methods: list[str] = Field(default_factory=list)
    events: list[str] = Field(default_factory=list)


class HelloAuth(_Wire):
    """`hello-ok.auth`: the role and scopes this socket holds, and a deviceToken when one is issued."""

    role: str
    scopes: list[str] = Field(default_factory=list)
    deviceToken: str | None = None


class HelloPolicy(_Wire):
    """`hello-ok.policy`: frame limits, and how often the gateway ticks (its keep-alive event)."""

    maxPayload: int | None = None
    maxBufferedBytes: int | None = None
    tickIntervalMs: int = 30_000


class HelloOk(_Wire):
    """The payload of a successful `connect`."""

    type: Literal["hello-ok"]
    protocol: int
    server: HelloServer
    features: HelloFeatures
    snapshot: dict[str, Any] = Field(default_factory=dict)
    auth: HelloAuth
    policy: HelloPolicy
