"""Agent-to-agent messaging after a send: ping-pong between the two sessions, then an announce.

After the target's first reply, the requester and the target take turns answering each other
(up to `session.agentToAgent.maxPingPongTurns`, stopped by an exact `REPLY_SKIP`); then the
target runs an announce step whose reply goes to the target's channel through the outbox,
unless it is exactly `ANNOUNCE_SKIP`. All of it runs in the background and never raises.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, Protocol

from sessions_tui.engine.assistant_text import extract_assistant_text
from sessions_tui.engine.events import Announced, SendProgress
from sessions_tui.engine.hosts import EngineFloor
from sessions_tui.engine.keys import strip_agent_prefix
from sessions_tui.engine.outbox import Outbox
from sessions_tui.engine.policy import SendPolicyVerdict
from sessions_tui.engine.refusals import SendBlocked
from sessions_tui.engine.runs import RunRequest, Runs
from sessions_tui.engine.sanitize import strip_tool_messages
from sessions_tui.engine.store import dumps

log = logging.getLogger(__name__)

REPLY_SKIP = "REPLY_SKIP"
ANNOUNCE_SKIP = "ANNOUNCE_SKIP"
REPLY_HISTORY_LIMIT = 50
MAX_PING_PONG_TURNS = 5
ANNOUNCE_STEP_MESSAGE = "Agent-to-agent announce step."
STEP_WAIT_CAP_MS = 60_000
# Channels whose announce goes to the session's stored route (its delivery context, last route or
# origin) even when the key names a group or channel; the key's target is then only the fallback.
SESSION_LOOKUP_CHANNELS = ("whatsapp", "slack")


class A2AHost(EngineFloor, Protocol):
    """What agent-to-agent messaging needs of the engine, besides its floor: the runs (to wait on
    a step), the outbox (announces), the send policy and its refusals, and the way into a session."""

    @property
    def runs(self) -> Runs[Any]: ...

    @property
    def outbox(self) -> Outbox: ...

    def send_verdict(self, key: str) -> SendPolicyVerdict: ...

    def refuse(self, key: str, *, via: str, reason: str, requester: str | None = None) -> None: ...

    def agent(self, request: RunRequest, *, via: str, requester: str | None = None) -> str: ...


def is_reply_skip(text: str | None) -> bool:
    return text is not None and text.strip() == REPLY_SKIP


def is_announce_skip(text: str | None) -> bool:
    return text is not None and text.strip() == ANNOUNCE_SKIP


@dataclass(frozen=True)
class ReplySnapshot:
    text: str
    fingerprint: str


def latest_assistant_reply(engine: A2AHost, session_key: str, limit: int = REPLY_HISTORY_LIMIT) -> ReplySnapshot | None:
    """The newest assistant message with text, and a fingerprint to tell a new one from a stale one."""
    messages = strip_tool_messages(engine.store.history(session_key, limit=limit).messages)
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            text = extract_assistant_text(message)
            if text:
                return ReplySnapshot(text=text, fingerprint=dumps(message))
    return None


def _lines(*pairs: tuple[str, str | None]) -> list[str]:
    return [f"{label}{value}." for label, value in pairs if value]


def message_context(requester_key: str | None, requester_channel: str | None, target_display: str) -> str:
    """The a2a message context the target's first run gets as system text."""
    return "\n".join(
        [
            "Agent-to-agent message context:",
            *_lines(
                ("Agent 1 (requester) session: ", requester_key),
                ("Agent 1 (requester) channel: ", requester_channel),
                ("Agent 2 (target) session: ", target_display),
            ),
        ]
    )


def reply_step_prompt(
    *,
    current_is_requester: bool,
    turn: int,
    max_turns: int,
    requester_key: str,
    requester_channel: str | None,
    target_display: str,
    target_channel: str,
) -> str:
    return "\n".join(
        [
            "Agent-to-agent reply step:",
            "Current agent: Agent 1 (requester)." if current_is_requester else "Current agent: Agent 2 (target).",
            f"Turn {turn} of {max_turns}.",
            *_lines(
                ("Agent 1 (requester) session: ", requester_key),
                ("Agent 1 (requester) channel: ", requester_channel),
                ("Agent 2 (target) session: ", target_display),
                ("Agent 2 (target) channel: ", target_channel),
            ),
            'If you want to stop the ping-pong, reply exactly "REPLY_SKIP".',
        ]
    )


def announce_step_prompt(
    *,
    requester_key: str | None,
    requester_channel: str | None,
    target_display: str,
    target_channel: str,
    original: str,
    round_one: str | None,
    latest: str | None,
) -> str:
    return "\n".join(
        [
            "Agent-to-agent announce step:",
            *_lines(
                ("Agent 1 (requester) session: ", requester_key),
                ("Agent 1 (requester) channel: ", requester_channel),
                ("Agent 2 (target) session: ", target_display),
                ("Agent 2 (target) channel: ", target_channel),
            ),
            f"Original request: {original}",
            f"Round 1 reply: {round_one}" if round_one else "Round 1 reply: (not available).",
            f"Latest reply: {latest}" if latest else "Latest reply: (not available).",
            'If you want to remain silent, reply exactly "ANNOUNCE_SKIP".',
            "Any other reply will be posted to the target channel.",
            "After this reply, the agent-to-agent conversation is over.",
        ]
    )


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


def announce_target_from_entry(entry: dict[str, Any], thread_from_key: str | None) -> AnnounceTarget | None:
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


