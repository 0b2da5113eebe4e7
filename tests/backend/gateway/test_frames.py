"""Every frame the real gateway exchanged with our client parses with the protocol's models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessions_tui.backend.gateway.link.frames import (
    ConnectChallenge,
    ConnectParams,
    ErrorCode,
    EventFrame,
    FrameError,
    HelloOk,
    RequestFrame,
    ResponseFrame,
    encode_frame,
    parse_frame,
)

WS = Path(__file__).resolve().parents[2] / "fixtures" / "openclaw-2026.9.6" / "ws"
STEPS = sorted(p.stem for p in WS.glob("*.jsonl"))


def recorded(step: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (WS / f"{step}.jsonl").read_text(encoding="utf-8").splitlines()]


def test_every_step_was_recorded() -> None:
    assert STEPS == [
        "chat_history",
        "chat_send",
        "device_token",
        "handshake",
        "messages_subscribe",
        "pairing_required",
        "sessions_abort",
        "sessions_subscribe",
        "token_mismatch",
    ]


@pytest.mark.parametrize("step", STEPS)
def test_every_recorded_frame_parses(step: str) -> None:
    for line in recorded(step):
        frame = parse_frame(json.dumps(line["frame"]))
        expected = {"req": RequestFrame, "res": ResponseFrame, "event": EventFrame}[line["frame"]["type"]]
        assert isinstance(frame, expected)
        assert (line["dir"] == ">") == isinstance(frame, RequestFrame)
        # What was sent comes back as it was (fields at None are left out).
        assert json.loads(encode_frame(frame)) == line["frame"]


def test_the_handshake_parses_into_its_shapes() -> None:
    challenge, connect, hello, *_ = [parse_frame(json.dumps(line["frame"])) for line in recorded("handshake")]
    assert isinstance(challenge, EventFrame) and challenge.event == "connect.challenge"
    assert ConnectChallenge.model_validate(challenge.payload).ts > 0
    assert isinstance(connect, RequestFrame) and connect.method == "connect"
    params = ConnectParams.model_validate(connect.params)
    assert (params.minProtocol, params.maxProtocol, params.role) == (4, 4, "operator")
    assert params.scopes == ["operator.read", "operator.write"] and "tool-events" in params.caps
    assert isinstance(hello, ResponseFrame) and hello.ok and hello.id == connect.id
    ok = HelloOk.model_validate(hello.payload)
    assert ok.protocol == 4 and ok.server.version == "2026.9.6"
    assert ok.auth.scopes == ["operator.read", "operator.write"] and ok.auth.deviceToken == "<deviceToken>"
    assert {"sessions.subscribe", "chat.send", "sessions.abort"} <= set(ok.features.methods)
    assert {"sessions.changed", "session.message", "chat", "agent", "tick"} <= set(ok.features.events)
    assert ok.policy.tickIntervalMs > 0


def test_the_refusals_carry_their_codes() -> None:
    pairing = parse_frame(json.dumps(recorded("pairing_required")[-1]["frame"]))
    assert isinstance(pairing, ResponseFrame) and not pairing.ok and pairing.error is not None
    assert pairing.error.detail_code == ErrorCode.PAIRING_REQUIRED
    assert pairing.error.details is not None and pairing.error.details.requestId
    mismatch = parse_frame(json.dumps(recorded("token_mismatch")[-1]["frame"]))
    assert isinstance(mismatch, ResponseFrame) and mismatch.error is not None
    assert mismatch.error.detail_code == ErrorCode.AUTH_TOKEN_MISMATCH
    assert mismatch.error.details is not None
    assert mismatch.error.details.recommendedNextStep == "retry_with_device_token"


def test_a_run_is_seen_through_its_events() -> None:
    frames = [parse_frame(json.dumps(line["frame"])) for line in recorded("chat_send")]
    names = {f.event for f in frames if isinstance(f, EventFrame)}
    assert {"sessions.changed", "session.message", "chat", "agent"} <= names


@pytest.mark.parametrize("text", ["not json", "[]", '{"type": "nope"}', '{"type": "res", "ok": true}'])
def test_what_is_no_frame_is_refused(text: str) -> None:
    with pytest.raises(FrameError):
        parse_frame(text)
