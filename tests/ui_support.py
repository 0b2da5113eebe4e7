"""Building the dashboard on a demo state for Pilot and snapshot tests: frozen clock, fixed ids."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import json5

from conftest import NOW_MS, merge
from sessions_tui.config import parse_config
from sessions_tui.engine import ids
from sessions_tui.engine.clock import FrozenClock
from sessions_tui.engine.demo import DEMO_CONFIG, seed_demo
from sessions_tui.engine.engine import Engine
from sessions_tui.ui.app import SessionsApp

SIZE = (160, 48)
SNAPSHOT_ROOT = Path("/tmp/sessions-tui-snapshots")


def demo_app(state: Path, config: dict[str, Any] | None = None, *, latency_ms: int = 0, watch_store: bool = True,
             acting_as: str = "main", sandboxed: bool = False) -> SessionsApp:
    """The demo on a fresh state directory, with the demo config plus `config`."""
    ids.use_sequence(state.name)
    if state.exists():
        shutil.rmtree(state)
    base = json5.loads(DEMO_CONFIG)
    data = merge(base, {"models": {"demo": {"latencyMs": latency_ms, "chunkMs": 0}}}, config or {})
    cfg, _ = parse_config(data)
    engine = Engine(state, cfg, clock=FrozenClock(NOW_MS))
    seed_demo(engine, None)
    return SessionsApp(engine, acting_as=acting_as, sandboxed=sandboxed, watch_store=watch_store, steady=True)


def snapshot_state(name: str) -> Path:
    """A fixed state path per snapshot (it is shown on screen, so it must not vary)."""
    return SNAPSHOT_ROOT / name


def text_of(widget: Any) -> str:
    """The plain text a Static shows."""
    return str(widget.render())


async def settle(pilot: Any, seconds: float = 0.15) -> None:
    """Let workers and message handlers finish."""
    await pilot.pause(seconds)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause(0.05)


def ordered_keys(app: SessionsApp) -> list[str]:
    """The displayed keys of the session table, top to bottom."""
    table = app.main_screen.query_one("#sessions")
    return [table.rows_by_key[row.key.value]["key"] for row in table.ordered_rows]
