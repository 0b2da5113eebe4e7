"""The PostgreSQL store's connections and transactions: SQLite's `Database` contract over a psycopg pool.

The repositories hold a `Database` and use `read()`, `write()`, `batch()`, `peek()`, the clock and
`thread`; `PgDatabase` gives them the same over a `psycopg_pool.ConnectionPool`, each connection
wrapped to speak sqlite3's dialect (adapter.py: `?` marks, rows by name, SQLite's integrity errors;
SQLite-only SQL is translated there, in one place). Chosen over a second set of repositories: the
slice's SQL is plain enough to read the same on both, and one set of queries cannot drift apart.

- `write()` is one transaction holding the store's write lock (`pg_advisory_xact_lock`) to its end:
  writers serialise across processes and hosts as SQLite's `BEGIN IMMEDIATE` makes them, so every
  repository's read-then-write stays right. `write(key=K)` is a transaction of session K's rows (a
  transcript append, an entry patch, a run's record): it holds the write lock shared and K's own lock
  (`key_lock`), so such writes of different sessions go at once, on every host, while any other write
  still has the database to itself. `write(claim=True)` claims rows (deliveries, announces, due jobs):
  the write lock shared, and the rows it reads `FOR UPDATE SKIP LOCKED` (adapter.py's `CLAIM`), so hosts
  claiming at once each take other rows, and every row is claimed once. A write inside a write or a
  batch is a savepoint (taking the lock of a key the transaction does not hold yet): PostgreSQL ends a
  transaction at a failed statement, so a failed write is undone alone that way.
- `read()` is one `REPEATABLE READ` snapshot on a connection of its own (readers do not wait for the
  writer); inside a write or a batch of this thread it reads that transaction.
- `peek()` is one connection in autocommit (or this thread's transaction).
Mirror files stay in the state directory, as the SQLite store keeps them.

Across hosts: `processes` is this process among the others writing to the database (hosts.py), and every
change goes to the events table by trigger (schema.py); `data_version` and `watch_changes` read it
(`latest`), and `watch_changes` wakes its watchers through one `EventReader` (events.py, started by the
first watcher) as soon as any host commits a change, a lost notification costing at most a poll.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from sessions_tui.engine.clock import Clock
from sessions_tui.engine.store.connection import BatchAborted, Database, StoreError
from sessions_tui.engine.store.disk.private_files import make_dirs, tighten
from sessions_tui.engine.store.postgres import schema
from sessions_tui.engine.store.postgres.adapter import PgConnection, row_factory
from sessions_tui.engine.store.postgres.hosts import LEASE_MS, HostProcesses
from sessions_tui.engine.store.store_thread import StoreThread

if TYPE_CHECKING:
    import sqlite3

    from psycopg_pool import ConnectionPool

    from sessions_tui.engine.store.postgres.events import Event, EventReader

log = logging.getLogger(__name__)

WRITE_LOCK = 0x5E55_3772
"""The advisory lock every write transaction holds (one writer at a time, as SQLite); not source.py's
table-creation lock, which a host may take while it writes."""
POOL_SIZE = 4
CONNECT_SECONDS = 10.0
CHANGE_POLL_S = 1.0
"""How often the change reader reads without a wake (what a lost notification delays a change by)."""
CHANGE_COALESCE_S = 0.02
"""How long the change reader lets wakes gather before it reads (at most 50 reads a second, however busy)."""


class PgDatabase(Database):
    """One PostgreSQL database's pool of connections and its transactions; mirror files in `state_dir`.

    `url` is set before the constructor runs (`PostgresStore`); its password, if any, comes from the
    environment or a password file, never from the URL (location.py checks)."""

    url: str
    lease_ms: int = LEASE_MS

    def __init__(self, state_dir: Path | str, clock: Clock | None = None) -> None:
        from psycopg_pool import ConnectionPool

        self.state_dir = Path(state_dir).expanduser()
        make_dirs(self.state_dir)
        self.loosened = tighten(self.state_dir)
        self.clock = clock or Clock()
        self.damage = None
        self._lock = threading.RLock()
        self._local = threading.local()
        self.thread = StoreThread()
        self._batching = False
        self._batch_began = 0.0
        self._batch_conn: PgConnection | None = None
        self._batch_thread: int | None = None
        self.before_batch_commit: list[Callable[[], None]] = []
        self.after_batch: list[Callable[[], None]] = []
        self._pool: ConnectionPool[Any] = ConnectionPool(
            self.url,
            min_size=1,
            max_size=POOL_SIZE,
            kwargs={"autocommit": True},
            configure=_configure,
            open=False,
            name="sessions-tui",
        )
        _check_reachable(self.url)
        self._pool.open(wait=True, timeout=CONNECT_SECONDS)
        self._migrate()
        self.processes: HostProcesses = HostProcesses(self._pool, self.lease_ms)
        self._changes: EventReader | None = None
        self._watchers: list[Callable[[frozenset[str]], None]] = []

    def _migrate(self) -> None:
        """Create the schema, or refuse a newer one; a current database is only read (opening it writes
        nothing). Hosts opening a new database at once serialise on the write lock."""
        if self._version() == schema.SCHEMA_VERSION:
            return
        with self.write() as conn:
            version = self._version()  # another host may have created it meanwhile
            if version > schema.SCHEMA_VERSION:
                raise StoreError(
                    f"the database was written by a newer sessions-tui (schema {version}); upgrade to open it"
                )
            if version == schema.SCHEMA_VERSION:
                return
            adapter = cast(PgConnection, conn)
            for statement in schema.STATEMENTS:
                adapter.run(statement)
            for statement in schema.AT_CREATION:
                adapter.execute(statement, (self.now(),))
            adapter.run(schema.SET_VERSION)

    def _version(self) -> int:
        """The schema version the database was last written with (0: a new database)."""
        with self.peek() as conn:
            if conn.execute("SELECT to_regclass('schema_version')").fetchone()[0] is None:
                return 0
            row = conn.execute(schema.VERSION).fetchone()
        return 0 if row is None else int(row[0])

    def close(self) -> None:
        self.thread.close()
        if self._changes is not None:
            self._changes.stop()
        self.processes.close()
        with self._lock:
            self._pool.close()

    # The transaction a caller is in, if any: its connection.

    def _current(self) -> PgConnection | None:
        """This thread's write transaction, or the batch's (to the batch's thread)."""
        conn = cast("PgConnection | None", getattr(self._local, "conn", None))
        if conn is None and self._batch_thread == threading.get_ident():
            conn = self._batch_conn
        return conn

    @contextmanager
    def _connection(self) -> Iterator[PgConnection]:
        with self._pool.connection() as raw:
            yield PgConnection(raw)

    @contextmanager
    def write(
        self, *, savepoint: bool = True, key: str | None = None, claim: bool = False
    ) -> Iterator[sqlite3.Connection]:
        """One transaction holding the store's write lock (shared, with `key`'s own lock, when it writes
        that session's rows); inside a transaction (this thread's, or the open batch's, which every
        thread's writes join as in SQLite), a savepoint (always, `savepoint` or not: PostgreSQL ends a
        transaction at a failed statement)."""
        if (key is not None or claim) and getattr(self._local, "conn", None) is None and not self._batching:
            with self._keyed(key) as conn:
                yield conn
            return
        with self._lock:
            current = cast("PgConnection | None", getattr(self._local, "conn", None))
            if current is None and self._batching:
                current = self._batch_conn or self._begin_batch()
            if current is not None:
                keys = cast("set[str] | None", getattr(self._local, "keys", None))
                if keys is not None and key is not None and key not in keys:  # another session's rows too
                    current.run(f"SELECT pg_advisory_xact_lock({key_lock(key)})")
                    keys.add(key)
                current.run("SAVEPOINT write")
                try:
                    yield cast("sqlite3.Connection", current)
                except BaseException:
                    current.run("ROLLBACK TO SAVEPOINT write")
                    current.run("RELEASE SAVEPOINT write")
                    raise
                current.run("RELEASE SAVEPOINT write")
                return
            with self._transaction(f"pg_advisory_xact_lock({WRITE_LOCK})", None) as conn:
                yield conn

    @contextmanager
    def _keyed(self, key: str | None) -> Iterator[sqlite3.Connection]:
        """A transaction of `key`'s rows (the write lock shared and the key's own lock), or with no key a
        claim (the write lock shared: the rows it claims it locks itself), the locks taken with BEGIN in one
        round trip. Not under `_lock`: this process's threads write other sessions' rows at once too (each
        on a pool connection of its own)."""
        locks = f"pg_advisory_xact_lock_shared({WRITE_LOCK})"
        if key is not None:
            locks += f", pg_advisory_xact_lock({key_lock(key)})"
        with self._transaction(locks, set() if key is None else {key}) as conn:
            yield conn

    @contextmanager
    def _transaction(self, locks: str, keys: set[str] | None) -> Iterator[sqlite3.Connection]:
        """A transaction on a pool connection, `locks` taken with BEGIN (one round trip), this thread's
        until it ends; `keys`: the sessions whose locks it holds (None: the write lock itself, all of them)."""
        with self._connection() as conn:
            conn.run(f"BEGIN; SELECT {locks}")
            self._local.conn, self._local.keys = conn, keys
            try:
                yield cast("sqlite3.Connection", conn)
            except BaseException:
                conn.run("ROLLBACK")
                raise
            else:
                conn.run("COMMIT")
            finally:
                self._local.conn = self._local.keys = None

    def _begin_batch(self) -> PgConnection:
        """A batch's transaction, begun at its first write: a pool connection kept until it ends."""
        conn = PgConnection(self._pool.getconn(timeout=CONNECT_SECONDS))
        try:
            conn.run("BEGIN")
            conn.run(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")
        except BaseException:
            self._pool.putconn(conn.raw)
            raise
        self._batch_conn = conn
        self._batch_began = time.monotonic()
        return conn

    def _end_batch_transaction(self, *, commit: bool) -> None:
        conn = self._batch_conn
        if conn is None:
            return
        try:
            if commit:
                for hook in self.before_batch_commit:
                    hook()
                conn.run("COMMIT")
            else:
                conn.run("ROLLBACK")
        except BaseException:
            if commit:
                conn.run("ROLLBACK")
            raise
        finally:
            self._batch_conn = None
            self._pool.putconn(conn.raw)

    @contextmanager
    def batch(self, seconds: float = 0.2) -> Iterator[Callable[[], None]]:
        """Many writes in few transactions (SQLite's `batch`): `checkpoint()` commits once `seconds`
        have passed since the transaction's first write."""
        with self._lock:
            if self._batching:
                raise StoreError("a batch is already open on this store")
            self._batching = True
            self._batch_thread = threading.get_ident()

            def checkpoint() -> None:
                if self._batch_conn is not None and time.monotonic() - self._batch_began >= seconds:
                    self._end_batch_transaction(commit=True)
                    self._lock.release()
                    self._lock.acquire()

            try:
                yield checkpoint
            except BaseException:
                self._end_batch_transaction(commit=False)
                raise
            else:
                self._end_batch_transaction(commit=True)
            finally:
                self._batching = False
                self._batch_thread = None
                for hook in self.after_batch:
                    hook()

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """One consistent snapshot (this thread's transaction, when it is in one)."""
        current = self._current()
        if current is not None:
            yield cast("sqlite3.Connection", current)
            return
        with self._connection() as conn:
            conn.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                yield cast("sqlite3.Connection", conn)
            finally:
                conn.run("COMMIT")

    @contextmanager
    def peek(self) -> Iterator[sqlite3.Connection]:
        """A connection for a quick read of committed rows (this thread's transaction, when it is in one)."""
        current = self._current()
        if current is not None:
            yield cast("sqlite3.Connection", current)
            return
        with self._connection() as conn:
            yield cast("sqlite3.Connection", conn)

    def defer_search(self) -> None:
        """PostgreSQL indexes text as it is written (text_search.py): nothing to defer."""

    def known_damage(self) -> str | None:
        return None

    @property
    def damage_notice(self) -> str | None:
        return None

    def data_version(self) -> int:
        """Moves whenever any host commits a change: the position of the last change every reader can
        read (events.py's `latest`: one indexed read), packed in a number; what a watcher polls."""
        from sessions_tui.engine.store.postgres.events import Events

        with self._pool.connection() as conn:
            position = Events(conn).latest()
        return (position.tx << 32) | (position.id & 0xFFFF_FFFF)

    def data_version_if_free(self) -> int | None:
        return self.data_version()

    def watch_changes(self, wake: Callable[[frozenset[str]], None]) -> bool:
        """Call `wake` with the sessions changed (from the change reader's thread, started by the first
        call) after every batch of changes any host commits."""
        with self._lock:
            self._watchers.append(wake)
            if self._changes is None:
                from sessions_tui.engine.store.postgres.events import EventReader, Events

                with self._pool.connection() as conn:
                    after = Events(conn).latest()
                self._changes = EventReader(
                    self.url, self._changes_read, after=after, poll_s=CHANGE_POLL_S, coalesce_s=CHANGE_COALESCE_S
                ).start()
        self._changes.ready.wait(CONNECT_SECONDS)
        return True

    def _changes_read(self, batch: list[Event]) -> None:
        keys = frozenset(event.session_key for event in batch)
        for wake in list(self._watchers):
            try:
                wake(keys)
            except Exception:  # one watcher's failure stops neither the reader nor the others
                log.exception("a watcher of the store's changes failed")

    def prune_changes(self, before: int) -> int:
        """Delete the events written before `before` (ms since the epoch)."""
        from sessions_tui.engine.store.postgres.events import Events

        return Events(self._pool).prune(before)


def key_lock(key: str) -> int:
    """A session key's advisory lock: a 64-bit hash of it (a collision only makes two sessions take turns)."""
    return int.from_bytes(hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest(), "big", signed=True)


def where(url: str) -> str:
    """The database a URL names, as the errors say it: host, port and name (never user or password)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"postgresql://{parts.hostname or 'localhost'}{port}{parts.path}"


def _check_reachable(url: str) -> None:
    """Connect once before the pool does, so a database that cannot be used is one line saying why
    (the pool would only time out); the server's own words, first line."""
    import psycopg

    try:
        psycopg.connect(url, connect_timeout=int(CONNECT_SECONDS)).close()
    except psycopg.Error as exc:
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise StoreError(f"{where(url)}: cannot open the PostgreSQL store: {reason}") from None


def _configure(conn: Any) -> None:
    """Each pooled connection: rows as `Row`s (adapter.py)."""
    conn.row_factory = row_factory


__all__ = ["BatchAborted", "PgDatabase"]
