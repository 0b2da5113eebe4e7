"""A psycopg connection that answers the repositories' calls as a sqlite3 connection does.

The repositories (`tables/`, `browsing/`) are written against sqlite3: `conn.execute(sql, params)`
with `?` marks, rows read by name or by position, `fetchone`/`fetchall`/iteration, `executemany`,
`rowcount`, and `sqlite3.IntegrityError` on a duplicate key. `PgConnection` gives them the same over
one psycopg connection, so the SQL of a repository is written once for both stores.

SQLite-only SQL is translated here and nowhere else (`translate`), for what has one plain
PostgreSQL spelling: `?` → `%s` (and a literal `%` doubled), `INSERT OR IGNORE` → `ON CONFLICT DO
NOTHING`, `INSERT OR REPLACE` → `ON CONFLICT (its key) DO UPDATE` (the keys of the tables written that
way are listed here), `LIMIT -1` → `LIMIT ALL`. SQLite's `json_set` is not translated: the PostgreSQL
schema defines a function of that name doing the same to a text column (postgres/schema.py), which keeps
the entry's fields in their order (a translation to `jsonb_set` would not). What has no plain spelling
(FTS5's `MATCH`, `PRAGMA`) is not translated: a repository using it gets a PostgreSQL variant of its own.
A repository reading an insert's `lastrowid` gets it from `RETURNING` the table's generated key (the
tables are listed here, `LASTROWID_KEYS`); SQLite's `json_insert` is a function of the schema, as `json_set`.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from sessions_tui.engine.store.connection import CLAIM

if TYPE_CHECKING:
    import psycopg

REPLACE_KEYS = {"session_generations": "session_id", "session_seen": "key"}
"""The conflict key of each table written with `INSERT OR REPLACE`."""
REPLACE_KEYS["transcript_text_state"] = "id"  # search: the text index's catch-up restarting it

LASTROWID_KEYS = {"outbox": "id", "run_controls": "id", "send_ledger": "id"}
"""The generated key of each table whose inserts are read for `lastrowid` (the insert returns it)."""

_LITERAL = re.compile(r"('(?:[^']|'')*')")
_OR_IGNORE = re.compile(r"^\s*INSERT\s+OR\s+IGNORE\s+INTO", re.IGNORECASE)
_OR_REPLACE = re.compile(r"^\s*INSERT\s+OR\s+REPLACE\s+INTO\s+(\w+)\s*\(([^)]*)\)", re.IGNORECASE)
_UNIQUE_DETAIL = re.compile(r"Key \(([^)]*)\)=")


@lru_cache(maxsize=1024)
def translate(sql: str) -> str:
    """`sql` as written for SQLite, in PostgreSQL's spelling with psycopg's `%s` marks."""
    parts = _LITERAL.split(sql)
    for i in range(0, len(parts), 2):  # outside string literals
        parts[i] = parts[i].replace("%", "%%").replace("?", "%s")
        parts[i] = re.sub(r"\bLIMIT\s+-1\b", "LIMIT ALL", parts[i], flags=re.IGNORECASE)
    for i in range(1, len(parts), 2):
        parts[i] = parts[i].replace("%", "%%")
    out = "".join(parts).replace(CLAIM, "FOR UPDATE SKIP LOCKED")
    if _OR_IGNORE.match(out):
        return _OR_IGNORE.sub("INSERT INTO", out, count=1) + " ON CONFLICT DO NOTHING"
    replace = _OR_REPLACE.match(out)
    if replace:
        table, columns = replace.group(1), [c.strip() for c in replace.group(2).split(",")]
        key = REPLACE_KEYS[table]
        sets = ", ".join(f"{c} = excluded.{c}" for c in columns if c != key)
        head = re.sub(r"\s+OR\s+REPLACE", "", out[: replace.end()], count=1, flags=re.IGNORECASE)
        return f"{head}{out[replace.end() :]} ON CONFLICT ({key}) DO UPDATE SET {sets}"
    return out


_INSERT_INTO = re.compile(r"^\s*INSERT\s+(?:OR\s+\w+\s+)?INTO\s+(\w+)", re.IGNORECASE)


@lru_cache(maxsize=1024)
def returning_key(sql: str) -> str | None:
    """The key an insert of `sql` returns as its `lastrowid` (LASTROWID_KEYS), None for any other statement."""
    found = _INSERT_INTO.match(sql)
    if found is None or re.search(r"\bRETURNING\b", sql, re.IGNORECASE):
        return None
    return LASTROWID_KEYS.get(found.group(1))


class Row(tuple[Any, ...]):
    """A row read by position or by column name, as `sqlite3.Row`."""

    _names: dict[str, int]

    def __new__(cls, values: Sequence[Any], names: dict[str, int]) -> Row:
        row = super().__new__(cls, values)
        row._names = names
        return row

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, str):
            return tuple.__getitem__(self, self._names[item])
        return tuple.__getitem__(self, item)

    def keys(self) -> list[str]:
        return list(self._names)


def row_factory(cursor: psycopg.Cursor[Any]) -> Any:
    """psycopg's rows as `Row`s (the column names looked up once per result)."""
    names = {d.name: i for i, d in enumerate(cursor.description or ())}

    def make(values: Sequence[Any]) -> Row:
        return Row(values, names)

    return make


class Cursor:
    """The result of one statement: its rows and how many it changed (and an insert's `lastrowid`,
    when the statement returned it: then it has no rows, as an insert in SQLite)."""

    lastrowid: int | None = None

    def __init__(self, cursor: psycopg.Cursor[Any], *, returned_key: bool = False) -> None:
        self._cursor = cursor
        if returned_key:
            row = cursor.fetchone()
            self.lastrowid = None if row is None else int(row[0])
            cursor.fetchall()

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    def fetchone(self) -> Any:
        return self._cursor.fetchone() if self._cursor.description else None

    def fetchall(self) -> list[Any]:
        return self._cursor.fetchall() if self._cursor.description else []

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class PgConnection:
    """One psycopg connection (autocommit: the store's `Database` begins and ends its transactions)
    speaking sqlite3's dialect to the repositories."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.raw = conn

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Cursor:
        cursor = self.raw.cursor()
        key = returning_key(sql)
        with _as_sqlite_errors():
            cursor.execute(translate(sql) + (f" RETURNING {key}" if key else ""), params)
        return Cursor(cursor, returned_key=key is not None)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Cursor:
        cursor = self.raw.cursor()
        with _as_sqlite_errors():
            cursor.executemany(translate(sql), rows)
        return Cursor(cursor)

    def run(self, sql: str) -> None:
        """A statement as PostgreSQL spells it (no marks, nothing translated): the store's own."""
        self.raw.execute(sql.encode("utf-8"))


class _as_sqlite_errors:
    """psycopg's integrity errors raised as sqlite3's, with SQLite's message (`UNIQUE constraint failed:
    table.column`): what the repositories catch and tell apart. The duplicate value is never in it."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: object) -> None:
        import psycopg

        if not isinstance(exc, psycopg.IntegrityError):
            return
        diag = exc.diag
        found = _UNIQUE_DETAIL.search(diag.message_detail or "")
        columns = [c.strip() for c in found.group(1).split(",")] if found else []
        what = ", ".join(f"{diag.table_name}.{c}" for c in columns) or str(diag.constraint_name)
        constraint = "UNIQUE" if isinstance(exc, psycopg.errors.UniqueViolation) else "constraint"
        raise sqlite3.IntegrityError(f"{constraint} constraint failed: {what}") from exc
