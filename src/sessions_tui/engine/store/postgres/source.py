"""Where the events table's appends and readers get their connection: the caller's psycopg
connection, or one borrowed from a psycopg_pool `ConnectionPool` for the call.

On the caller's connection a call is a `transaction()` block: a transaction of its own when none is
open (autocommit), else a savepoint in the caller's, which the caller commits with its own writes (a
change and its event committed together). On a pool it is a connection of the pool's for the call,
committed when the call ends. Tables are created under a transaction-scoped advisory lock, so hosts
opening one database at once do not race on `CREATE … IF NOT EXISTS` (which is not safe concurrently).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, LiteralString, TypeAlias

import psycopg
from psycopg_pool import ConnectionPool

Source: TypeAlias = "psycopg.Connection[Any] | ConnectionPool[Any]"
"""A connection of the caller's, or a pool to borrow one from."""

_CREATE_LOCK = 0x5E55_1045
"""The advisory lock key under which the coordination tables are created (any constant of ours)."""


@contextmanager
def transaction(source: Source) -> Iterator[psycopg.Connection[Any]]:
    """A connection in a transaction that commits when the block ends (rolls back on an error)."""
    if isinstance(source, ConnectionPool):
        with source.connection() as conn, conn.transaction():
            yield conn
    else:
        with source.transaction():
            yield source


def create_tables(source: Source, ddl: list[LiteralString]) -> None:
    """Run `ddl` (idempotent statements) in one transaction, one host at a time."""
    with transaction(source) as conn:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_CREATE_LOCK,))
        for statement in ddl:
            conn.execute(statement)
