"""Two "hosts" on one test database: a connection pool each, as two engine processes would hold."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from psycopg_pool import ConnectionPool


@contextmanager
def two_pools(url: str, size: int = 2) -> Iterator[tuple[ConnectionPool[Any], ConnectionPool[Any]]]:
    """Host A's pool and host B's, opened (their connections made) and closed at the end."""
    a = ConnectionPool(url, min_size=size, max_size=size, open=True)
    b = ConnectionPool(url, min_size=size, max_size=size, open=True)
    try:
        a.wait()
        b.wait()
        yield a, b
    finally:
        a.close()
        b.close()
