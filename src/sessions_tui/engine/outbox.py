"""The outbox: every delivery to a channel, recorded with its state.

A channel with `channels.<name>.webhookUrl` gets an HTTP POST per delivery, retried with
back-off on connection errors, 429 and 5xx; without a webhook the outbox row is the record.
Delivery is best-effort: failures end in the row (`failed` with the last error), never in the
caller.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

import httpx
from pydantic import BaseModel

from sessions_tui.engine.events import DeliveryChanged

if TYPE_CHECKING:
    from sessions_tui.engine.engine import Engine

MAX_RETRIES = 3
RETRY_CAP_MS = 8000


class Delivery(BaseModel):
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


def _row(r: Any) -> Delivery:
    return Delivery(
        id=r["id"], created_at=r["created_at"], kind=r["kind"], session_key=r["session_key"], channel=r["channel"],
        to=r["target"], account_id=r["account_id"], thread_id=r["thread_id"], message=r["message"], state=r["state"],
        attempts=r["attempts"], last_error=r["last_error"], delivered_at=r["delivered_at"],
    )


class Outbox:
    def __init__(self, engine: "Engine", *, retry_base_ms: int = 1000, timeout_s: float = 10.0) -> None:
        self.engine = engine
        self.retry_base_ms = retry_base_ms
        self.timeout_s = timeout_s

    def webhook_for(self, channel: str | None) -> str | None:
        if not channel:
            return None
        config = self.engine.config.channels.get(channel)
        return config.webhook_url if config and config.webhook_url else None

    def enqueue(
        self, *, kind: str, message: str, session_key: str | None, channel: str | None, to: str | None,
        account_id: str | None = None, thread_id: str | None = None, data: dict[str, Any] | None = None,
    ) -> Delivery:
        """Record a delivery; one with a webhook is then POSTed in the background."""
        webhook = self.webhook_for(channel)
        state = "pending" if webhook else "recorded"
        now = self.engine.now()
        with self.engine.store.write() as conn:
            cur = conn.execute(
                """INSERT INTO outbox (created_at, kind, session_key, channel, target, account_id, thread_id,
                       message, state, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (now, kind, session_key, channel, to, account_id, thread_id, message, state, json.dumps(data or {})),
            )
            delivery_id = int(cur.lastrowid or 0)
        delivery = self.get(delivery_id)
        assert delivery is not None
        self.engine.events.publish(DeliveryChanged(ts=now, outbox_id=delivery_id, state=state, session_key=session_key))
        if webhook:
            self.engine.background(self.deliver(delivery_id, webhook))
        return delivery

    def get(self, delivery_id: int) -> Delivery | None:
        with self.engine.store.read() as conn:
            row = conn.execute("SELECT * FROM outbox WHERE id = ?", (delivery_id,)).fetchone()
        return _row(row) if row else None

    def list(self, limit: int = 100, session_key: str | None = None) -> list[Delivery]:
        sql, args = "SELECT * FROM outbox", []
        if session_key is not None:
            sql += " WHERE session_key = ?"
            args.append(session_key)
        with self.engine.store.read() as conn:
            rows = conn.execute(sql + " ORDER BY id DESC LIMIT ?", (*args, limit)).fetchall()
        return [_row(r) for r in rows]

    def _set(self, delivery_id: int, **fields: Any) -> None:
        names = ", ".join(f"{k} = ?" for k in fields)
        with self.engine.store.write() as conn:
            conn.execute(f"UPDATE outbox SET {names} WHERE id = ?", (*fields.values(), delivery_id))

    async def deliver(self, delivery_id: int, webhook: str) -> None:
        """POST one delivery, retrying transient failures; the outcome lands in its row."""
        delivery = self.get(delivery_id)
        if delivery is None:
            return
        body = {
            "id": delivery.id, "kind": delivery.kind, "channel": delivery.channel, "to": delivery.to,
            "accountId": delivery.account_id, "threadId": delivery.thread_id, "message": delivery.message,
            "sessionKey": delivery.session_key,
        }
        error = "not attempted"
        async with httpx.AsyncClient(timeout=self.timeout_s) as client:
            for attempt in range(MAX_RETRIES + 1):
                if attempt:
                    await asyncio.sleep(min(self.retry_base_ms * 2 ** (attempt - 1), RETRY_CAP_MS) / 1000)
                retry = False
                try:
                    response = await client.post(webhook, json=body, headers={"Idempotency-Key": f"outbox-{delivery.id}"})
                except httpx.HTTPError as exc:
                    error, retry = f"{type(exc).__name__}: {exc}".rstrip(": "), True
                else:
                    if response.status_code < 300:
                        now = self.engine.now()
                        self._set(delivery_id, state="delivered", attempts=attempt + 1, delivered_at=now, last_error=None)
                        self.engine.events.publish(DeliveryChanged(ts=now, outbox_id=delivery_id, state="delivered",
                                                                   session_key=delivery.session_key))
                        return
                    error = f"HTTP {response.status_code}: {response.text[:200].strip()}".rstrip(": ")
                    retry = response.status_code == 429 or response.status_code >= 500
                self._set(delivery_id, attempts=attempt + 1, last_error=error)
                if not retry:
                    break
        self._set(delivery_id, state="failed", last_error=error)
        self.engine.events.publish(DeliveryChanged(ts=self.engine.now(), outbox_id=delivery_id, state="failed",
                                                   session_key=delivery.session_key, error=error))
