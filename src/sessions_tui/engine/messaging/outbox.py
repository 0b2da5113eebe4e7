"""The outbox: every delivery to a channel, recorded with its state.

A channel with `channels.<name>.webhookUrl` gets an HTTP POST per delivery, retried with
back-off on connection errors, timeouts, 429 and 5xx; without a webhook the outbox row is the
record. Delivery is best-effort: failures end in the row (`failed` with the last error), never in
the caller.

Bounds: each POST may take `ATTEMPT_TIMEOUT_S` (connect, send, answer), and one delivery with all
its retries and back-offs `DELIVERY_BOUND_S`; then it is `failed`. A command that exits (`tool`,
`send`) waits at most `EXIT_WAIT_S` for its deliveries (`Engine.drain`); one still under way is
left `pending`, and the next process to open the state directory resumes it.

Exactly one process delivers a row: the one holding its lease (`lease_owner`, `lease_until`),
taken in a write transaction. A process gives its leases back when it stops; a lease of a
process that died is free once its process is known gone (its pid, on this machine; its host's
lease, on a PostgreSQL store shared by several), and anywhere once it expires.
Every delivery has an `Idempotency-Key` of its own, kept with the row, sent again by every retry
and by whichever process resumes it: a receiver can tell a repeat from a new message.
"""

from __future__ import annotations

import asyncio
import builtins
import sqlite3
import time
import uuid
from typing import Any, Protocol

from sessions_tui.engine.backoff import retry_delay
from sessions_tui.engine.events import DeliveryChanged
from sessions_tui.engine.hosts import EngineFloor
from sessions_tui.engine.lazy_model import LazyModel
from sessions_tui.engine.redaction.cut import redact_then_cut
from sessions_tui.engine.redaction.redact import Redactor
from sessions_tui.engine.store.processes import Processes
from sessions_tui.engine.store.tables.outbox import OutboxRow

MAX_RETRIES = 3
RETRY_CAP_MS = 8000
ATTEMPT_TIMEOUT_S = 10.0
"""One POST: connecting, sending and waiting for the answer."""
DELIVERY_BOUND_S = 30.0
"""One delivery, every attempt and back-off together; then it is `failed`."""
EXIT_WAIT_S = 5.0
"""How long a command that exits waits for its deliveries; the rest stay `pending`."""
LEASE_S = 2 * DELIVERY_BOUND_S
"""A lease outlives the delivery it covers; an expired one may be taken by anyone."""


class Delivery(LazyModel):
    id: int
    created_at: int
    kind: str
    session_key: str | None = None
    channel: str | None = None
    to: str | None = None
    account_id: str | None = None
    thread_id: str | None = None
    message: str
    state: str  # pending | delivered | failed | recorded
    attempts: int = 0
    last_error: str | None = None
    delivered_at: int | None = None
    idempotency_key: str | None = None


def _row(r: OutboxRow) -> Delivery:
    return Delivery(
        id=r.id,
        created_at=r.created_at,
        kind=r.kind,
        session_key=r.session_key,
        channel=r.channel,
        to=r.target,
        account_id=r.account_id,
        thread_id=r.thread_id,
        message=r.message,
        state=r.state,
        attempts=r.attempts,
        last_error=r.last_error,
        delivered_at=r.delivered_at,
        idempotency_key=r.idempotency_key,
    )


def _wall_ms() -> int:
    """Leases are between processes: real time, whatever clock the engine was given."""
    return int(time.time() * 1000)


def lease_owner(processes: Processes) -> str:
    """A new lease owner of this process: `<namespace>/<id>/<random>`, as `lease_is_live` reads it."""
    return f"{processes.tag}/{processes.me}/{uuid.uuid4().hex[:12]}"


def lease_is_live(owner: str | None, until: int | None, now_ms: int, processes: Processes) -> bool:
    """Whether a lease still stands: unexpired, and not held by a process of `processes`' namespace
    (this machine's, or the shared store's hosts) that is gone."""
    if owner is None or until is None or until <= now_ms:
        return False
    tag, _, rest = owner.partition("/")
    pid_text = rest.partition("/")[0]
    if tag != processes.tag or not pid_text.isdigit():
        return True  # a process of another namespace: only its expiry frees the lease
    return processes.alive(int(pid_text))  # this process counts as alive too