def resolve_announce_target(engine: A2AHost, key: str) -> AnnounceTarget | None:
    """Where a session's announce goes. A group or channel key names its own target (and thread);
    for the channels of `SESSION_LOOKUP_CHANNELS`, and for keys that name no target, the session's
    stored route is used instead (the key's thread filling in a missing one), else the key's own."""
    from_key = announce_target_from_key(key)
    if from_key is not None and from_key.channel not in SESSION_LOOKUP_CHANNELS:
        return from_key
    session = engine.store.get(key)
    hydrated = announce_target_from_entry(session.entry, from_key.thread_id if from_key else None) if session else None
    return hydrated or from_key


def deliver_announce(
    engine: A2AHost,
    *,
    kind: str,
    session_key: str,
    text: str,
    target: AnnounceTarget | None,
    via: str,
    event: dict[str, Any],
) -> str:
    """Send an announce to a channel through the outbox, subject to the send policy
    (docs/decisions.md D6): a session the policy forbids to send gets a refusal, not a delivery.

    Returns the delivery state: forbidden, recorded, pending, or none (no channel to post to).
    """
    verdict = engine.send_verdict(session_key)
    if not verdict.allowed:
        engine.refuse(session_key, via=via, reason=verdict.reason)
        state = "forbidden"
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
        state = delivery.state
    engine.events.publish(
        Announced(ts=engine.now(), kind=kind, session_key=session_key, text=text, delivery=state, **event)
    )
    return state


@dataclass
class A2AFlow:
    """One send's background conversation: ping-pong between requester and target, then announce."""

    engine: A2AHost
    run_id: str  # the send's run (events are tagged with it)
    target_key: str
    target_display: str
    message: str
    announce_timeout_ms: int
    requester_key: str | None
    requester_channel: str | None
    round_one_reply: str | None = None
    wait_run_id: str | None = None

    def _progress(self, phase: str, **fields: Any) -> None:
        self.engine.events.publish(
            SendProgress(ts=self.engine.now(), run_id=self.run_id, target_key=self.target_key, phase=phase, **fields)
        )

    async def _step(
        self,
        session_key: str,
        message: str,
        prompt: str,
        source_key: str | None,
        source_channel: str | None,
        timeout_ms: int,
    ) -> str | None:
        provenance = {
            "kind": "inter_session",
            "sourceSessionKey": source_key,
            "sourceChannel": source_channel,
            "sourceTool": "sessions_send",
        }
        try:
            run_id = self.engine.agent(
                RunRequest(
                    session_key=session_key,
                    message=message,
                    extra_system_prompt=prompt,
                    provenance=provenance,
                    lane="nested",
                    internal=True,
                ),
                via="sessions_send",
                requester=source_key,
            )
        except SendBlocked:
            return None
        wait = await self.engine.runs.wait(run_id, min(timeout_ms, STEP_WAIT_CAP_MS))
        if wait.status != "ok":
            return None
        snapshot = latest_assistant_reply(self.engine, session_key)
        return snapshot.text if snapshot else None

    async def run(self) -> None:
        try:
            await self._run()
        except Exception:  # noqa: BLE001 - background work never raises into anyone
            log.exception("sessions_send a2a flow failed")
        finally:
            self._progress("done")

    async def _run(self) -> None:
        engine = self.engine
        primary = self.round_one_reply
        if primary is None and self.wait_run_id:
            wait = await engine.runs.wait(self.wait_run_id, min(self.announce_timeout_ms, STEP_WAIT_CAP_MS))
            if wait.status == "ok":
                snapshot = latest_assistant_reply(engine, self.target_key)
                primary = snapshot.text if snapshot else None
        if not primary:
            return
        self._progress("reply", speaker=self.target_key, text=primary)
        latest = primary
        target = resolve_announce_target(engine, self.target_key)
        target_channel = target.channel if target else "unknown"
        max_turns = max(0, min(MAX_PING_PONG_TURNS, engine.config.session.agent_to_agent.max_ping_pong_turns))
        requester = self.requester_key
        if max_turns > 0 and requester and requester != self.target_key:
            current, following, incoming = requester, self.target_key, latest
            for turn in range(1, max_turns + 1):
                current_is_requester = current == requester
                prompt = reply_step_prompt(
                    current_is_requester=current_is_requester,
                    turn=turn,
                    max_turns=max_turns,
                    requester_key=requester,
                    requester_channel=self.requester_channel,
                    target_display=self.target_display,
                    target_channel=target_channel,
                )
                source_channel = self.requester_channel if following == requester else target_channel
                reply = await self._step(current, incoming, prompt, following, source_channel, self.announce_timeout_ms)
                if not reply or is_reply_skip(reply):
                    self._progress(
                        "ping_pong",
                        turn=turn,
                        max_turns=max_turns,
                        speaker=current,
                        text=reply,
                        detail={"stopped": True},
                    )
                    break
                self._progress("ping_pong", turn=turn, max_turns=max_turns, speaker=current, text=reply)
                latest = incoming = reply
                current, following = following, current
        self._progress("announce", speaker=self.target_key)
        prompt = announce_step_prompt(
            requester_key=requester,
            requester_channel=self.requester_channel,
            target_display=self.target_display,
            target_channel=target_channel,
            original=self.message,
            round_one=primary,
            latest=latest,
        )
        announce = await self._step(
            self.target_key, ANNOUNCE_STEP_MESSAGE, prompt, requester, self.requester_channel, self.announce_timeout_ms
        )
        if not announce or not announce.strip() or is_announce_skip(announce):
            self._progress("announce", speaker=self.target_key, text=announce, detail={"skipped": True})
            return
        deliver_announce(
            engine,
            kind="a2a",
            session_key=self.target_key,
            text=announce.strip(),
            target=target,
            via="a2a_announce",
            event={"run_id": self.run_id},
        )
