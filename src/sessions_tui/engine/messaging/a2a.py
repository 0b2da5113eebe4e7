"""Agent-to-agent messaging after a send: ping-pong between the two sessions, then an announce.

After the target's first reply, the requester and the target take turns answering each other
(up to `session.agentToAgent.maxPingPongTurns`, stopped by an exact `REPLY_SKIP`); then the
target runs an announce step whose reply goes to the target's channel through the outbox,
unless it is exactly `ANNOUNCE_SKIP`. All of it runs in the background and never raises. Each step
is marked in the send ledger (engine/messaging/ledger.py) under the send's run id, and the ledger knows this
process runs the flow until it is over: a flow the process stopped in (killed, or closed before
the flow finished) is ended as interrupted by the next one (engine/runs/recovery.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from sessions_tui.engine.events import SendProgress
from sessions_tui.engine.hosts import EngineFloor
from sessions_tui.engine.messaging.announce_route import AnnounceHost, queue_announce, resolve_announce_target
from sessions_tui.engine.messaging.ledger import SendLedger
from sessions_tui.engine.redaction.assistant_text import extract_assistant_text
from sessions_tui.engine.redaction.sanitize import strip_tool_messages
from sessions_tui.engine.runs.runs import RunRequest, Runs
from sessions_tui.engine.sessions.refusals import SendBlocked
from sessions_tui.engine.store.codec import dumps

log = logging.getLogger(__name__)

REPLY_SKIP = "REPLY_SKIP"
ANNOUNCE_SKIP = "ANNOUNCE_SKIP"
REPLY_HISTORY_LIMIT = 50
MAX_PING_PONG_TURNS = 5
ANNOUNCE_STEP_MESSAGE = "Agent-to-agent announce step."
STEP_WAIT_CAP_MS = 60_000
LATE_REPLY_WAIT_MS = 2**31 - 1  # a run's own timeout ends it first
FLOW_FAILED = "the agent-to-agent flow failed"  # the send's end in the ledger (the log says why)


class A2AHost(AnnounceHost, Protocol):
    """What agent-to-agent messaging needs of the engine, besides an announce's: the runs (to wait
    on a step), the send ledger, the way into a session, and background work (the flow itself)."""

    @property
    def runs(self) -> Runs[Any]: ...

    @property
    def ledger(self) -> SendLedger: ...

    def agent(self, request: RunRequest, *, via: str, requester: str | None = None) -> str: ...

    def background(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]: ...


def is_reply_skip(text: str | None) -> bool:
    return text is not None and text.strip() == REPLY_SKIP


def is_announce_skip(text: str | None) -> bool:
    return text is not None and text.strip() == ANNOUNCE_SKIP


@dataclass(frozen=True)
class ReplySnapshot:
    text: str
    fingerprint: str


def latest_assistant_reply(
    engine: EngineFloor, session_key: str, limit: int = REPLY_HISTORY_LIMIT
) -> ReplySnapshot | None:
    """The newest assistant message with text, and a fingerprint to tell a new one from a stale one."""
    messages = strip_tool_messages(engine.store.transcripts.history(session_key, limit=limit).messages)
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            text = extract_assistant_text(message)
            if text:
                return ReplySnapshot(text=text, fingerprint=dumps(message))
    return None


async def watch_late_reply(engine: A2AHost, run_id: str, session_key: str, baseline: ReplySnapshot | None) -> None:
    """After a wait gave up on a send's run: its reply, when it comes, marked `late_reply` in the
    ledger (a new one only, never `baseline`); a run that fails instead is marked `error`."""
    wait = await engine.runs.wait(run_id, LATE_REPLY_WAIT_MS)
    if wait.status == "ok":
        snapshot = latest_assistant_reply(engine, session_key)
        if snapshot and (baseline is None or snapshot.fingerprint != baseline.fingerprint):
            engine.ledger.mark(run_id, "late_reply", {"text": snapshot.text})
    elif wait.status != "timeout":
        engine.ledger.mark(run_id, "error", {"error": wait.error or "agent error"})


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
    chain: tuple[str, ...] = ()  # the send's chain: its steps carry it, they are no new hops (D19)

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
                    chain=list(self.chain),
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

    def start(self) -> None:
        """Run the flow in the background, the send ledger told this process runs it (written with
        the state marked just before, so no moment of the send is left without its owner)."""
        self.engine.ledger.flow_began(self.run_id)
        self.engine.background(self.run())

    async def run(self) -> None:
        try:
            await self._run()
        except Exception:  # noqa: BLE001 - background work never raises into anyone
            log.exception("sessions_send a2a flow failed")
            self.engine.ledger.mark(self.run_id, "error", {"error": FLOW_FAILED})
            self.engine.ledger.flow_ended(self.run_id)
        else:
            # Written with the flow's last state. Cancelled instead (the process closing), the
            # flow stays this process's: the next process ends it, as a run left running.
            self.engine.ledger.flow_ended(self.run_id)
        finally:
            self._progress("done")

    async def _run(self) -> None:
        engine = self.engine
        ledger = engine.ledger
        primary = self.round_one_reply
        if primary is None and self.wait_run_id:
            wait = await engine.runs.wait(self.wait_run_id, min(self.announce_timeout_ms, STEP_WAIT_CAP_MS))
            if wait.status == "ok":
                snapshot = latest_assistant_reply(engine, self.target_key)
                primary = snapshot.text if snapshot else None
                ledger.mark(self.run_id, "replied", {"text": primary} if primary else None)
            elif wait.status == "timeout" and wait.ended_at is None:
                ledger.mark(self.run_id, "timeout", {"waitedMs": min(self.announce_timeout_ms, STEP_WAIT_CAP_MS)})
                await watch_late_reply(engine, self.wait_run_id, self.target_key, None)
            else:
                ledger.mark(self.run_id, "error", {"error": wait.error or "agent error"})
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
                spoken = REPLY_SKIP if is_reply_skip(reply) else reply
                ledger.mark(self.run_id, "pingpong", {"turn": turn, "speaker": current, "text": spoken})
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
            ledger.mark(self.run_id, "announce_skipped", {"text": announce} if announce else None)
            return
        queued = queue_announce(
            engine,
            kind="a2a",
            session_key=self.target_key,
            text=announce.strip(),
            target=target,
            via="a2a_announce",
            event={"run_id": self.run_id},
        )
        detail: dict[str, Any] = {"text": announce.strip(), "delivery": queued.state}
        if queued.outbox_id is not None:
            detail["outboxId"] = queued.outbox_id
        ledger.mark(self.run_id, "announce", detail)
        if queued.refusal is not None:
            ledger.mark(self.run_id, "delivery_failed", {"error": f"send blocked by session policy: {queued.refusal}"})
