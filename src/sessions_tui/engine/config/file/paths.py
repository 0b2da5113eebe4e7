"""Where the state directory and the config file are: the command line, then the environment, then the default.

`--state`, else `$SESSIONS_TUI_HOME`, else the platform's data directory; the config file is
`--config`, else `$SESSIONS_TUI_CONFIG`, else `<state>/config.json5`. A config file someone
named must exist; the default one may be absent.
"""

import os
from pathlib import Path
from typing import Union

__all__ = [
    "APP_NAME",
    "CONFIG_FILE_NAME",
    "CONFIG_PATH_ENV",
    "STATE_DIR_ENV",
    "config_path_origin",
    "resolve_config_path",
    "resolve_state_dir",
]

APP_NAME = "sessions-tui"
CONFIG_FILE_NAME = "config.json5"
STATE_DIR_ENV = "SESSIONS_TUI_HOME"
CONFIG_PATH_ENV = "SESSIONS_TUI_CONFIG"


def _nonempty(value: Union[str, "os.PathLike[str]", None]) -> str | None:
    if value is None:
        return None
    text = os.fspath(value)
    return text if text.strip() else None


def resolve_state_dir(cli_value: Union[str, "os.PathLike[str]", None]) -> Path:
    """`--state`, else `$SESSIONS_TUI_HOME`, else the XDG data dir; `~` expanded."""
    chosen = _nonempty(cli_value) or _nonempty(os.environ.get(STATE_DIR_ENV))
    if chosen is None:
        import platformdirs  # loaded only when the default is the one that counts

        chosen = platformdirs.user_data_dir(APP_NAME)
    return Path(chosen).expanduser()


def resolve_config_path(cli_value: Union[str, "os.PathLike[str]", None], state_dir: Path) -> Path:
    """`--config`, else `$SESSIONS_TUI_CONFIG`, else `<state>/config.json5`; `~` expanded."""
    chosen = _nonempty(cli_value) or _nonempty(os.environ.get(CONFIG_PATH_ENV))
    if chosen is not None:
        return Path(chosen).expanduser()
    return Path(state_dir).expanduser() / CONFIG_FILE_NAME


def config_path_origin(cli_value: Union[str, "os.PathLike[str]", None]) -> str | None:
    """Who named the config file (`--config`, `$SESSIONS_TUI_CONFIG`), or None for the default:
    a file someone named must exist, the default one may be absent."""
    if _nonempty(cli_value) is not None:
        return "--config"
    if _nonempty(os.environ.get(CONFIG_PATH_ENV)) is not None:
        return f"${CONFIG_PATH_ENV}"
    return None
