"""Whether the state database is damaged, and what is done then: nothing more is written to it.

A damaged file (pages overwritten by a disk fault or another program) is found two ways:

- When it is opened, once per store connection: a file of at most `WHOLE_CHECK_BYTES` is checked
  whole with `PRAGMA quick_check`. That reads every page, about 1.5 ms a megabyte once the file is
  cached and up to three times that when it is not (measured: 1.45 s and 4.0 s for a 981 MB store
  of 100,000 sessions and a million messages), so a bigger file is not checked whole at every
  start: a command's start must stay quick.
- When SQLite meets damage while reading or writing (`database disk image is malformed`).

Either way the finding is kept beside the database (`sessions.sqlite3.damaged`, with the file's
identity), so every later process refuses to write at once, whatever the size, and so does every
process that has it open already: each looks for the note (one `stat`) before a transaction that
writes (`recorded`). A database put in
its place (restored, or recovered with `.recover`) is a different file: it is checked whole when
next opened, and the note goes once it passes.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from sessions_tui.engine.store.disk.private_files import write_file

WHOLE_CHECK_BYTES = 8 * 1024 * 1024
"""A database (with its WAL) up to this size is checked whole when opened: about 14 ms at most once cached
(bench/integrity_bench.py)."""

MARKER_SUFFIX = ".damaged"
_CORRUPT = {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}


def is_corruption(exc: BaseException) -> bool:
    """Whether SQLite's error says the file is damaged (not busy, full or read-only)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _CORRUPT
    text = str(exc)
    return "malformed" in text or "not a database" in text


def damage_notice(db_path: Path, reason: str) -> str:
    """One line: which file, what is wrong, what to do."""
    return (
        f"{db_path}: the state database is damaged ({reason}): restore it from a backup, or recover what it holds "
        f"(sqlite3 {db_path} .recover | sqlite3 recovered.sqlite3) and put that in its place"
    )


def _marker(db_path: Path) -> Path:
    return Path(f"{db_path}{MARKER_SUFFIX}")


def _identity(db_path: Path) -> list[int] | None:
    try:
        st = os.stat(db_path)
    except OSError:
        return None
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]


def _size(db_path: Path) -> int:
    total = 0
    for path in (db_path, Path(f"{db_path}-wal")):
        try:
            total += os.stat(path).st_size
        except OSError:
            pass
    return total


def record_damage(db_path: Path, reason: str) -> None:
    """Keep the finding beside the database, for every later process (best effort)."""
    try:
        write_file(_marker(db_path), json.dumps({"file": _identity(db_path), "reason": reason}).encode("utf-8"))
    except OSError:
        pass


def recorded(db_path: Path) -> str | None:
    """Why the database was found damaged by whoever found it (another connection, another
    process), when the note beside it names this very file; None when there is no such note."""
    marker = _marker(db_path)
    if not os.path.exists(marker):  # the usual case: one stat
        return None
    try:
        found = json.loads(marker.read_bytes())
    except (OSError, ValueError):
        return None
    identity = _identity(db_path)
    if not isinstance(found, dict) or not isinstance(found.get("file"), list) or identity is None:
        return None
    if found["file"][:2] != identity[:2]:  # another file (put in its place): checked when next opened
        return None
    return str(found.get("reason") or "found damaged before")


def quick_check(conn: sqlite3.Connection) -> str | None:
    """What `PRAGMA quick_check` found wrong first (and how much more), or None when nothing."""
    try:
        rows = [str(row[0]) for row in conn.execute("PRAGMA quick_check").fetchall()]
    except sqlite3.DatabaseError as exc:
        return str(exc)
    if rows == ["ok"]:
        return None
    first = rows[0].strip().splitlines()[-1] if rows and rows[0].strip() else "unknown"
    more = f", and {len(rows) - 1} more" if len(rows) > 1 else ""
    return f"quick_check: {first}{more}"


def check_at_open(conn: sqlite3.Connection, db_path: Path) -> str | None:
    """Why the database just opened is damaged, or None as far as is known (see the module's
    docstring for what is checked when)."""
    marker = _marker(db_path)
    try:
        recorded = json.loads(marker.read_bytes())
    except (OSError, ValueError):
        recorded = None
    if isinstance(recorded, dict):
        if recorded.get("file") == _identity(db_path):
            return str(recorded.get("reason") or "found damaged before")
    elif _size(db_path) > WHOLE_CHECK_BYTES:
        return None
    reason = quick_check(conn)  # small, or put in place of one found damaged: checked whole
    if reason is None:
        if recorded is not None:
            try:
                marker.unlink()
            except OSError:
                pass
        return None
    record_damage(db_path, reason)
    return reason
