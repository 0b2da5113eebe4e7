"""A hook request's body read as OpenClaw reads it: the fields of `/hooks/agent` and `/hooks/wake`, or the 400's words.

OpenClaw's `normalizeAgentPayload` and `normalizeWakePayload` (gateway/hooks.ts): a string is taken
trimmed and only when it has text; a field of another type counts as absent, except where the
gateway says so (`agentId`, `sessionKey`, `model`, `to` given but empty; `sessionMode` other than
its two; `waitForCompletion` not a boolean). Delivery: `deliver: false` opts out and drops the
destination; otherwise `channel` and `to` go together, `channel` one this server delivers to (its
`channels`), never `last`. `timeoutSeconds` a positive number, floored, else none. The replay key
is `Idempotency-Key`, else `X-OpenClaw-Idempotency-Key`, else the body's `idempotencyKey`: trimmed,
1–256 characters.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from sessions_tui.backend.values.vocabulary import HookRun, HookWake

MAX_IDEMPOTENCY_KEY = 256


class PayloadRefused(ValueError):
    """The body is not a hook OpenClaw takes; the text is its `error`."""


def _text(value: Any) -> str | None:
    """`normalizeOptionalString`: a string with text, trimmed; else None."""
    return value.strip() or None if isinstance(value, str) else None


def _agent_id(payload: Mapping[str, Any]) -> str | None:
    if "agentId" not in payload:
        return None
    agent = _text(payload["agentId"])
    if agent is None:
        raise PayloadRefused("agentId must be a non-empty string")
    return agent


def channel_error(channels: tuple[str, ...]) -> str:
    return f"channel must be {'|'.join(('last', *channels))}"


def _delivery(payload: Mapping[str, Any], channels: tuple[str, ...]) -> tuple[bool, str | None, str | None]:
    """(deliver, channel, to): OpenClaw's `normalizeHookAgentDelivery`, in its order (an account
    named with a whole destination is taken and not used: a channel here has no accounts)."""
    if payload.get("deliver") is False:
        return False, None, None
    raw = payload.get("channel")
    channel = "last" if "channel" not in payload else raw.strip().lower() if isinstance(raw, str) else None
    if channel not in ("last", *channels):
        raise PayloadRefused(channel_error(channels))
    has_channel, has_to, has_account = "channel" in payload, "to" in payload, "accountId" in payload
    if not (has_channel or has_to or has_account):
        return True, None, None
    to = _text(payload.get("to"))
    if has_to and to is None:
        raise PayloadRefused("to must be a non-empty string for hook delivery")
    if has_account and _text(payload["accountId"]) is None:
        raise PayloadRefused("accountId must be a non-empty string for hook delivery")
    if has_account and (not has_channel or to is None):
        raise PayloadRefused("accountId requires channel and to for hook delivery")
    if not has_channel or to is None:
        raise PayloadRefused("channel and to must be set together for hook delivery")
    if channel == "last":
        raise PayloadRefused("channel must name a concrete channel for hook delivery")
    return True, channel, to


def agent_hook(payload: Mapping[str, Any], channels: tuple[str, ...], path: str) -> HookRun:
    """`POST /hooks/agent`'s body as a `HookRun`, or `PayloadRefused` in OpenClaw's words and order."""
    wait = payload.get("waitForCompletion")
    if "waitForCompletion" in payload and not isinstance(wait, bool):
        raise PayloadRefused("waitForCompletion must be boolean")
    message = _text(payload.get("message"))
    if message is None:
        raise PayloadRefused("message required")
    agent = _agent_id(payload)
    mode = payload.get("sessionMode", "isolated")
    if mode not in ("isolated", "persistent"):
        raise PayloadRefused("sessionMode must be isolated or persistent")
    deliver, channel, to = _delivery(payload, channels)
    model = _text(payload.get("model"))
    if "model" in payload and model is None:
        raise PayloadRefused("model required")
    timeout = payload.get("timeoutSeconds")
    seconds = (
        math.floor(timeout)
        if isinstance(timeout, (int, float))
        and not isinstance(timeout, bool)
        and math.isfinite(timeout)
        and timeout > 0
        else None
    )
    return HookRun(
        message=message,
        name=_text(payload.get("name")) or "Hook",
        agent_id=agent,
        session_key=_text(payload.get("sessionKey")),
        session_mode=mode,
        deliver=deliver,
        channel=channel,
        to=to,
        model=model,
        thinking=_text(payload.get("thinking")),
        timeout_seconds=seconds,
        path=path,
    )


def wake_hook(payload: Mapping[str, Any]) -> HookWake:
    """`POST /hooks/wake`'s body as a `HookWake`, or `PayloadRefused` in OpenClaw's words."""
    text = _text(payload.get("text"))
    if text is None:
        raise PayloadRefused("text required")
    mode = "next-heartbeat" if payload.get("mode") == "next-heartbeat" else "now"
    agent = _agent_id(payload)
    key = _text(payload.get("sessionKey"))
    if "sessionKey" in payload and key is None:
        raise PayloadRefused("sessionKey must be a non-empty string")
    if mode == "next-heartbeat" and key:
        raise PayloadRefused("sessionKey requires mode=now")
    return HookWake(text=text, mode=mode, agent_id=agent, session_key=key)


def idempotency_key(headers: Mapping[str, str], payload: Mapping[str, Any]) -> str | None:
    """The replay key a request gives, if any (headers first)."""
    for value in (
        headers.get("idempotency-key"),
        headers.get("x-openclaw-idempotency-key"),
        payload.get("idempotencyKey"),
    ):
        if isinstance(value, str) and value.strip() and len(value.strip()) <= MAX_IDEMPOTENCY_KEY:
            return value.strip()
    return None
