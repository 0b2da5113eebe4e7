"""The store's one SQLite connection and its transactions, safe across processes.

SQLite in WAL mode holds the truth. Every write is one `BEGIN IMMEDIATE` transaction, so
processes sharing a state directory serialise on SQLite's write lock and none loses a write; a
process killed mid-write loses at most that transaction. A `batch()` groups many writes into few
transactions; `read()` gives one consistent snapshot for several reads. Each table family's
repository (`tables/`, `browsing/`) holds the one `Database` of its store. Async callers run their
store work on the store's own thread (`thread`, store_thread.py), never on their event loop.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sessions_tui.engine.clock import Clock
from sessions_tui.engine.store.browse_schema import catch_up_search, defer_search
from sessions_tui.engine.store.disk import integrity
from sessions_tui.engine.store.disk.private_files import create_file, make_dirs, tighten
from sessions_tui.engine.store.processes import LocalProcesses, Processes
from sessions_tui.engine.store.schema import DB_NAME, SCHEMA_VERSION, migrate, user_version
from sessions_tui.engine.store.store_thread import StoreThread

DEFAULT_CACHE_KIB = -2000  # SQLite's default page cache: 2 MB (negative: KiB)
BULK_CACHE_KIB = -65536  # 64 MB while a batch writes: an import touches index pages all over
WAL_AUTOCHECKPOINT_PAGES = 1000  # SQLite's default
CLAIM = "/*claim*/"
"""Written at the end of a query whose rows a write claims (`write(claim=True)`): a comment to SQLite,
whose writes take turns; `FOR UPDATE SKIP LOCKED` on PostgreSQL (postgres/adapter.py)."""
BUSY_TIMEOUT_MS = 60_000


class StoreError(Exception):
    """A request the store cannot carry out (unknown session, duplicate key, bad id)."""


class StoreDamaged(StoreError):
    """The database is damaged (store/disk/integrity.py): nothing is written to it. The message is one
    line naming the file and what to do."""


class SearchUnreadable(StoreDamaged):
    """A search met damage in the database where it reads (its index, or the lines it points at):
    it cannot answer. The message is one line saying so, naming the file."""


class BatchAborted(Exception):
    """A batch's write failed halfway: its transaction was undone, the batch cannot go on."""


