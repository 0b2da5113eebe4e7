"""Where a local backend's state lives: the state directory and config file (and a store elsewhere, `--store`),
and their errors.

The paths a command resolves before it opens a local backend (`local.open_local`), where the
config path came from, the database's file name, and the one-line errors of a state directory or
a config that cannot be used.
"""

from __future__ import annotations

from sessions_tui.backend.local.opening import StateDirError, database_error_line
from sessions_tui.engine.config import (
    CONFIG_FILE_NAME,
    CONFIG_PATH_ENV,
    ConfigError,
    config_path_origin,
    resolve_config_path,
    resolve_state_dir,
)
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
