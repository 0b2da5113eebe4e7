"""Which backend a command runs on: the local state directory (the everyday one, the demo's, a
followed OpenClaw's, or `--state`) with its config, or the servers of `--remote`; what is said
on stderr about it (config warnings, a damaged store, work left pending).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from sessions_tui.backend.toolkit.state_dir import (
    CONFIG_FILE_NAME,
    CONFIG_PATH_ENV,
    SQLITE,
    ConfigError,
    LocationError,
    StateDirError,
    chosen_location,
    config_path_origin,
    resolve_config_path,
    resolve_state_dir,
    store_url,
)
from sessions_tui.backend.values.vocabulary import StoreError
from sessions_tui.cli.errors import UsageError
from sessions_tui.cli.options import remote_urls
from sessions_tui.terminal_text import visible_line

if TYPE_CHECKING:
    from sessions_tui.backend.contract.protocols import Backend
    from sessions_tui.backend.local.backend import LocalBackend

DEMO_DIR_SUFFIX = "-demo"


def demo_state_dir() -> Path:
    """Where the demo lives unless `--state` is given: beside the everyday state directory
    (`~/.local/share/sessions-tui-demo`), so the demo never fills the one used day to day."""
    everyday = resolve_state_dir(None)
    if not everyday.name:  # the everyday one is a root directory: no sibling to name
        return everyday / "sessions-tui-demo"
    return everyday.with_name(everyday.name + DEMO_DIR_SUFFIX)


def openclaw_root(opts: argparse.Namespace) -> Path | None:
    """`--openclaw DIR`, checked to hold an OpenClaw state directory (exit 2 if not)."""
    value = getattr(opts, "openclaw", None)
    if not value:
        return None
    from sessions_tui.backend.toolkit.openclaw import NoOpenClawState, require_agents

    root = Path(value).expanduser().resolve()
    try:
        require_agents(root)
    except NoOpenClawState as exc:
        raise UsageError(f"--openclaw: {exc}") from exc
    if getattr(opts, "demo", False):
        raise UsageError("--openclaw and --demo do not go together: the demo has sessions of its own")
    return root


def openclaw_state_dir(root: Path) -> Path:
    """The state directory that mirrors one OpenClaw, so its sessions never mix with others'."""
    digest = hashlib.sha256(str(root).encode("utf-8")).hexdigest()[:10]
    return resolve_state_dir(None) / "openclaw" / f"{root.name.lstrip('.') or 'openclaw'}-{digest}"


def check_named_config(opts: argparse.Namespace, config_path: Path) -> None:
    """A config file someone named must be there; only the default one may be absent (and with
    `--demo`, a named one that is absent is where the demo config is written)."""
    origin = config_path_origin(opts.config)
    if origin is None or opts.demo:
        return
    try:
        os.stat(config_path)
    except (FileNotFoundError, NotADirectoryError):
        raise UsageError(f"{origin} {config_path}: config file not found") from None
    except OSError:
        pass  # said by the config loader, which reads it


def state_and_config(opts: argparse.Namespace, openclaw: Path | None) -> tuple[Path, Path]:
    """The state directory and config file a command uses. The demo and each followed OpenClaw
    have a state directory of their own unless `--state` is given; the demo's config is its own
    too (`$SESSIONS_TUI_CONFIG` is the everyday one), unless `--config` is given."""
    if opts.state:
        state_dir = resolve_state_dir(opts.state)
    elif openclaw:
        state_dir = openclaw_state_dir(openclaw)
    elif opts.demo:
        state_dir = demo_state_dir()
        return state_dir, Path(opts.config).expanduser() if opts.config else state_dir / CONFIG_FILE_NAME
    else:
        state_dir = resolve_state_dir(None)
    return state_dir, resolve_config_path(opts.config, state_dir)


def open_backend(opts: argparse.Namespace) -> LocalBackend:
    """The engine of the chosen state directory, as a local backend; `opts.openclaw_root` is set
    to `--openclaw`'s, `opts.state_dir` and `opts.config_path` to the directory and file opened.

    Config warnings are printed on stderr and kept (`Backend.config_warnings`) for the dashboard,
    whose screen would hide them.
    """
    location = chosen_location(getattr(opts, "store", None))
    try:
        store = None if location is None else store_url(*location) or SQLITE
    except LocationError as exc:
        raise UsageError(str(exc)) from None
    openclaw = opts.openclaw_root = openclaw_root(opts)
    state_dir, config_path = state_and_config(opts, openclaw)
    opts.state_dir = state_dir
    if openclaw and not opts.config and not os.environ.get(CONFIG_PATH_ENV) and (openclaw / "openclaw.json").is_file():
        config_path = openclaw / "openclaw.json"  # see sessions with the followed OpenClaw's own settings
    check_named_config(opts, config_path)
    opts.config_path = config_path
    from sessions_tui.backend.local.backend import open_local  # the engine: loaded by the commands that open one

    try:
        backend = open_local(state_dir, config_path, demo=opts.demo, store=store)
    except (ConfigError, StoreError, StateDirError) as exc:
        raise UsageError(str(exc)) from exc
    for warning in backend.config_warnings:
        print(f"warning: {visible_line(warning)}", file=sys.stderr)
    damage = backend.store_damage
    if damage is not None:
        if writes(opts):
            backend.close()
            raise UsageError(f"{damage}; nothing was written")
        print(f"warning: {visible_line(damage)}; showing what can still be read", file=sys.stderr)
    return backend


READING_TOOLS = frozenset({"sessions_list", "sessions_history", "sessions_search", "agents_list"})
READING_COMMANDS = frozenset({"sends", "search", "export", "explain", "watch"})


def writes(opts: argparse.Namespace) -> bool:
    """Whether the command may write to the state database: all but the reading commands and tools
    (and those with `--openclaw`, which imports first). On a damaged database it is refused."""
    if opts.command == "tool" and not getattr(opts, "openclaw", None):
        return opts.name not in READING_TOOLS
    return opts.command not in READING_COMMANDS or bool(getattr(opts, "openclaw", None))


def face_backend(opts: argparse.Namespace) -> Backend:
    """The backend of the dashboard, `tool` and `send`: the servers of `--remote`, else the local state."""
    if not remote_urls(opts):
        return open_backend(opts)
    from sessions_tui.cli.remote import open_remote

    backend = open_remote(opts)
    opts.openclaw_root = None
    for warning in backend.config_warnings:
        print(f"warning: {visible_line(warning)}", file=sys.stderr)
    return backend


def warn_left_pending(backend: Backend) -> None:
    """Say on stderr what the backend left pending when it closed (deliveries still to make)."""
    line = backend.left_pending_line()
    if line is not None:
        print(visible_line(line), file=sys.stderr)
