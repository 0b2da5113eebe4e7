"""The processes of several machines on one PostgreSQL store: each a row of `hosts` with a lease it
renews, its id there the mark it leaves on what it runs (store/processes.py; SPEC D26).

A process that writes a mark registers on first asking its id (`me`; a process that only reads never
registers), and from then on renews its lease every third of `lease_ms` from a thread of its own. It
is alive while its lease stands, by the database's clock (one clock for every machine); a process
that stops deletes its row, so what it left is taken up at once; one that dies, or stalls longer than
its lease, is dead once the lease lapses, and another host ends what it left under way as a process
that finds a dead process's runs at start does (runs/takeover.py). Ids start above any operating
system's pid (`FIRST_ID`), so marks copied from a SQLite store (`store copy`) never name a live host.

The answer for another process is kept for a renewal period: a host asks often (each turn a session's
run waits for), and a lease is never shorter than three such periods.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

log = logging.getLogger(__name__)

LEASE_MS = 15_000
"""A host's lease by default (config `store.leaseSeconds`): how long a silent host keeps what it runs."""
FIRST_ID = 1 << 40
"""The first host id: above every pid (Linux's are below 2**22), so a copied pid never names a host."""
TAG = "postgresql"
"""The namespace of host ids (a delivery lease's owner string starts with it: messaging/outbox.py)."""

DDL = [
    f"CREATE SEQUENCE IF NOT EXISTS host_ids START {FIRST_ID} MINVALUE {FIRST_ID}",
    """CREATE TABLE IF NOT EXISTS hosts (
        id BIGINT PRIMARY KEY DEFAULT nextval('host_ids'),
        name TEXT NOT NULL,
        started_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS hosts_by_expiry ON hosts(expires_at)",
]
"""The hosts' table (schema 6)."""

DB_NOW = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
"""The database's time, ms since the epoch: the one clock every host's lease is read by."""


def host_name() -> str:
    """What a host is called in `hosts`: its machine, its pid and a random part."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


class HostProcesses:
    """This process and the others on one PostgreSQL store (store/processes.py's `Processes`)."""

    tag = TAG
    shared = True

    def __init__(self, pool: ConnectionPool[Any], lease_ms: int = LEASE_MS) -> None:
        self.pool = pool
        self.lease_ms = max(3, lease_ms)
        self.renew_s = self.lease_ms / 3000
        self._id: int | None = None
        self._pid = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None
        self._known: dict[int, tuple[bool, float]] = {}  # host id → (alive, when asked: monotonic)
        self.lost = False
        """Set when this host found its row gone (it stalled past its lease and was taken over)."""

    @property
    def me(self) -> int:
        """This process's host id, registering it (and starting its renewals) on the first call."""
        with self._lock:
            if self._id is None or self._pid != os.getpid():  # a forked worker is a host of its own
                self._register()
            assert self._id is not None
            return self._id

    @property
    def registered(self) -> bool:
        return self._id is not None and self._pid == os.getpid()

    def _register(self) -> None:
        with self.pool.connection() as conn:
            row = conn.execute(
                f"INSERT INTO hosts (name, started_at, expires_at) VALUES (%s, {DB_NOW}, {DB_NOW} + %s) RETURNING id",
                (host_name(), self.lease_ms),
            ).fetchone()
        assert row is not None
        self._id, self._pid = int(row[0]), os.getpid()
        self._stop = threading.Event()
        self._renewer = threading.Thread(target=self._renew_loop, name="pg-host-lease", daemon=True)
        self._renewer.start()

    def _renew_loop(self) -> None:
        while not self._stop.wait(self.renew_s):
            try:
                self.renew()
            except Exception as exc:  # noqa: BLE001 - the server away: the next renewal tries again
                log.warning("renewing this host's lease failed: %s", exc)

    def renew(self) -> bool:
        """Renew this host's lease; False when its row is gone (taken over: `lost`)."""
        host = self._id
        if host is None:
            return False
        with self.pool.connection() as conn:
            row = conn.execute(
                f"UPDATE hosts SET expires_at = {DB_NOW} + %s WHERE id = %s RETURNING id", (self.lease_ms, host)
            ).fetchone()
        if row is None and not self.lost:
            self.lost = True
            log.error("this host's lease lapsed and was taken over: what it ran was ended as interrupted")
        return row is not None

    def alive(self, pid: int | None) -> bool:
        if not pid:
            return False
        if pid == self._id and self.registered:
            return True
        known = self._known.get(pid)
        if known is not None and (not known[0] or time.monotonic() - known[1] < self.renew_s):
            return known[0]  # a dead host stays dead
        with self.pool.connection() as conn:
            row = conn.execute(f"SELECT expires_at > {DB_NOW} FROM hosts WHERE id = %s", (pid,)).fetchone()
        alive = bool(row is not None and row[0])
        self._known[pid] = (alive, time.monotonic())
        return alive

    def ended_at(self, pid: int | None) -> int | None:
        """A lapsed host's lease end (None for a live host, or one forgotten, or not a host)."""
        if not pid:
            return None
        with self.pool.connection() as conn:
            row = conn.execute(
                f"SELECT expires_at FROM hosts WHERE id = %s AND expires_at <= {DB_NOW}", (pid,)
            ).fetchone()
        return None if row is None else int(row[0])

    def lapsed(self) -> list[int]:
        """The hosts whose lease has lapsed (dead: what they left is to be taken over)."""
        with self.pool.connection() as conn:
            rows = conn.execute(f"SELECT id FROM hosts WHERE expires_at <= {DB_NOW} ORDER BY id").fetchall()
        lapsed = [int(row[0]) for row in rows]
        for host in lapsed:
            self._known[host] = (False, time.monotonic())  # dead from now on, whatever was last heard
        return lapsed

    def forget(self, hosts: list[int]) -> None:
        """Delete the rows of lapsed hosts whose work has been taken over (only while still lapsed)."""
        if hosts:
            with self.pool.connection() as conn:
                conn.execute(f"DELETE FROM hosts WHERE id = ANY(%s) AND expires_at <= {DB_NOW}", (hosts,))

    def close(self) -> None:
        """Stop renewing and delete this host's row: what it leaves is free at once."""
        self._stop.set()
        if self._renewer is not None and self._renewer is not threading.current_thread():
            self._renewer.join()
        if self.registered:
            try:
                with self.pool.connection() as conn:
                    conn.execute("DELETE FROM hosts WHERE id = %s", (self._id,))
            except Exception as exc:  # noqa: BLE001 - the server away: the lease lapses instead
                log.warning("giving this host's lease back failed: %s", exc)
        self._id = None