class Database:
    """The connection of one state directory's database, its transactions and its paths."""

    def __init__(self, state_dir: Path | str, clock: Clock | None = None) -> None:
        self.state_dir = Path(state_dir).expanduser()
        make_dirs(self.state_dir)
        self.loosened = tighten(self.state_dir)
        """What was readable by other users in the state directory and is not any more (private_files.py)."""
        self.clock = clock or Clock()
        self.processes: Processes = LocalProcesses()
        self.db_path = self.state_dir / DB_NAME
        create_file(self.db_path)  # 0600 before SQLite creates it 0644 (its -wal and -shm take its mode)
        self._lock = threading.RLock()
        self.thread = StoreThread()
        """Where async callers run their store work, off their event loop (store_thread.py)."""
        self._batching = False
        self._batch_began = 0.0
        self._bulk = False
        self._search_watermark: int | None = None  # a batch's transaction indexes its new sessions at its end
        self.before_batch_commit: list[Callable[[], None]] = []
        """Called before a batch's transaction commits (the transcripts write their batch's mirrors)."""
        self.after_batch: list[Callable[[], None]] = []
        """Called when a batch is over, whether it wrote or not (the transcripts end their mirror writer)."""
        self._conn = sqlite3.connect(self.db_path, timeout=60.0, isolation_level=None, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        # Savepoints and statements with triggers keep their undo pages in a sub-journal: in memory,
        # not in a temporary file written page by page (most of a bulk import's system time).
        self._conn.execute("PRAGMA temp_store=MEMORY")
        self.damage: str | None = integrity.check_at_open(self._conn, self.db_path)
        """Why the database is damaged, when it is known to be: then every write is refused."""
        self._migrate()

    @property
    def damage_notice(self) -> str | None:
        """One line naming the damaged database and what to do, if it is damaged."""
        return None if self.damage is None else integrity.damage_notice(self.db_path, self.damage)

    def known_damage(self) -> str | None:
        """`damage_notice`, once this connection or any other (another process's) found the
        database damaged: the note another one left beside it is looked for (one `stat`)."""
        if self.damage is None:
            self.damage = integrity.recorded(self.db_path)
        return self.damage_notice

    def _found_damaged(self, exc: sqlite3.DatabaseError) -> StoreDamaged:
        """SQLite met damage: kept (for this store and every later process), and the error to raise."""
        if self.damage is None:
            self.damage = str(exc)
            integrity.record_damage(self.db_path, self.damage)
        return StoreDamaged(f"{self.damage_notice}; nothing was written")

    def _migrate(self) -> None:
        version = user_version(self._conn)  # a current file is only read: opening it writes nothing
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.db_path}: written by a newer sessions-tui (schema {version}); upgrade to open it")
        with self.write() as conn:
            version = user_version(conn)  # another process may have migrated it meanwhile
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.db_path}: written by a newer sessions-tui (schema {version}); upgrade to open it"
                )
            migrate(conn, version, self.now())

    def close(self) -> None:
        self.thread.close()  # first: its work may be waiting for the lock
        with self._lock:
            self._conn.close()

    @contextmanager
    def write(
        self, *, savepoint: bool = True, key: str | None = None, claim: bool = False
    ) -> Iterator[sqlite3.Connection]:
        """`_write`, refused (`StoreDamaged`) on a damaged database, and SQLite meeting damage
        taken as such: the transaction undone, nothing more written. Damage another process found
        meanwhile is looked for before a transaction begins (a write inside one was let in).

        `key`: the session whose rows alone the transaction writes (beside rows no other transaction
        reads to decide what it writes: new rows, sums added to); on PostgreSQL such writes of different
        sessions go at once (postgres/database.py). `claim`: a claim of rows (deliveries, announces, due
        jobs) it reads with `CLAIM` (`FOR UPDATE SKIP LOCKED` on PostgreSQL, where claims by several hosts go
        at once, each skipping the rows another is claiming). SQLite's writes take turns."""
        if self.damage is not None or (not self._conn.in_transaction and self.known_damage() is not None):
            raise StoreDamaged(f"{self.damage_notice}; nothing was written")
        try:
            with self._write(savepoint=savepoint) as conn:
                yield conn
        except sqlite3.DatabaseError as exc:
            if integrity.is_corruption(exc):
                raise self._found_damaged(exc) from exc
            raise

    @contextmanager
    def _write(self, *, savepoint: bool) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction: the cross-process write lock is held throughout.

        Inside a `batch()`, a savepoint in the batch's transaction instead: a failed write is
        undone alone and the batch goes on. With `savepoint=False`, a batch's write has none (a
        savepoint copies every page it touches, most of a bulk insert's cost): a write that fails
        before it changed a row is left as if it never ran and the batch goes on, one that fails
        after undoes the whole transaction and its error ends the batch (a `StoreError` becomes
        `BatchAborted`, which callers do not take for one write's failure). For writes whose first
        change is the only one that can fail short of I/O errors (a new session's row).
        """
        with self._lock:
            if self._batching and not self._conn.in_transaction:
                if not self._bulk:
                    self._bulk = True
                    self._conn.execute(f"PRAGMA cache_size={BULK_CACHE_KIB}")
                    self._conn.execute("PRAGMA wal_autocheckpoint=0")
                self._conn.execute("BEGIN IMMEDIATE")
                self._search_watermark = None
                self._batch_began = time.monotonic()
            if self._batching and not savepoint:
                changes = self._conn.total_changes
                try:
                    yield self._conn
                except BaseException as exc:
                    if self._conn.total_changes == changes:
                        raise
                    self._conn.execute("ROLLBACK")
                    if isinstance(exc, StoreError):  # which a caller may take for one write's failure, and go on
                        raise BatchAborted(
                            f"a write failed halfway ({exc}); the batch's transaction is undone"
                        ) from exc
                    raise
                return
            if self._conn.in_transaction:
                self._conn.execute("SAVEPOINT write")
                try:
                    yield self._conn
                except BaseException:
                    self._conn.execute("ROLLBACK TO write")
                    self._conn.execute("RELEASE write")
                    raise
                self._conn.execute("RELEASE write")
                return
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    @contextmanager
    def batch(self, seconds: float = 0.2) -> Iterator[Callable[[], None]]:
        """Many writes in few transactions: an import of thousands of sessions commits once per
        batch, not once per session. Yields `checkpoint()`, to call between units of work; it
        commits once `seconds` have passed since the batch's first write, so other writers never
        wait longer than that. Nothing is locked until the first write.

        A batch that writes works in bulk: a larger page cache, and the WAL checkpointed once at
        its end rather than every thousand pages (each checkpoint rewrites the same index pages
        and waits for the disk); the sessions written are indexed for search once per transaction,
        just before it commits."""
        with self._lock:
            if self._batching:
                raise StoreError("a batch is already open on this store")
            self._batching = True

            def checkpoint() -> None:
                if self._conn.in_transaction and time.monotonic() - self._batch_began >= seconds:
                    self._commit_batch()
                    self._lock.release()  # let this process's other threads in between batches
                    self._lock.acquire()

            try:
                yield checkpoint
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            else:
                if self._conn.in_transaction:
                    self._commit_batch()
            finally:
                self._batching = False
                self._end_bulk()

    def defer_search(self) -> None:
        """Before a session's row is inserted: in a batch, its transaction's new sessions are
        indexed for search together just before it commits (a batch that adds none leaves the
        schema alone)."""
        if self._batching and self._search_watermark is None and self._conn.in_transaction:
            self._search_watermark = defer_search(self._conn)

    def _commit_batch(self) -> None:
        """Commit the batch's transaction once its new sessions are indexed for search (and what
        `before_batch_commit` asks for is done)."""
        for hook in self.before_batch_commit:
            hook()
        if self._search_watermark is not None:
            catch_up_search(self._conn, self._search_watermark)
            self._search_watermark = None
        self._conn.execute("COMMIT")

    def _end_bulk(self) -> None:
        """Back to the usual cache and checkpoints, after checkpointing what the batch wrote; then
        `after_batch`."""
        try:
            self._end_bulk_work()
        finally:
            for hook in self.after_batch:
                hook()

    def _end_bulk_work(self) -> None:
        if not self._bulk:
            return
        self._bulk = False
        if self._conn.in_transaction:  # a failed COMMIT
            self._conn.execute("ROLLBACK")
        self._conn.execute(f"PRAGMA cache_size={DEFAULT_CACHE_KIB}")
        self._conn.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}")
        try:
            wal_bytes = os.path.getsize(f"{self.db_path}-wal")
        except OSError:
            return
        if wal_bytes > WAL_AUTOCHECKPOINT_PAGES * 4096:  # what the usual checkpoints would have done
            # TRUNCATE also gives the grown WAL's disk space back; a reader in the way is waited
            # for only briefly (the pages it does not hold are checkpointed all the same).
            self._conn.execute("PRAGMA busy_timeout=100")
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self._conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for several reads. Damage SQLite meets is kept (`damage`), and its
        error raised as it was."""
        with self._lock:
            if self._conn.in_transaction:  # inside a batch: already one snapshot
                yield self._conn
                return
            self._conn.execute("BEGIN")
            try:
                yield self._conn
            except sqlite3.DatabaseError as exc:
                if integrity.is_corruption(exc):
                    self._found_damaged(exc)
                raise
            finally:
                self._conn.execute("COMMIT")

    @contextmanager
    def peek(self) -> Iterator[sqlite3.Connection]:
        """The connection for a quick read of committed rows, outside any transaction (within the
        caller's, when it is in one: a batch's)."""
        with self._lock:
            yield self._conn

    def data_version(self) -> int:
        """Changes whenever another connection commits (cheap: no disk read)."""
        with self._lock:
            return self._data_version()

    def data_version_if_free(self) -> int | None:
        """`data_version`, or None when another thread of this process holds the store (a watcher
        on the event loop skips its tick rather than wait for a long batch)."""
        if not self._lock.acquire(blocking=False):
            return None
        try:
            return self._data_version()
        finally:
            self._lock.release()

    def watch_changes(self, wake: Callable[[frozenset[str]], None]) -> bool:
        """Whether the store tells of changes as they commit (calling `wake` with the sessions changed,
        from a thread of its own): PostgreSQL's does; here a watcher polls `data_version`."""
        return False

    def prune_changes(self, before: int) -> int:
        """Drop the change log's entries written before `before` (ms): PostgreSQL's events table; SQLite
        keeps none. Returns how many."""
        return 0

    def _data_version(self) -> int:
        """`data_version`, the store's lock held by the caller."""
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def now(self) -> int:
        return self.clock.now_ms()

    def sessions_dir(self, agent_id: str) -> Path:
        return self.state_dir / "agents" / agent_id / "sessions"

    def transcript_path_for(self, agent_id: str, session_id: str) -> Path:
        return self.state_dir / mirror_relpath(agent_id, session_id)


def mirror_relpath(agent_id: str, session_id: str) -> str:
    """A session's mirror file, relative to the state directory (as the index records it)."""
    return f"agents/{agent_id}/sessions/{session_id}.jsonl"
