"""Bringing an engine to life: the state directory checked, the tool layer attached, what a
crash left behind picked up, and sends into OpenClaw-owned sessions given to their own gateway.

The local backend opens its engine through here (`open_local`), so a state
directory that cannot be used is one line naming it (never a traceback, never a file changed),
agents' tool calls work, and no interrupted run or unannounced sub-agent is forgotten.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessions_tui.backend.toolkit.state_dir import StateDirError
from sessions_tui.engine.config import LoadedConfig
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.inputs.files import NotRegularFile, check_regular, kind_of
from sessions_tui.engine.store.disk.integrity import damage_notice, is_corruption
from sessions_tui.engine.store.schema import DB_NAME
from sessions_tui.tools.calling.host import EngineToolHost

if TYPE_CHECKING:
    from sessions_tui.backend.gateway.acting.openclaw_sender import GatewaySocketSender


def check_state_dir(state_dir: Path) -> None:
    """Refuse what would fail half-way through opening, before anything is created or opened."""
    try:
        mode = os.stat(state_dir).st_mode
    except FileNotFoundError:
        return  # created when the store opens
    except OSError as exc:
        raise StateDirError(f"{state_dir}: cannot use as the state directory: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(mode):
        raise StateDirError(f"{state_dir}: is {kind_of(mode)}, not a state directory")
    if not os.access(state_dir, os.W_OK | os.X_OK):
        raise StateDirError(f"{state_dir}: the state directory is not writable")
    database = state_dir / DB_NAME
    try:
        check_regular(database)
    except FileNotFoundError:
        return
    except NotRegularFile as exc:
        raise StateDirError(f"{database}: is {exc.kind}, not a sessions-tui database") from None
    except OSError as exc:
        raise StateDirError(f"{database}: cannot use: {exc.strerror or exc}") from None
    if not os.access(database, os.R_OK | os.W_OK):
        raise StateDirError(f"{database}: the database is not writable")


def open_engine(state_dir: Path, config_path: Path, store: str | None = None) -> tuple[Engine, LoadedConfig]:
    """`Engine.open` (raising `ConfigError`, and `StoreError` for a PostgreSQL store that cannot be
    used), or `StateDirError`: SQLite refuses a file that is not a database before writing to it, so a
    corrupt one stays byte for byte as it was."""
    check_state_dir(state_dir)
    try:
        return Engine.open(state_dir, config_path, store=store)
    except sqlite3.Error as exc:
        if is_corruption(exc):
            raise StateDirError(f"{damage_notice(state_dir / DB_NAME, str(exc))}; nothing was written") from exc
        raise StateDirError(f"{state_dir / DB_NAME}: cannot open the state database: {exc}") from exc
    except OSError as exc:
        raise StateDirError(f"{state_dir}: cannot use as the state directory: {exc.strerror or exc}") from exc


def attach_tools(engine: Engine) -> None:
    EngineToolHost(engine)


async def start(engine: Engine) -> None:
    """Attach the tools; end runs dead processes left, resume their deliveries; announce and archive
    what is due; serve the kills and steers other processes ask of this one (from its first run
    on: only a process that holds a run is asked). When the store holds nothing of that to pick
    up (one read), the parts that pick it up are not loaded."""
    if engine.tool_host is None:
        attach_tools(engine)
    if engine.store.damage is not None:
        return  # what there is to pick up would be written into it: only reads go on
    engine.serves_controls = True
    if engine.store.processes.shared:  # other hosts run beside this one: what a dead one leaves is taken over
        engine.takeover.start()
    if not engine.store.left_to_pick_up(engine.now()):
        return
    from sessions_tui.engine.runs.recovery import recover_interrupted

    recover_interrupted(engine)  # runs dead processes left, and the agent-to-agent flows of their sends
    engine.run_controls.recover()  # kills and steers asked of processes that are gone (run_controls.py)
    engine.outbox.resume()  # deliveries a stopped or dead process left pending
    engine.subagents.recover()
    engine.subagents.sweep()


class GatewaySenderOnFirstUse:
    """The engine's `OpenClawSender`: `backend.gateway.acting.openclaw_sender`'s, loaded on the first send into
    an OpenClaw-owned session (a command that sends into none loads no gateway code)."""

    def __init__(self) -> None:
        self._sender: GatewaySocketSender | None = None

    async def send(
        self, owner: Path, key: str, message: str, *, timeout_seconds: int, display: str
    ) -> dict[str, Any] | None:
        if self._sender is None:
            from sessions_tui.backend.gateway.acting.openclaw_sender import GatewaySocketSender

            self._sender = GatewaySocketSender()
        return await self._sender.send(owner, key, message, timeout_seconds=timeout_seconds, display=display)

    async def aclose(self) -> None:
        if self._sender is not None:
            await self._sender.aclose()
