"""The send service: what happens to a `sessions_send` once it names a session, told to the send ledger.

The tool decides (resolution, visibility, the wait); the service records what it decided, each
in a method named for what happened, so the ledger's states and their details are written in one
place of the engine (engine/messaging/ledger.py keeps them) and no tool writes the ledger.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sessions_tui.engine.messaging.ledger import SendLedger
from sessions_tui.engine.messaging.send_states import SendState

_GATEWAY_STATES: dict[str, SendState] = {
    "ok": "replied",
    "timeout": "timeout",
    "error": "error",
    "forbidden": "forbidden",
}
"""A gateway's answer status as the ledger's state."""


@dataclass(frozen=True)
class Send:
    """One send: who sends what to which session, how (a model's tool call or the owner), along which chain."""

    ledger: SendLedger
    requester: str | None
    target: str
    message: str
    via: str
    chain: list[str]

    def _open(self, run_id: str, state: SendState = "accepted", detail: dict[str, Any] | None = None) -> None:
        self.ledger.open(
            run_id=run_id,
            requester=self.requester,
            target=self.target,
            message=self.message,
            via=self.via,
            chain=self.chain,
            state=state,
            detail=detail,
        )

    def refused(self, run_id: str, *, forbidden: bool, error: str) -> None:
        """Refused before any run (visibility, sandbox, policy, no such session)."""
        self._open(run_id, "forbidden" if forbidden else "error", {"error": error})

    def blocked(self, run_id: str, error: str, rule: str) -> None:
        """Refused by the target session's send policy when its run was asked for."""
        self._open(run_id, "forbidden", {"error": error, "rule": rule})

    def accepted(self, run_id: str) -> None:
        """Its run is queued (the run's start is marked when it starts)."""
        self._open(run_id)

    def answered_by_gateway(self, run_id: str, answer: dict[str, Any]) -> None:
        """The session is OpenClaw's: its gateway ran the send and answered."""
        self._open(run_id)
        state = _GATEWAY_STATES.get(str(answer.get("status")))
        if state is not None:
            text = answer.get("reply") if state == "replied" else answer.get("error")
            self.ledger.mark(run_id, state, {"text" if state == "replied" else "error": text})

    def timed_out(self, run_id: str, waited_ms: int) -> None:
        """No reply within the wait; the run goes on."""
        self.ledger.mark(run_id, "timeout", {"waitedMs": waited_ms})

    def failed(self, run_id: str, error: str) -> None:
        """Its run ended in an error (aborted, killed, timed out in the run)."""
        self.ledger.mark(run_id, "error", {"error": error})

    def replied(self, run_id: str, reply: str | None) -> None:
        """Its run ended; `reply` is the new reply (None: the run said nothing new)."""
        self.ledger.mark(run_id, "replied", {"text": reply} if reply is not None else None)


class SendService:
    """`engine.sends`: a `Send` for each send a tool makes, recording into the engine's ledger."""

    def __init__(self, ledger: SendLedger) -> None:
        self._ledger = ledger

    def send(self, *, requester: str | None, target: str, message: str, via: str, chain: list[str]) -> Send:
        return Send(self._ledger, requester, target, message, via, list(chain))
