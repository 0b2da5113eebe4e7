"""The `store` fixture: each store test that takes it runs on SQLite and on PostgreSQL (`pg_url`)."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from sessions_tui.engine.clock import FrozenClock
from sessions_tui.engine.store import Store


def open_store(kind: str, request: pytest.FixtureRequest, state_dir: Path, clock: FrozenClock) -> Store:
    """A store of `kind` with its mirror files in `state_dir` (PostgreSQL: on the test's own database)."""
    if kind == "sqlite":
        return Store(state_dir, clock)
    from sessions_tui.engine.store.postgres.store import PostgresStore

    return PostgresStore(request.getfixturevalue("pg_url"), state_dir, clock)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path, clock: FrozenClock) -> Iterator[Store]:
    opened = open_store(request.param, request, tmp_path, clock)
    yield opened
    opened.close()
