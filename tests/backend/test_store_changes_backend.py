"""A backend told of other writers' commits as they land (issue 32): a local backend on PostgreSQL wakes its
watcher (what `serve` pushes to its dashboards) when another host commits; on SQLite it says it cannot, and
the watcher polls `data_version`."""

import threading

from sessions_tui.backend.local.backend import open_local
from sessions_tui.engine.store.postgres.store import PostgresStore

KEY = "agent:main:ops"


async def test_a_local_backend_on_postgresql_is_told_of_another_host_s_commit(tmp_path, pg_url):
    backend = open_local(tmp_path / "a", tmp_path / "none.json5", store=pg_url)
    other = PostgresStore(pg_url, tmp_path / "b")
    try:
        woken = threading.Event()
        assert await backend.watch_store_changes(woken.set)
        before = await backend.data_version()
        other.sessions.create(KEY)
        assert woken.wait(10)
        assert await backend.data_version() != before
    finally:
        other.close()
        await backend.aclose()


async def test_on_sqlite_the_watcher_is_told_to_poll(tmp_path):
    backend = open_local(tmp_path / "a", tmp_path / "none.json5")
    try:
        assert not await backend.watch_store_changes(lambda: None)
    finally:
        await backend.aclose()
