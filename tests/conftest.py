"""Shared fixtures: an engine on a temporary state directory with a frozen clock."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pg_cluster import MISSING, Cluster, start_cluster
from scenes import merge  # one deep-merge for configs, shared with the scenes
from sessions_tui.engine.clock import FrozenClock
from sessions_tui.engine.config import parse_config
from sessions_tui.engine.engine import Engine
from sessions_tui.tools.calling.base import ToolCall
from sessions_tui.tools.calling.registry import invoke

pytest_plugins = ["openai_fixture"]

# 2026-04-13T12:00:00Z: a fixed "now" for every test that does not move the clock itself.
NOW_MS = 1_776_081_600_000


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(NOW_MS)


@pytest.fixture
def make_engine(tmp_path: Path, clock: FrozenClock):
    engines: list[Engine] = []

    def make(config: dict[str, Any] | None = None, state: Path | None = None) -> Engine:
        cfg, _ = parse_config(config or {})
        engine = Engine(state or tmp_path / f"state{len(engines)}", cfg, clock=clock)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


@pytest.fixture
def engine(make_engine) -> Engine:
    return make_engine()


def run_tool(
    engine: Engine,
    name: str,
    params: dict[str, Any] | None = None,
    *,
    as_key: str | None = None,
    sandboxed: bool = False,
) -> dict[str, Any]:
    """Call a tool synchronously as a requester (None = the main alias)."""
    call = ToolCall(engine=engine, agent_session_key=as_key, sandboxed=sandboxed)
    return asyncio.run(invoke(call, name, params or {}))


def add_session(engine: Engine, key: str, messages: list[dict[str, Any]] | None = None, **entry: Any) -> str:
    """Create a session under the canonical spelling of `key`; returns that key."""
    canonical = engine.canonical(key)
    engine.store.sessions.create(canonical, entry)
    for message in messages or []:
        engine.store.transcripts.append(canonical, message)
    return canonical


FAST_DEMO = {"models": {"demo": {"latencyMs": 0, "chunkMs": 0}}}


@pytest.fixture
def live_engine(make_engine):
    """An engine whose runs use tools (the tool host attached), on the zero-latency demo model."""
    from sessions_tui.tools.calling.host import EngineToolHost

    def make(config: dict[str, Any] | None = None) -> Engine:
        engine = make_engine(merge(FAST_DEMO, config or {}))
        EngineToolHost(engine)
        return engine

    return make


async def call_tool(
    engine: Engine,
    name: str,
    params: dict[str, Any] | None = None,
    *,
    as_key: str | None = None,
    sandboxed: bool = False,
) -> dict[str, Any]:
    """Call a tool inside a running event loop (async tests)."""
    call = ToolCall(
        engine=engine,
        agent_session_key=as_key,
        sandboxed=sandboxed,
        agent_channel=engine.session_channel(engine.canonical(as_key)) if as_key else None,
    )
    return await invoke(call, name, params or {})


def state_cli(*args: str, state: Path) -> subprocess.CompletedProcess[str]:
    """`sessions-tui --state STATE ARGS…` in a fresh process, the user's own config and home unset."""
    env = {k: v for k, v in os.environ.items() if k not in ("SESSIONS_TUI_HOME", "SESSIONS_TUI_CONFIG")}
    argv = [sys.executable, "-m", "sessions_tui", "--state", str(state), *args]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)


# -- PostgreSQL: a throwaway server per test process, a fresh database per test ----------------------


@pytest.fixture(scope="session")
def pg_cluster():  # type: ignore[no-untyped-def]
    """A PostgreSQL server of this test process's own (tests/pg_cluster.py); the tests that ask for it
    are skipped, and the run says so at its end, where no server binary is installed."""
    cluster = start_cluster()
    if cluster is None:
        pytest.skip(MISSING)
    yield cluster
    cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> str:
    """The URL of a new empty database on the test process's server."""
    import uuid

    return pg_cluster.create_database(f"t_{uuid.uuid4().hex[:16]}")


@pytest.fixture
def pg_stores(pg_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    """Stores on one test database, each as one host (a state directory of its own, named), closed at the
    end: `pg_stores("a", lease_ms=300)`."""
    from sessions_tui.engine.store.postgres.store import PostgresStore

    opened: list[PostgresStore] = []

    def make(name: str, **options: Any) -> PostgresStore:
        opened.append(PostgresStore(pg_url, tmp_path / name, **options))
        return opened[-1]

    yield make
    for store in opened:
        store.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path, clock: FrozenClock):  # type: ignore[no-untyped-def]
    """A store on SQLite, then on PostgreSQL (its own database on the test process's server, `pg_url`;
    skipped without a server binary), its mirror files in `tmp_path`: the store suite runs on both."""
    from sessions_tui.engine.store.store import Store

    if request.param == "sqlite":
        opened = Store(tmp_path, clock)
    else:
        from sessions_tui.engine.store.postgres.store import PostgresStore

        opened = PostgresStore(request.getfixturevalue("pg_url"), tmp_path, clock)
    yield opened
    opened.close()


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # type: ignore[no-untyped-def]
    """Say plainly when the PostgreSQL tests did not run, and why."""
    skipped = terminalreporter.stats.get("skipped", [])
    missing = [r for r in skipped if MISSING in str(getattr(r, "longrepr", ""))]
    if missing:
        terminalreporter.write_line(f"PostgreSQL tests SKIPPED ({len(missing)}): {MISSING}", yellow=True, bold=True)
