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
from sessions_tui.engine.store import DB_NAME
from sessions_tui.engine.store.location import STORE_ENV, LocationError, chosen_location, postgres_url

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
    "postgres_not_ready",
    "resolve_config_path",
    "resolve_state_dir",
]


def postgres_not_ready(location: str, origin: str) -> str:
    """What a command given a PostgreSQL store says (one line, exit 2), until the whole store runs
    there: what is wrong with the location, else which parts are not on PostgreSQL yet."""
    try:
        postgres_url(location, origin)
    except LocationError as exc:
        return str(exc)
    from sessions_tui.engine.store.postgres.store import NOT_YET

    return (
        f"{origin}: the PostgreSQL store holds the engine's records so far; {', '.join(NOT_YET)} are "
        f"not on PostgreSQL yet, and a command needs them: leave {origin} out to use the state directory's SQLite store"
    )
