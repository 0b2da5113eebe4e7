"""Where a local backend's state lives: the state directory and config file (and a store elsewhere, `--store`),
and their errors.

The paths a command resolves before it opens a local backend (`local.open_local`), where the
config path came from, the database's file name, and the one-line errors of a state directory or
a config that cannot be used.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sessions_tui.engine.config import (
    CONFIG_FILE_NAME,
    CONFIG_PATH_ENV,
    ConfigError,
    config_path_origin,
    resolve_config_path,
    resolve_state_dir,
)
from sessions_tui.engine.store.disk.integrity import damage_notice, is_corruption, record_damage
from sessions_tui.engine.store.location import SQLITE, STORE_ENV, LocationError, chosen_location, store_url
from sessions_tui.engine.store.schema import DB_NAME

__all__ = [
    "CONFIG_FILE_NAME",
    "CONFIG_PATH_ENV",
    "DB_NAME",
    "STORE_ENV",
    "LocationError",
    "ConfigError",
    "StateDirError",
    "chosen_location",
    "config_path_origin",
    "database_error_line",
    "SQLITE",
    "store_url",
    "resolve_config_path",
    "resolve_state_dir",
]


class StateDirError(Exception):
    """The state directory is a file, unwritable, or holds a database that is not one."""


def database_error_line(state_dir: Path | None, exc: sqlite3.DatabaseError) -> str:
    """The line a command ends with when SQLite failed on a read: damage is named with what to do
    (and kept, so every later process refuses to write)."""
    database = state_dir / DB_NAME if state_dir is not None else None
    if database is not None and is_corruption(exc):
        record_damage(database, str(exc))
        return damage_notice(database, str(exc))
    where = f"{database}: " if database is not None else ""
    return f"{where}the state database cannot be read: {exc}"