class OutboxHost(EngineFloor, Protocol):
    """What the outbox needs of the engine: its config (channels' webhooks), store, event bus and
    clock, and its redactor (a webhook's error body, kept cut, is redacted first)."""

    @property
    def redactor(self) -> Redactor: ...


class Outbox:
    def __init__(
        self,
        engine: OutboxHost,
        *,
        retry_base_ms: int = 1000,
        timeout_s: float = ATTEMPT_TIMEOUT_S,
        bound_s: float = DELIVERY_BOUND_S,
    ) -> None:
        self.engine = engine
        self.retry_base_ms = retry_base_ms
        self.timeout_s = timeout_s
        self.bound_s = bound_s
        self.owner = lease_owner(engine.store.processes)
        self._tasks: dict[asyncio.Task[None], tuple[int, str | None]] = {}  # → (delivery id, channel)
        self.left_pending: list[tuple[int, str | None]] = []
        """The deliveries `aclose` stopped while under way: pending, for the next process."""
        self.waited_s: float | None = None
        """How long `settle` last waited for them before `aclose` (None: it did not: the dashboard quit)."""

    def webhook_for(self, channel: str | None) -> str | None:
        if not channel:
            return None
        config = self.engine.config.channels.get(channel)
        return config.webhook_url if config and config.webhook_url else None

    def enqueue(
        self,
        *,
        kind: str,
        message: str,
        session_key: str | None,
        channel: str | None,
        to: str | None,
        account_id: str | None = None,
        thread_id: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> Delivery:
        """Record a delivery; one with a webhook is then POSTed in the background, under this
        process's lease."""
        webhook = self.webhook_for(channel)
        state = "pending" if webhook else "recorded"
        owner, until = (self.owner, _wall_ms() + int(LEASE_S * 1000)) if webhook else (None, None)
        now = self.engine.now()
        delivery_id = self.engine.store.outbox.insert_delivery(
            created_at=now,
            kind=kind,
            session_key=session_key,
            channel=channel,
            target=to,
            account_id=account_id,
            thread_id=thread_id,
            message=message,
            state=state,
            data=data or {},
            idempotency_key=uuid.uuid4().hex,
            lease_owner=owner,
            lease_until=until,
        )
        delivery = self.get(delivery_id)
        assert delivery is not None
        self.engine.events.publish(DeliveryChanged(ts=now, outbox_id=delivery_id, state=state, session_key=session_key))
        if webhook:
            self._start(delivery_id, webhook, channel)
        return delivery

    def resume(self) -> list[int]:
        """Take up the deliveries left `pending` by processes that stopped or died (their lease
        given back, expired, or its process gone); returns their ids. Claimed in one write
        transaction, so of processes opening the state directory at once, one takes each row.
        One whose channel has no `webhookUrl` any more can never be delivered: it is `failed`,
        with the reason, and never retried."""
        now = _wall_ms()
        leased, failed = self.engine.store.outbox.claim_pending_deliveries(
            owner=self.owner,
            lease_until=now + int(LEASE_S * 1000),
            lease_free=lambda owner, until: not lease_is_live(owner, until, now, self.engine.store.processes),
            unsendable=self._unsendable,
        )
        orphaned = [(row.id, row.session_key, error) for row, error in failed]
        claimed = [(row.id, self.webhook_for(row.channel) or "", row.channel) for row in leased]
        for delivery_id, session_key, error in orphaned:
            self.engine.events.publish(
                DeliveryChanged(
                    ts=self.engine.now(), outbox_id=delivery_id, state="failed", session_key=session_key, error=error
                )
            )
        for delivery_id, webhook, channel in claimed:
            self._start(delivery_id, webhook, channel)
        return [delivery_id for delivery_id, _, _ in claimed]

    def _unsendable(self, channel: str | None) -> str | None:
        """Why a delivery to `channel` can never be made (None: it can)."""
        if self.webhook_for(channel) is None:
            return f"no webhookUrl configured for channel {channel or '(none)'}"
        return None

    def _start(self, delivery_id: int, webhook: str, channel: str | None) -> None:
        task = asyncio.get_running_loop().create_task(self.deliver(delivery_id, webhook))
        self._tasks[task] = (delivery_id, channel)
        task.add_done_callback(lambda done: self._tasks.pop(done, None))

    async def settle(self, timeout: float = EXIT_WAIT_S) -> None:
        """Wait for this process's deliveries, at most `timeout` seconds; those still under way go on."""
        self.waited_s = timeout
        tasks = [t for t in self._tasks if not t.done()]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    async def aclose(self) -> None:
        """Stop delivering: what is still under way gives its lease back and stays `pending`."""
        tasks = list(self._tasks)
        self.left_pending = sorted((self._tasks[t] for t in tasks if not t.done()), key=lambda item: item[0])
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def get(self, delivery_id: int) -> Delivery | None:
        row = self.engine.store.outbox.get_delivery(delivery_id)
        return _row(row) if row else None

    def list(self, limit: int = 100, session_key: str | None = None) -> builtins.list[Delivery]:
        return [_row(r) for r in self.engine.store.outbox.deliveries(limit, session_key)]

    def _release(self, delivery_id: int) -> None:
        try:
            self.engine.store.outbox.release_delivery(delivery_id, self.owner)
        except sqlite3.Error:
            pass  # the store is already closed: the lease expires, or goes with this process

    async def deliver(self, delivery_id: int, webhook: str) -> None:
        """POST one delivery, retrying transient failures; the outcome lands in its row. Cancelled
        (the process stops), the row stays `pending` and its lease is given back."""
        delivery = self.get(delivery_id)
        if delivery is None:
            return
        body = {
            "id": delivery.id,
            "kind": delivery.kind,
            "channel": delivery.channel,
            "to": delivery.to,
            "accountId": delivery.account_id,
            "threadId": delivery.thread_id,
            "message": delivery.message,
            "sessionKey": delivery.session_key,
        }
        headers = {"Idempotency-Key": delivery.idempotency_key or f"outbox-{delivery.id}"}
        attempts = delivery.attempts
        error = "not attempted"
        import httpx  # here, not at the top: a `tool` call that delivers nothing does not pay for it

        try:
            async with asyncio.timeout(self.bound_s):
                async with httpx.AsyncClient(timeout=self.timeout_s) as client:
                    for attempt in range(MAX_RETRIES + 1):
                        if attempt:
                            await asyncio.sleep(
                                retry_delay(attempt - 1, base=self.retry_base_ms / 1000, cap=RETRY_CAP_MS / 1000)
                            )
                        attempts += 1
                        retry = False
                        try:
                            response = await client.post(webhook, json=body, headers=headers)
                        except httpx.TimeoutException as exc:
                            error, retry = f"{type(exc).__name__}: no answer within {self.timeout_s:g} s", True
                        except httpx.HTTPError as exc:
                            error, retry = f"{type(exc).__name__}: {exc}".rstrip(": "), True
                        else:
                            if response.status_code < 300:
                                self._finish(delivery, "delivered", attempts, None)
                                return
                            said = redact_then_cut(response.text.strip(), 200, self.engine.redactor.redact, mark="")
                            error = f"HTTP {response.status_code}: {said.strip()}".rstrip(": ")
                            retry = response.status_code == 429 or response.status_code >= 500
                        self.engine.store.outbox.record_attempt(
                            delivery_id,
                            self.owner,
                            attempts=attempts,
                            last_error=error,
                            lease_until=_wall_ms() + int(LEASE_S * 1000),
                        )
                        if not retry:
                            break
        except TimeoutError:
            error = f"gave up after {self.bound_s:g} s (last: {error})"
        except asyncio.CancelledError:
            self._release(delivery_id)
            raise
        self._finish(delivery, "failed", attempts, error)

    def _finish(self, delivery: Delivery, state: str, attempts: int, error: str | None) -> None:
        now = self.engine.now()
        self.engine.store.outbox.finish_delivery(
            delivery.id,
            self.owner,
            state=state,
            attempts=attempts,
            last_error=error,
            delivered_at=now if state == "delivered" else None,
        )
        self.engine.events.publish(
            DeliveryChanged(ts=now, outbox_id=delivery.id, state=state, session_key=delivery.session_key, error=error)
        )
