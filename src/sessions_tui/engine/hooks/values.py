"""What an inbound hook asks and what it gets: the values a face hands the engine and is answered with.

`HookRun` is `POST /hooks/agent`'s body as OpenClaw normalises it (the server checks the fields'
shapes; the engine places it: hooks/policy.py), `HookAdmitted` the answer once its run is queued,
`HookCompletion` what a caller waiting for it learns (OpenClaw's `completion`: the run's status and
whether it replied, never the reply), `HookWake` a `POST /hooks/wake`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from sessions_tui.engine.lazy_model import LazyModel

SessionMode = Literal["isolated", "persistent"]
WakeMode = Literal["now", "next-heartbeat"]
WakeOutcome = Literal["queued", "coalesced"]


class HookRun(LazyModel):
    """An agent run asked for from outside: `message` (wrapped as external content before the
    agent sees it), the hook's `name`, the agent and session it asks for (policy decides), the
    session mode (`isolated`: a fresh session each time; `persistent`: the key's session reused),
    delivery of the reply (`deliver` with a `channel` and `to`: announced through the outbox), and
    the run's model, thinking level and time limit."""

    model_config = ConfigDict(frozen=True)

    message: str
    name: str = "Hook"
    agent_id: str | None = None
    session_key: str | None = None
    session_mode: SessionMode = "isolated"
    deliver: bool = True
    channel: str | None = None
    to: str | None = None
    model: str | None = None
    thinking: str | None = None
    timeout_seconds: int | None = None
    path: str = "/hooks/agent"
    """Where it came in (its source, for the session's record)."""


class HookAdmitted(LazyModel):
    """A hook let in: its run queued (`run_id`) in the session `session_key`."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    session_key: str


class HookCompletion(LazyModel):
    """How an admitted hook's run ended, as OpenClaw's `completion` says it: `status` (`ok`,
    `error`), `reply_disposition` (`visible`, `silent`: it answered NO_REPLY, `empty`), and what
    became of the delivery when one was asked (`delivery_attempted`; `delivery_suppression_reason`
    `empty` or `silent` when there was nothing to deliver)."""

    model_config = ConfigDict(frozen=True)

    status: Literal["ok", "error", "skipped"]
    reply_disposition: Literal["visible", "silent", "empty"] = "empty"
    delivered: bool | None = None
    delivery_attempted: bool | None = None
    delivery_suppression_reason: Literal["empty", "silent"] | None = None

    def wire(self) -> dict[str, object]:
        """As the gateway writes it (camelCase, the unknown left out)."""
        out: dict[str, object] = {"status": self.status, "replyDisposition": self.reply_disposition}
        if self.delivered is not None:
            out["delivered"] = self.delivered
        if self.delivery_attempted is not None:
            out["deliveryAttempted"] = self.delivery_attempted
        if self.delivery_suppression_reason is not None:
            out["deliverySuppressionReason"] = self.delivery_suppression_reason
        return out


class HookWake(LazyModel):
    """A wake from outside: `text` for the session's system events, `now` to run on it at once."""

    model_config = ConfigDict(frozen=True)

    text: str
    mode: WakeMode = "now"
    agent_id: str | None = None
    session_key: str | None = None
