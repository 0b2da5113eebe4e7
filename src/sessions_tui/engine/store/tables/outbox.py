"""The `outbox` table: every delivery to a channel, its state, and which process holds its lease.

A process writes a delivery's progress only while it holds the row's lease (`lease_owner`); leases
of stopped processes are taken over in one write transaction, so one process delivers each row.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sessions_tui.engine.store.connection import CLAIM, Database


@dataclass(frozen=True)
class OutboxRow:
    """One row of `outbox` (`target` is the recipient a channel delivers to)."""

    id: int
    created_at: int
    kind: str
    session_key: str | None
    channel: str | None
    target: str | None
    account_id: str | None
    thread_id: str | None
    message: str
    state: str
    attempts: int
    last_error: str | None
    delivered_at: int | None
    idempotency_key: str | None
    lease_owner: str | None
    lease_until: int | None


def _delivery(row: sqlite3.Row) -> OutboxRow:
    return OutboxRow(
        id=row["id"],
        created_at=row["created_at"],
        kind=row["kind"],
        session_key=row["session_key"],
        channel=row["channel"],
        target=row["target"],
        account_id=row["account_id"],
        thread_id=row["thread_id"],
        message=row["message"],
        state=row["state"],
        attempts=row["attempts"],
        last_error=row["last_error"],
        delivered_at=row["delivered_at"],
        idempotency_key=row["idempotency_key"],
        lease_owner=row["lease_owner"],
        lease_until=row["lease_until"],
    )


class OutboxRepository:
    """Recording deliveries, their attempts and outcomes, and handing their leases between processes."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def insert_delivery(
        self,
        *,
        created_at: int,
        kind: str,
        session_key: str | None,
        channel: str | None,
        target: str | None,
        account_id: str | None,
        thread_id: str | None,
        message: str,
        state: str,
        data: dict[str, Any],
        idempotency_key: str,
        lease_owner: str | None,
        lease_until: int | None,
    ) -> int:
        """Record a delivery; returns its id (a new row: with its session's writes, beside other sessions')."""
        with self.db.write(key=session_key) as conn:
            cur = conn.execute(
                """INSERT INTO outbox (created_at, kind, session_key, channel, target, account_id, thread_id,
                       message, state, data, idempotency_key, lease_owner, lease_until)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    created_at,
                    kind,
                    session_key,
                    channel,
                    target,
                    account_id,
                    thread_id,
                    message,
                    state,
                    json.dumps(data),
                    idempotency_key,
                    lease_owner,
                    lease_until,
                ),
            )
            return int(cur.lastrowid or 0)

    def get_delivery(self, delivery_id: int) -> OutboxRow | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT * FROM outbox WHERE id = ?", (delivery_id,)).fetchone()
        return _delivery(row) if row else None

    def deliveries(self, limit: int = 100, session_key: str | None = None) -> list[OutboxRow]:
        """Deliveries newest first; only those of `session_key` when given."""
        sql, args = "SELECT * FROM outbox", []
        if session_key is not None:
            sql += " WHERE session_key = ?"
            args.append(session_key)
        with self.db.read() as conn:
            rows = conn.execute(sql + " ORDER BY id DESC LIMIT ?", (*args, limit)).fetchall()
        return [_delivery(r) for r in rows]

    def claim_pending_deliveries(
        self,
        *,
        owner: str,
        lease_until: int,
        lease_free: Callable[[str | None, int | None], bool],
        unsendable: Callable[[str | None], str | None],
    ) -> tuple[list[OutboxRow], list[tuple[OutboxRow, str]]]:
        """In one write transaction, every `pending` delivery whose lease is free (`lease_free` of its
        owner and expiry) is leased to `owner` until `lease_until`, or, when `unsendable` gives a
        reason for its channel, `failed` with that reason. Returns (leased, failed with reasons)."""
        claimed: list[OutboxRow] = []
        failed: list[tuple[OutboxRow, str]] = []
        with self.db.write(claim=True) as conn:
            rows = conn.execute(f"SELECT * FROM outbox WHERE state = 'pending' ORDER BY id {CLAIM}").fetchall()
            for row in map(_delivery, rows):
                if not lease_free(row.lease_owner, row.lease_until):
                    continue
                error = unsendable(row.channel)
                if error is not None:
                    conn.execute(
                        "UPDATE outbox SET state = 'failed', last_error = ?, lease_owner = NULL, lease_until = NULL "
                        "WHERE id = ?",
                        (error, row.id),
                    )
                    failed.append((row, error))
                    continue
                conn.execute(
                    "UPDATE outbox SET lease_owner = ?, lease_until = ? WHERE id = ?", (owner, lease_until, row.id)
                )
                claimed.append(row)
        return claimed, failed

    def _update_leased(self, delivery_id: int, owner: str, fields: dict[str, Any]) -> None:
        """Update a delivery `owner` holds the lease of (a row another process holds is not its to write)."""
        names = ", ".join(f"{k} = ?" for k in fields)
        with self.db.write() as conn:
            conn.execute(
                f"UPDATE outbox SET {names} WHERE id = ? AND lease_owner = ?",
                (*fields.values(), delivery_id, owner),
            )

    def record_attempt(self, delivery_id: int, owner: str, *, attempts: int, last_error: str, lease_until: int) -> None:
        """A failed attempt: its count and error, and the lease extended for the next one."""
        self._update_leased(
            delivery_id, owner, {"attempts": attempts, "last_error": last_error, "lease_until": lease_until}
        )

    def finish_delivery(
        self,
        delivery_id: int,
        owner: str,
        *,
        state: str,
        attempts: int,
        last_error: str | None,
        delivered_at: int | None,
    ) -> None:
        """A delivery's outcome; its lease is given back."""
        fields: dict[str, Any] = {
            "state": state,
            "attempts": attempts,
            "last_error": last_error,
            "lease_owner": None,
            "lease_until": None,
        }
        if delivered_at is not None:
            fields["delivered_at"] = delivered_at
        self._update_leased(delivery_id, owner, fields)

    def release_delivery(self, delivery_id: int, owner: str) -> None:
        """Give a delivery's lease back; it stays `pending` for whichever process resumes it."""
        self._update_leased(delivery_id, owner, {"lease_owner": None, "lease_until": None})
