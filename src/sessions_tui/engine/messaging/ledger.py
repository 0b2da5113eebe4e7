"""The send ledger: what happened to every `sessions_send` after it was sent (issue 13).

Each send gets an entry (requester, target, message, how it came: a model's tool call or the
owner, the chain of sessions it passed through) and the states of its life, each with the
engine clock's time: accepted → started → replied | timeout | error | forbidden → late_reply →
pingpong per turn → announce | announce_skipped → delivered | delivery_failed; `aborted` when
the operator stopped its run (or dropped it from the queue), whenever that came. The tool and the
agent-to-agent flow mark what they decide; the run's start, its interrupted end (a run a dead
process left, which no tool is waiting on) and the announce's delivery outcome are taken from the
engine's events here, so neither the runs nor the outbox know of the ledger. While a send's flow
is under way its entry names the process running it (`flow_began` .. `flow_ended`, the end in
the transaction of the flow's last state): a flow whose process died, in a step's run or between
two, is ended as interrupted by the next process (`end_flows_left`, engine/runs/recovery.py).

Entries live in the store (they survive restarts and are read by other processes). Texts are
stored as given; the faces redact them on the way out. Inside an event loop, what `open` and `mark`
record is written at the loop's next turn, everything recorded meanwhile in one transaction, and
`SendLedgerChanged` published then: a send makes several marks in a row, and a transaction each
would cost the sends a tenth of their time (bench/ledger_bench.py). Reads, and closing, write
what is pending first.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from typing import TYPE_CHECKING, Any, NamedTuple

from sessions_tui.engine.events import DeliveryChanged, EngineEvent, RunEnded, RunStarted, SendLedgerChanged
from sessions_tui.engine.hosts import EngineFloor
from sessions_tui.engine.lazy_model import LazyModel
from sessions_tui.engine.messaging.send_states import SendState
from sessions_tui.engine.redaction.redact import Redactor
from sessions_tui.engine.redaction.sanitize import truncate_history_text
from sessions_tui.engine.run_end import INTERRUPTED
from sessions_tui.engine.store.connection import StoreDamaged
from sessions_tui.engine.store.processes import stopped

if TYPE_CHECKING:
    from sessions_tui.engine.store.tables.ledger import LedgerRow

log = logging.getLogger(__name__)


class LedgerState(LazyModel):
    """One step of a send's life."""

    state: SendState
    at: int  # epoch ms, engine clock
    detail: dict[str, Any] | None = None


class LedgerEntry(LazyModel):
    """One `sessions_send` and its life so far."""

    run_id: str
    requester: str | None  # None: the owner acting as main without a key
    target: str
    message: str
    via: str  # "agent" (a model's tool call) | "owner" (dashboard, send, tool, HTTP)
    chain: list[str]  # requester first, target last
    created_at: int
    states: list[LedgerState]  # oldest first

    @property
    def last_state(self) -> SendState:
        return self.states[-1].state


def _entry(row: LedgerRow) -> LedgerEntry:
    return LedgerEntry(
        run_id=row.run_id,
        requester=row.requester,
        target=row.target,
        message=row.message,
        via=row.via,
        chain=row.chain,
        created_at=row.created_at,
        states=[LedgerState.model_validate(s) for s in row.states],
    )


def _shown(value: Any, redactor: Redactor) -> Any:
    if isinstance(value, str):
        return truncate_history_text(value, redactor)[0]
    if isinstance(value, dict):
        return {k: _shown(v, redactor) for k, v in value.items()}
    if isinstance(value, list):
        return [_shown(v, redactor) for v in value]
    return value


def redacted_entry(entry: LedgerEntry, redactor: Redactor) -> LedgerEntry:
    """An entry as a face shows it: the message and every text of its states' details redacted and
    cut as `sessions_history` cuts a message's text (docs/decisions.md D16)."""
    states = [
        s if s.detail is None else s.model_copy(update={"detail": _shown(s.detail, redactor)}) for s in entry.states
    ]
    return entry.model_copy(update={"message": _shown(entry.message, redactor), "states": states})


