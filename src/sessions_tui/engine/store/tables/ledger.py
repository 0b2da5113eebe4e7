"""The send ledger's tables: one row per `sessions_send` (`send_ledger`) with its states as a JSON
list, and an index of which entry reached which state (`send_ledger_state`).

A state is appended in SQL (`json_insert`), so a mark is one statement on one row whatever the
entry's length. Reads go newest first through an index each: by time, by requester and by target
(a session's entries are the union of the two), by state; a page costs what it returns, not what
the ledger holds.

While a send's agent-to-agent flow is under way its entry names the process running it
(`flow_pid`, as a run's row does), so the next process can end the flow of one that died.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from sessions_tui.engine.store.connection import Database

_COLUMNS = "id, run_id, requester, target, message, via, chain, created_at, states"


@dataclass(frozen=True)
class LedgerRow:
    """One entry of `send_ledger`, its chain and states decoded (states oldest first, as dicts)."""

    run_id: str
    requester: str | None
    target: str
    message: str
    via: str
    chain: list[str]
    created_at: int
    states: list[dict[str, Any]]


def _row(row: sqlite3.Row) -> LedgerRow:
    return LedgerRow(
        run_id=row["run_id"],
        requester=row["requester"],
        target=row["target"],
        message=row["message"],
        via=row["via"],
        chain=json.loads(row["chain"]),
        created_at=row["created_at"],
        states=json.loads(row["states"]),
    )


def _state(state: str, at: int, detail: dict[str, Any] | None) -> str:
    return json.dumps(
        {"state": state, "at": at, "detail": detail} if detail is not None else {"state": state, "at": at}
    )


class LedgerRepository:
    """Opening ledger entries, appending their states, and reading them back newest first."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def open_send(
        self,
        *,
        run_id: str,
        requester: str | None,
        target: str,
        message: str,
        via: str,
        chain: list[str],
        created_at: int,
        state: str,
        detail: dict[str, Any] | None,
    ) -> None:
        """A new entry with its first state; an entry already open under `run_id` gets the state appended."""
        first = f"[{_state(state, created_at, detail)}]"
        with self.db.write() as conn:
            cur = conn.execute(
                "INSERT OR IGNORE INTO send_ledger "
                "(run_id, requester, target, message, via, chain, created_at, states) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, requester, target, message, via, json.dumps(chain), created_at, first),
            )
            if cur.rowcount:
                conn.execute(
                    "INSERT OR IGNORE INTO send_ledger_state (state, created_at, entry_id) VALUES (?, ?, ?)",
                    (state, created_at, cur.lastrowid),
                )
                return
        self.add_send_state(run_id, state, created_at, detail)

    def add_send_state(
        self, run_id: str, state: str, at: int, detail: dict[str, Any] | None, *, outbox_id: int | None = None
    ) -> bool:
        """Append a state to an entry (and note the announce's delivery); False when there is no such entry."""
        with self.db.write() as conn:
            row = conn.execute(
                "UPDATE send_ledger SET states = json_insert(states, '$[#]', json(?)), "
                "outbox_id = coalesce(?, outbox_id) WHERE run_id = ? RETURNING id, created_at",
                (_state(state, at, detail), outbox_id, run_id),
            ).fetchone()
            return _indexed_state(conn, row, state)

    def set_send_flow(self, run_id: str, pid: int | None) -> None:
        """The process running the send's agent-to-agent flow from now on (None: the flow is over)."""
        with self.db.write() as conn:
            conn.execute("UPDATE send_ledger SET flow_pid = ? WHERE run_id = ?", (pid, run_id))

    def send_flows(self) -> list[tuple[str, int]]:
        """(run id, pid) of every send whose agent-to-agent flow a process is running, or was when it died."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT run_id, flow_pid FROM send_ledger WHERE flow_pid IS NOT NULL").fetchall()
        return [(r["run_id"], r["flow_pid"]) for r in rows]

    def end_send_flow(self, run_id: str, pid: int, state: str, at: int, detail: dict[str, Any] | None) -> bool:
        """Append the state that ends a flow `pid` was running and note it over; False when that
        process's flow of the send is over already (ended, or by another process meanwhile)."""
        with self.db.write() as conn:
            row = conn.execute(
                "UPDATE send_ledger SET states = json_insert(states, '$[#]', json(?)), flow_pid = NULL "
                "WHERE run_id = ? AND flow_pid = ? RETURNING id, created_at",
                (_state(state, at, detail), run_id, pid),
            ).fetchone()
            return _indexed_state(conn, row, state)

    def send_of_delivery(self, outbox_id: int) -> str | None:
        """The run id of the send whose announce is the delivery `outbox_id`."""
        with self.db.read() as conn:
            row = conn.execute("SELECT run_id FROM send_ledger WHERE outbox_id = ?", (outbox_id,)).fetchone()
        return row["run_id"] if row else None

    def send_entry(self, run_id: str) -> LedgerRow | None:
        with self.db.read() as conn:
            row = conn.execute(f"SELECT {_COLUMNS} FROM send_ledger WHERE run_id = ?", (run_id,)).fetchone()
        return _row(row) if row else None

    def send_entries(
        self, *, session: str | None, state: str | None, limit: int, before: int | None
    ) -> list[LedgerRow]:
        """Entries newest first (by `created_at`, then insertion), created before `before` when given;
        only those `session` sent or received, only those that reached `state`."""
        limit = max(0, limit)
        cutoff = before if before is not None else 2**63 - 1
        if state is not None:
            sql = (
                f"SELECT {', '.join('l.' + c.strip() for c in _COLUMNS.split(','))} FROM send_ledger_state s "
                "JOIN send_ledger l ON l.id = s.entry_id WHERE s.state = ? AND s.created_at < ?"
            )
            args: tuple[Any, ...] = (state, cutoff)
            if session is not None:
                sql += " AND (l.requester = ? OR l.target = ?)"
                args += (session, session)
            sql += " ORDER BY s.created_at DESC, s.entry_id DESC LIMIT ?"
        elif session is not None:
            one = (
                f"SELECT {_COLUMNS} FROM send_ledger WHERE {{}} = ? AND created_at < ? "
                "ORDER BY created_at DESC, id DESC LIMIT ?"
            )
            sql = (
                f"SELECT * FROM ({one.format('requester')}) AS sent "
                f"UNION SELECT * FROM ({one.format('target')}) AS received "
                "ORDER BY created_at DESC, id DESC LIMIT ?"
            )
            args = (session, cutoff, limit, session, cutoff, limit)
        else:
            sql = f"SELECT {_COLUMNS} FROM send_ledger WHERE created_at < ? ORDER BY created_at DESC, id DESC LIMIT ?"
            args = (cutoff,)
        with self.db.read() as conn:
            rows = conn.execute(sql, (*args, limit)).fetchall()
        return [_row(r) for r in rows]


def _indexed_state(conn: sqlite3.Connection, row: sqlite3.Row | None, state: str) -> bool:
    """Index the state just appended to the entry `row` (id, created_at) names; False when no entry
    took it (the UPDATE matched none)."""
    if row is None:
        return False
    conn.execute(
        "INSERT OR IGNORE INTO send_ledger_state (state, created_at, entry_id) VALUES (?, ?, ?)",
        (state, row["created_at"], row["id"]),
    )
    return True
