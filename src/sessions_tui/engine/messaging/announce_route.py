"""Where an announce goes and how it leaves: the session's channel route, then the outbox.

An agent-to-agent announce (a2a.py) and a sub-agent's (subagents.py) both end here: the target is
read from the session's key or its stored route, the send policy is asked (docs/decisions.md D6),
and the text is queued in the outbox for the channel's webhook.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from sessions_tui.engine.events import Announced
from sessions_tui.engine.hosts import EngineFloor
from sessions_tui.engine.messaging.outbox import Outbox
from sessions_tui.engine.sessions.entry import SessionEntry
from sessions_tui.engine.sessions.keys import strip_agent_prefix
from sessions_tui.engine.sessions.policy import SendPolicyVerdict

# Channels whose announce goes to the session's stored route (its delivery context, last route or
# origin) even when the key names a group or channel; the key's target is then only the fallback.
SESSION_LOOKUP_CHANNELS = ("whatsapp", "slack")


class AnnounceHost(EngineFloor, Protocol):
    """What an announce needs of the engine, besides its floor: the outbox, the send policy, its refusals."""

    @property
    def outbox(self) -> Outbox: ...

    def send_verdict(self, key: str) -> SendPolicyVerdict: ...

    def refuse(self, key: str, *, via: str, reason: str, requester: str | None = None) -> None: ...


@dataclass(frozen=True)
class AnnounceTarget:
    channel: str
    to: str
    account_id: str | None = None
    thread_id: str | None = None


_KEY_TARGET = re.compile(r"^(?P<channel>[^:]+):(?P<kind>group|channel):(?P<id>.+?)(?::thread:(?P<thread>[^:]+))?$")


def announce_target_from_key(key: str) -> AnnounceTarget | None:
    match = _KEY_TARGET.match(strip_agent_prefix(key))
    if not match:
        return None
    return AnnounceTarget(
        channel=match["channel"], to=f"{match['kind']}:{match['id']}", thread_id=match["thread"] or None
    )


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def announce_target_from_entry(entry: SessionEntry, thread_from_key: str | None) -> AnnounceTarget | None:
    """The route a session's entry records: its delivery context, else its last route, else its origin."""
    delivery = _dict(entry.get("deliveryContext"))
    origin = _dict(entry.get("origin"))
    channel = _str(delivery.get("channel")) or _str(entry.get("lastChannel")) or _str(origin.get("provider"))
    to = _str(delivery.get("to")) or _str(entry.get("lastTo"))
    if not channel or not to:
        return None
    account = _str(delivery.get("accountId")) or _str(entry.get("lastAccountId")) or _str(origin.get("accountId"))
    thread = next(
        (
            v
            for v in (delivery.get("threadId"), entry.get("lastThreadId"), origin.get("threadId"), thread_from_key)
            if v is not None and v != ""
        ),
        None,
    )
    return AnnounceTarget(
        channel=channel, to=to, account_id=account, thread_id=str(thread) if thread is not None else None
    )


def resolve_announce_target(engine: AnnounceHost, key: str) -> AnnounceTarget | None:
    """Where a session's announce goes. A group or channel key names its own target (and thread);
    for the channels of `SESSION_LOOKUP_CHANNELS`, and for keys that name no target, the session's
    stored route is used instead (the key's thread filling in a missing one), else the key's own."""
    from_key = announce_target_from_key(key)
    if from_key is not None and from_key.channel not in SESSION_LOOKUP_CHANNELS:
        return from_key
    session = engine.store.sessions.get(key)
    hydrated = announce_target_from_entry(session.entry, from_key.thread_id if from_key else None) if session else None
    return hydrated or from_key


@dataclass(frozen=True)
class QueuedAnnounce:
    """How an announce left: its delivery state, its outbox row, the policy's refusal."""

    state: str  # forbidden | recorded | pending | none
    outbox_id: int | None = None
    refusal: str | None = None


def queue_announce(
    engine: AnnounceHost,
    *,
    kind: str,
    session_key: str,
    text: str,
    target: AnnounceTarget | None,
    via: str,
    event: dict[str, Any],
) -> QueuedAnnounce:
    """Send an announce to a channel through the outbox, subject to the send policy
    (docs/decisions.md D6): a session the policy forbids to send gets a refusal, not a delivery.
    Says how it left: its delivery state, the outbox row that carries it, or the rule that refused it."""
    verdict = engine.send_verdict(session_key)
    outbox_id: int | None = None
    refusal: str | None = None
    if not verdict.allowed:
        engine.refuse(session_key, via=via, reason=verdict.reason)
        state, refusal = "forbidden", verdict.reason
    elif target is None:
        state = "none"
    else:
        delivery = engine.outbox.enqueue(
            kind=kind,
            message=text,
            session_key=session_key,
            channel=target.channel,
            to=target.to,
            account_id=target.account_id,
            thread_id=target.thread_id,
        )
        state, outbox_id = delivery.state, delivery.id
    engine.events.publish(
        Announced(ts=engine.now(), kind=kind, session_key=session_key, text=text, delivery=state, **event)
    )
    return QueuedAnnounce(state, outbox_id, refusal)
