"""Typed engine events and the bus that carries them to subscribers (the dashboard, the CLI).

Events describe what happened, never how to draw it. Publishing is synchronous and never
fails: a subscriber that raises is logged and skipped, so a broken view cannot stop a run.
"""

import logging
from collections.abc import Callable
from typing import Any, Literal

from pydantic import Field

from sessions_tui.engine.lazy_model import LazyModel
from sessions_tui.engine.run_end import RunEnd
from sessions_tui.engine.sessions.live_status import LiveStatus

log = logging.getLogger(__name__)


class _Event(LazyModel):
    ts: int = 0


class SessionChanged(_Event):
    """A session's index entry changed (created, patched, usage, status, archived)."""

    type: Literal["session_changed"] = "session_changed"
    session_key: str


class MessageAppended(_Event):
    type: Literal["message_appended"] = "message_appended"
    session_key: str
    role: str = ""
    seq: int | None = None
    text: str | None = None
    """The message's text, redacted, when the event brought it (a gateway's `session.message`);
    None: read the transcript for it."""


class RunStarted(_Event):
    type: Literal["run_started"] = "run_started"
    run_id: str
    session_key: str
    lane: str = ""


class RunStreamed(_Event):
    """A piece of text or thinking as the model produces it."""

    type: Literal["run_streamed"] = "run_streamed"
    run_id: str
    session_key: str
    kind: Literal["text", "thinking"] = "text"
    delta: str = ""


class RunEnded(_Event):
    type: Literal["run_ended"] = "run_ended"
    run_id: str
    session_key: str
    status: RunEnd
    error: str | None = None


class SendProgress(_Event):
    """Where a `sessions_send` is: waiting, ping-pong turns, the announce step, done."""

    type: Literal["send_progress"] = "send_progress"
    run_id: str
    target_key: str
    phase: Literal["waiting", "reply", "ping_pong", "announce", "done"]
    turn: int | None = None
    max_turns: int | None = None
    speaker: str | None = None  # the session that just spoke
    text: str | None = None
    detail: dict[str, Any] = Field(default_factory=dict)


class Announced(_Event):
    """An announce left a session for its channel (a2a) or reached a requester (sub-agent)."""

    type: Literal["announced"] = "announced"
    kind: Literal["a2a", "subagent", "cron"]
    session_key: str
    text: str
    run_id: str | None = None
    child_session_key: str | None = None
    status: str | None = None
    delivery: str | None = None  # outbox state: queued, delivered, recorded, failed, forbidden


class PolicyRefused(_Event):
    type: Literal["policy_refused"] = "policy_refused"
    session_key: str
    via: str
    reason: str
    requester: str | None = None  # the session whose send was refused, when a session sent it


class DeliveryChanged(_Event):
    type: Literal["delivery_changed"] = "delivery_changed"
    outbox_id: int
    state: str
    session_key: str | None = None
    error: str | None = None


class SendLedgerChanged(_Event):
    """A send's ledger entry was opened or reached a new state (engine/messaging/ledger.py)."""

    type: Literal["send_ledger_changed"] = "send_ledger_changed"
    run_id: str
    state: str


class StoreChanged(_Event):
    """Another process wrote to the state directory (noticed through SQLite's data_version)."""

    type: Literal["store_changed"] = "store_changed"


class FollowStatus(_Event):
    """How following an OpenClaw state directory goes (`sessions-tui --openclaw DIR`)."""

    type: Literal["follow_status"] = "follow_status"
    root: str
    failure: str | None = None  # what fails right now; None while following
    changed: int = 0  # sessions the tick brought up to date


class LinkChanged(_Event):
    """How a backend's connection to a server stands (a gateway's socket): `state` is `connecting`,
    `connected`, `reconnecting`, `pairing` (waiting for the owner to approve this device), `refused`
    or `closed`; `line` says what to do, when there is something to do (the pairing command, a refusal)."""

    type: Literal["link_changed"] = "link_changed"
    location: str
    state: str
    line: str | None = None


class HookReceived(_Event):
    """An inbound hook was let in (`POST /hooks/agent` or `/hooks/wake` on `serve`): `name` is the
    hook's (its `name` field, "Hook" when it gave none; a wake's is "Wake"), `run_id` the run it
    started (none for a wake only queued)."""

    type: Literal["hook_received"] = "hook_received"
    session_key: str
    name: str
    kind: Literal["agent", "wake"] = "agent"
    run_id: str | None = None


class CronRunStarted(_Event):
    """A scheduled job's run began in its session (engine/cron/runner.py): `trigger` is how it was
    claimed (`due`, `catch-up` or `manual`, as the run's row says)."""

    type: Literal["cron_run_started"] = "cron_run_started"
    session_key: str
    job_id: str
    job_name: str
    run_id: str
    trigger: str = ""


class StatusChanged(_Event):
    """A session's live status changed (`engine/sessions/live_status.py`): `previous` is None the
    first time a watcher says it. Published by whoever keeps the statuses (a backend's status board),
    not by the engine's runs."""

    type: Literal["status_changed"] = "status_changed"
    session_key: str
    status: LiveStatus
    previous: LiveStatus | None = None


EngineEvent = (
    SessionChanged
    | MessageAppended
    | RunStarted
    | RunStreamed
    | RunEnded
    | SendProgress
    | Announced
    | PolicyRefused
    | DeliveryChanged
    | SendLedgerChanged
    | StoreChanged
    | FollowStatus
    | LinkChanged
    | HookReceived
    | CronRunStarted
    | StatusChanged
)

Subscriber = Callable[[EngineEvent], None]


class EventBus:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Add a subscriber; returns the function that removes it."""
        self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            if subscriber in self._subscribers:
                self._subscribers.remove(subscriber)

        return unsubscribe

    def publish(self, event: EngineEvent) -> None:
        for subscriber in list(self._subscribers):
            try:
                subscriber(event)
            except Exception:  # noqa: BLE001 - a broken subscriber must not stop the engine
                log.exception("event subscriber failed on %s", event.type)