def _outbox_id(pending: _Pending) -> int | None:
    """The delivery an announce went out as (kept with the entry, to find it by its outcome)."""
    value = pending.detail.get("outboxId") if pending.state == "announce" and pending.detail else None
    return value if isinstance(value, int) else None


LedgerHost = EngineFloor
"""What the ledger needs of the engine: the store, the event bus and the clock."""


class _Pending(NamedTuple):
    """One `open` (with `entry`) or `mark` (without) waiting to be written."""

    run_id: str
    state: SendState
    at: int
    detail: dict[str, Any] | None
    entry: dict[str, Any] | None = None


class _Flow(NamedTuple):
    """The process running a send's agent-to-agent flow from now on (`pid`), or its flow over (None)."""

    run_id: str
    pid: int | None


class SendLedger:
    """`engine.ledger`: opening entries, marking their states, reading them newest first."""

    def __init__(self, engine: LedgerHost) -> None:
        self.engine = engine
        self.recording = True
        """False only in bench/ledger_bench.py: the same sends with nothing recorded, to time the ledger."""
        self._awaiting_start: set[str] = set()
        self._pending: list[_Pending | _Flow] = []
        self._flush_scheduled = False
        # States come from the loop and from the store's thread (a sweep, a recovery): the list is
        # taken whole under this lock, inside the write that records it, so none is lost or reordered.
        self._pending_lock = threading.Lock()
        engine.events.subscribe(self._on_event)

    def open(
        self,
        *,
        run_id: str,
        requester: str | None,
        target: str,
        message: str,
        via: str,
        chain: list[str],
        state: SendState = "accepted",
        detail: dict[str, Any] | None = None,
    ) -> None:
        """A new entry in its first state (a run id already open gets the state appended instead)."""
        if not self.recording:
            return
        entry = {"requester": requester, "target": target, "message": message, "via": via, "chain": list(chain)}
        if state == "accepted":
            self._awaiting_start.add(run_id)
        self._queue(_Pending(run_id, state, self.engine.now(), detail, entry))

    def mark(self, run_id: str, state: SendState, detail: dict[str, Any] | None = None) -> None:
        """A new state of an entry; nothing for a run id the ledger does not hold."""
        self._mark(run_id, state, detail, self.engine.now())

    def _mark(self, run_id: str, state: SendState, detail: dict[str, Any] | None, at: int) -> None:
        if state in ("replied", "error", "forbidden"):  # its run has started, or never will
            self._awaiting_start.discard(run_id)
        if self.recording:
            self._queue(_Pending(run_id, state, at, detail))

    def flow_began(self, run_id: str) -> None:
        """This process runs the send's agent-to-agent flow (written with the state marked before it)."""
        if self.recording:
            self._queue(_Flow(run_id, self.engine.store.processes.me))

    def flow_ended(self, run_id: str) -> None:
        """The send's flow is over (written with the last state it marked)."""
        if self.recording:
            self._queue(_Flow(run_id, None))

    def flows_left(self) -> list[tuple[str, int]]:
        """(run id, pid) of the sends whose flow a process that has stopped left under way."""
        self.flush()
        return [
            (run_id, pid)
            for run_id, pid in self.engine.store.ledger.send_flows()
            if stopped(self.engine.store.processes, pid)
        ]

    def end_flows_left(self, flows: list[tuple[str, int]]) -> list[str]:
        """End each of `flows` (from `flows_left`) as interrupted, the `error` state its run would
        have had; returns the run ids of the sends ended here (none another process ended meanwhile)."""
        ended = []
        for run_id, pid in flows:
            at = self.engine.now()
            if self.engine.store.ledger.end_send_flow(run_id, pid, "error", at, {"error": INTERRUPTED}):
                ended.append(run_id)
                self.engine.events.publish(SendLedgerChanged(ts=at, run_id=run_id, state="error"))
        return ended

    def _queue(self, pending: _Pending | _Flow) -> None:
        with self._pending_lock:
            self._pending.append(pending)
            if self._flush_scheduled:
                return
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop: written at once
                loop = None
            else:
                self._flush_scheduled = True
        if loop is None:
            self.flush()
        else:
            loop.call_soon(self.flush)

    def flush(self) -> None:
        """Write what is pending in one transaction, then publish `SendLedgerChanged` for each."""
        with self._pending_lock:
            self._flush_scheduled = False
            if not self._pending:
                return
        store, written = self.engine.store, []
        rows = store.ledger
        pending: list[_Pending | _Flow] = []
        try:
            with store.write():  # the store's lock: two flushes write in the order they took their states
                with self._pending_lock:
                    pending, self._pending = self._pending, []
                for p in pending:
                    try:
                        if isinstance(p, _Flow):
                            rows.set_send_flow(p.run_id, p.pid)
                            continue
                        if p.entry is not None:
                            rows.open_send(run_id=p.run_id, **p.entry, created_at=p.at, state=p.state, detail=p.detail)
                        elif not rows.add_send_state(p.run_id, p.state, p.at, p.detail, outbox_id=_outbox_id(p)):
                            continue  # a run id the ledger does not hold
                    except sqlite3.Error:
                        what = "flow owner" if isinstance(p, _Flow) else p.state
                        log.exception("send ledger: %s of %s not recorded", what, p.run_id)
                        continue
                    written.append(p)
        except sqlite3.Error:  # the store is closed, or the disk fails: the ledger never stops a send
            log.exception("send ledger: %d states not recorded", len(pending))
            return
        except StoreDamaged:  # nothing more is written to it (each face says so once)
            return
        for p in written:
            self.engine.events.publish(SendLedgerChanged(ts=p.at, run_id=p.run_id, state=p.state))

    def entries(
        self,
        *,
        session: str | None = None,
        state: SendState | None = None,
        limit: int = 200,
        before: int | None = None,
    ) -> list[LedgerEntry]:
        """Newest first; `session` matches the requester or the target, `state` keeps the entries
        that reached it, `before` (epoch ms) those created earlier (the next page)."""
        self.flush()
        rows = self.engine.store.ledger.send_entries(session=session, state=state, limit=limit, before=before)
        return [_entry(r) for r in rows]

    def entry(self, run_id: str) -> LedgerEntry | None:
        self.flush()
        row = self.engine.store.ledger.send_entry(run_id)
        return _entry(row) if row else None

    def _on_event(self, event: EngineEvent) -> None:
        """The run a send started has started, or a dead process left it and it ended as interrupted;
        the delivery of a send's announce has an outcome."""
        if isinstance(event, RunStarted):
            if event.run_id in self._awaiting_start:
                self._awaiting_start.discard(event.run_id)
                self._mark(event.run_id, "started", None, event.ts or self.engine.now())
        elif isinstance(event, RunEnded) and event.error == INTERRUPTED:
            # Written at once: inside the transaction that ends the run (Runs.recover_interrupted).
            # A flow that was waiting on it is over too: its send ends here, once.
            self._mark(event.run_id, "error", {"error": INTERRUPTED}, event.ts or self.engine.now())
            self.flow_ended(event.run_id)
            self.flush()
        elif isinstance(event, DeliveryChanged) and event.state in ("delivered", "failed") and self.recording:
            self.flush()
            run_id = self.engine.store.ledger.send_of_delivery(event.outbox_id)
            if run_id is None:
                return
            if event.state == "delivered":
                self._mark(run_id, "delivered", {"outboxId": event.outbox_id}, event.ts or self.engine.now())
            else:
                detail = {"outboxId": event.outbox_id, "error": event.error}
                self._mark(run_id, "delivery_failed", detail, event.ts or self.engine.now())
