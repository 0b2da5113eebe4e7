"""The events table across hosts: every change appended with a per-session sequence, read by every
host from where it last read; `LISTEN/NOTIFY` only wakes the readers (SPEC D26).

An event is a row: its session's next `seq` (one counter row per session, locked by the append, so a
session's events are numbered in the order their transactions commit), a global `id`, the id of the
transaction that wrote it (`tx`), its kind and its body (JSON text). The append is a statement in the
caller's transaction (the change and its event commit together) and, unless told not to, queues a
`NOTIFY` whose payload is the new id — PostgreSQL delivers it at commit, and drops or coalesces it
when it must (no listener then, a listener's connection lost, a full queue).

So a reader never trusts a notification: it keeps a `Position` and reads every event after it, on a
wake or, failing one, every `poll_s`; a lost notification delays, it never drops. Ids alone cannot be
the position: a transaction that took id 10 may commit after one that took id 11, and a reader that
read 11 would skip 10. Readers therefore go in (`tx`, `id`) order and read only events of transactions
older than every transaction still running (`tx < pg_snapshot_xmin(pg_current_snapshot())`): nothing
can be added below that line any more. The price: a long writing transaction anywhere on the server
holds the readers back until it ends (a delay, not a loss).

`EventReader` is such a reader on a connection of its own (LISTEN is per connection), in its own
thread, handing each batch to a callback there.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, LiteralString

import psycopg
from psycopg import sql

from sessions_tui.engine.store.postgres.schema import CHANNEL, EVENTS_DDL
from sessions_tui.engine.store.postgres.source import Source, create_tables, transaction

POLL_S = 5.0
"""How often a reader that heard nothing reads anyway (what a lost notification costs at most)."""

_APPEND: LiteralString = (
    "WITH s AS (INSERT INTO event_sequences (session_key, seq) VALUES (%(key)s, 1)"
    " ON CONFLICT (session_key) DO UPDATE SET seq = event_sequences.seq + 1 RETURNING seq),"
    " e AS (INSERT INTO events (session_key, seq, kind, body, at)"
    " SELECT %(key)s, s.seq, %(kind)s, %(body)s, %(at)s FROM s RETURNING id, tx, seq)"
)
_COLUMNS: LiteralString = "id, tx::text::bigint, session_key, seq, kind, body, at"


def create(source: Source) -> None:
    """The events' tables, if they are not there yet."""
    create_tables(source, EVENTS_DDL)


@dataclass(frozen=True, order=True)
class Position:
    """Where a reader is: after the event of transaction `tx` and id `id` (the start: before all)."""

    tx: int = 0
    id: int = 0


START = Position()


@dataclass(frozen=True)
class Event:
    """One change: its global id, its transaction, its session and number there, kind, body (JSON), time."""

    id: int
    tx: int
    session_key: str
    seq: int
    kind: str
    body: str
    at: int

    @property
    def position(self) -> Position:
        return Position(self.tx, self.id)


def _event(row: tuple[Any, ...]) -> Event:
    return Event(int(row[0]), int(row[1]), str(row[2]), int(row[3]), str(row[4]), str(row[5]), int(row[6]))


def _read(conn: psycopg.Connection[Any], after: Position, limit: int) -> list[Event]:
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM events WHERE (tx, id) > (%s::text::xid8, %s)"
        " AND tx < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY tx, id LIMIT %s",
        (str(after.tx), after.id, limit),
    ).fetchall()
    return [_event(row) for row in rows]


