"""The session leases: which host runs a session's runs, one host at a time (SPEC D26).

A host takes a session's lease before it runs there, renews it while it holds runs there, and
releases it when they are done. A lease is a row (`session_leases`: the session, its host, until
when): taking one that is free, lapsed or already ours makes it ours; one held by another host
answers who holds it (the send is handed to that owner). A host that dies stops renewing, and after
`lease_ms` its leases are lapsed: the next `take` of such a session takes it over, or `reap` ends
them in bulk. Either way the dead host is named once, to exactly one caller (`Take.taken_from`, the
leases `reap` returns), whose duty is to end that host's runs in the session as interrupted —
`error` with `run_end.INTERRUPTED`, as a process that finds a dead process's runs at start does.
Once taken over or reaped, the old host cannot renew (a late host learns it lost the session).

Time is the caller's: every call is given `now` (ms since the epoch) from the engine's clock, so
hosts agree as far as their clocks do and the tests move time themselves. `lease_ms` is the
`Leases`' own (a host renews well within it, e.g. every third of it).
"""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass
from functools import cache
from typing import LiteralString

from sessions_tui.engine.store.postgres.source import Source, create_tables, transaction

LEASE_MS = 30_000
"""The default lease time: how long a silent host keeps its sessions before another may take them."""

DDL: list[LiteralString] = [
    """CREATE TABLE IF NOT EXISTS session_leases (
        session_key text PRIMARY KEY,
        host text NOT NULL,
        taken_at bigint NOT NULL,
        expires_at bigint NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS session_leases_by_expiry ON session_leases (expires_at)",
    "CREATE INDEX IF NOT EXISTS session_leases_by_host ON session_leases (host)",
]


def create(source: Source) -> None:
    """The leases' table, if it is not there yet."""
    create_tables(source, DDL)


@cache
def host_id() -> str:
    """This process's host id: its machine's name, its pid and a random part (a pid reused after a
    restart, or the same pid in two containers, is another host)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


@dataclass(frozen=True)
class Lease:
    """A session's lease: the host holding it, since and until when (ms since the epoch)."""

    session_key: str
    host: str
    taken_at: int
    expires_at: int


@dataclass(frozen=True)
class Take:
    """What taking a lease gave: the lease as it is now (ours or the holder's), whether it is ours,
    and the host whose lapsed lease this take ended (its runs in the session end as interrupted)."""

    lease: Lease
    ours: bool
    taken_from: str | None = None


class Leases:
    """The session leases on one database, each lasting `lease_ms` from its last take or renewal."""

    def __init__(self, source: Source, lease_ms: int = LEASE_MS) -> None:
        if lease_ms <= 0:
            raise ValueError(f"lease_ms must be positive, not {lease_ms}")
        self.source, self.lease_ms = source, lease_ms

    def take(self, session_key: str, host: str, now: int) -> Take:
        """Take the session's lease for `host` when it is free, lapsed or `host`'s already (a renewal);
        otherwise say who holds it. In the caller's transaction when the source is its connection."""
        until = now + self.lease_ms
        with transaction(self.source) as conn:
            while True:
                inserted = conn.execute(
                    "INSERT INTO session_leases (session_key, host, taken_at, expires_at) VALUES (%s, %s, %s, %s)"
                    " ON CONFLICT (session_key) DO NOTHING RETURNING session_key",
                    (session_key, host, now, until),
                ).fetchone()
                if inserted is not None:
                    return Take(Lease(session_key, host, now, until), ours=True)
                # Held (or just released): lock the row as it is now and decide on it.
                row = conn.execute(
                    "SELECT host, taken_at, expires_at FROM session_leases WHERE session_key = %s FOR UPDATE",
                    (session_key,),
                ).fetchone()
                if row is None:
                    continue  # released between the two statements: free again
                holder, taken_at, expires_at = str(row[0]), int(row[1]), int(row[2])
                if holder != host and expires_at > now:
                    return Take(Lease(session_key, holder, taken_at, expires_at), ours=False)
                since = taken_at if holder == host else now
                conn.execute(
                    "UPDATE session_leases SET host = %s, taken_at = %s, expires_at = %s WHERE session_key = %s",
                    (host, since, until, session_key),
                )
                taken_from = None if holder == host else holder
                return Take(Lease(session_key, host, since, until), ours=True, taken_from=taken_from)

    def renew(self, session_key: str, host: str, now: int) -> bool:
        """Extend `host`'s lease on the session to `now + lease_ms`; False when it is not `host`'s any
        more (taken over or reaped after it lapsed: the host must stop running there)."""
        with transaction(self.source) as conn:
            row = conn.execute(
                "UPDATE session_leases SET expires_at = %s WHERE session_key = %s AND host = %s RETURNING 1",
                (now + self.lease_ms, session_key, host),
            ).fetchone()
        return row is not None

    def release(self, session_key: str, host: str) -> bool:
        """Give the session's lease up (the host's runs there are done); False when it was not `host`'s."""
        with transaction(self.source) as conn:
            row = conn.execute(
                "DELETE FROM session_leases WHERE session_key = %s AND host = %s RETURNING 1", (session_key, host)
            ).fetchone()
        return row is not None

    def holder(self, session_key: str, now: int) -> Lease | None:
        """The session's live lease (None when it is free or lapsed)."""
        with transaction(self.source) as conn:
            row = conn.execute(
                "SELECT host, taken_at, expires_at FROM session_leases WHERE session_key = %s AND expires_at > %s",
                (session_key, now),
            ).fetchone()
        return None if row is None else Lease(session_key, str(row[0]), int(row[1]), int(row[2]))

    def expired(self, now: int) -> list[Lease]:
        """The lapsed leases (what dead hosts left), oldest lapse first; nothing is changed."""
        with transaction(self.source) as conn:
            rows = conn.execute(
                "SELECT session_key, host, taken_at, expires_at FROM session_leases WHERE expires_at <= %s"
                " ORDER BY expires_at, session_key",
                (now,),
            ).fetchall()
        return [Lease(str(r[0]), str(r[1]), int(r[2]), int(r[3])) for r in rows]

    def reap(self, now: int, limit: int = 1000) -> list[Lease]:
        """End up to `limit` lapsed leases and return them: each to exactly one caller across hosts,
        who ends their hosts' runs in those sessions as interrupted (in the caller's transaction when
        the source is its connection, so the leases go with the runs' ends)."""
        with transaction(self.source) as conn:
            rows = conn.execute(
                "DELETE FROM session_leases WHERE session_key IN ("
                " SELECT session_key FROM session_leases WHERE expires_at <= %s"
                " ORDER BY expires_at LIMIT %s FOR UPDATE SKIP LOCKED)"
                " RETURNING session_key, host, taken_at, expires_at",
                (now, limit),
            ).fetchall()
        leases = [Lease(str(r[0]), str(r[1]), int(r[2]), int(r[3])) for r in rows]
        return sorted(leases, key=lambda lease: (lease.expires_at, lease.session_key))

    def held(self, host: str) -> list[str]:
        """The sessions whose leases `host` holds (lapsed or not), in key order."""
        with transaction(self.source) as conn:
            rows = conn.execute(
                "SELECT session_key FROM session_leases WHERE host = %s ORDER BY session_key", (host,)
            ).fetchall()
        return [str(r[0]) for r in rows]