class Events:
    """The events table on one database: appends and reads."""

    def __init__(self, source: Source) -> None:
        self.source = source

    def append(self, session_key: str, kind: str, body: str, at: int, *, notify: bool = True) -> Event:
        """Add an event to the session (its next number) in the caller's transaction when the source is
        its connection; notify the readers at commit unless `notify` is False."""
        wake: LiteralString = ", pg_notify(%(channel)s, e.id::text)" if notify else ""
        params = {"key": session_key, "kind": kind, "body": body, "at": at, "channel": CHANNEL}
        query = _APPEND + " SELECT e.id, e.tx::text::bigint, e.seq" + wake + " FROM e"
        with transaction(self.source) as conn:
            row = conn.execute(query, params).fetchone()
        if row is None:  # the statement inserts exactly one row
            raise RuntimeError(f"no event appended to {session_key!r}")
        return Event(int(row[0]), int(row[1]), session_key, int(row[2]), kind, body, at)

    def read(self, after: Position = START, limit: int = 500) -> list[Event]:
        """Up to `limit` events after `after` in read order, only those no running transaction can
        still precede (so reading on from the last one never skips one). A transaction that has
        written does not read its own events here: they are readable once it commits."""
        with transaction(self.source) as conn:
            return _read(conn, after, limit)

    def session(self, session_key: str, after_seq: int = 0, limit: int = 500) -> list[Event]:
        """The session's committed events numbered after `after_seq`, in their order."""
        with transaction(self.source) as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM events WHERE session_key = %s AND seq > %s ORDER BY seq LIMIT %s",
                (session_key, after_seq, limit),
            ).fetchall()
        return [_event(row) for row in rows]

    def latest(self) -> Position:
        """The position after every event a reader can read now (where a reader wanting only what
        comes next starts)."""
        with transaction(self.source) as conn:
            row = conn.execute(
                "SELECT tx::text::bigint, id FROM events WHERE tx < pg_snapshot_xmin(pg_current_snapshot())"
                " ORDER BY tx DESC, id DESC LIMIT 1"
            ).fetchone()
        return START if row is None else Position(int(row[0]), int(row[1]))

    def prune(self, before: int) -> int:
        """Delete the events written before `before` (ms; readers are long past them); returns how many."""
        with transaction(self.source) as conn:
            return conn.execute("DELETE FROM events WHERE at < %s", (before,)).rowcount


class EventReader:
    """A reader of the events table on a connection of its own, in a thread: it listens on `CHANNEL`,
    reads every event after its position on each wake and every `poll_s` without one, and hands each
    batch, in order, to `on_events` (called in its thread). A lost connection is made again, and
    reading goes on from the same position."""

    def __init__(
        self,
        conninfo: str,
        on_events: Callable[[list[Event]], None],
        after: Position = START,
        poll_s: float = POLL_S,
        batch: int = 500,
        coalesce_s: float = 0.0,
    ) -> None:
        self.conninfo, self.on_events, self.position = conninfo, on_events, after
        self.poll_s, self.batch, self.coalesce_s = poll_s, batch, coalesce_s
        self.ready = threading.Event()
        """Set once it listens and has read what was there (what a test waits for before appending)."""
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._stop_channel = f"sessions_tui_reader_{secrets.token_hex(6)}"
        self._thread = threading.Thread(target=self._run, name="pg-events-reader", daemon=True)

    def start(self) -> EventReader:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop reading (its own wake ends the wait at once) and wait for the thread to end."""
        self._stop.set()
        if self._thread.is_alive():
            try:
                with psycopg.connect(self.conninfo, autocommit=True) as conn:
                    conn.execute("SELECT pg_notify(%s, '')", (self._stop_channel,))
            except psycopg.OperationalError:
                pass  # the server is gone: the reader ends at its next poll
            self._thread.join()

    def __enter__(self) -> EventReader:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.conninfo, autocommit=True) as conn:
                    self._listen(conn)
            except psycopg.OperationalError:
                self._stop.wait(self.poll_s)  # the server away: try again after a poll's time
            except BaseException as error:  # the callback's: the reader stops, and says why
                self.error = error
                self.ready.set()
                return

    def _listen(self, conn: psycopg.Connection[Any]) -> None:
        for channel in (CHANNEL, self._stop_channel):
            conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
        self._catch_up(conn)
        self.ready.set()
        while not self._stop.is_set():
            for _ in conn.notifies(timeout=self.poll_s, stop_after=1):
                pass
            # The wakes of what commits meanwhile are folded into this one read (a busy store commits
            # thousands of times a second: a read for each would cost more than the changes).
            if self.coalesce_s and self._stop.wait(self.coalesce_s):
                return
            for _ in conn.notifies(timeout=0):
                pass
            if not self._stop.is_set():
                self._catch_up(conn)

    def _catch_up(self, conn: psycopg.Connection[Any]) -> None:
        while batch := _read(conn, self.position, self.batch):
            self.on_events(batch)
            self.position = batch[-1].position
            if len(batch) < self.batch:
                return
