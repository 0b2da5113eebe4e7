"""The `sessions-tui` command: `main` (`entry` as installed), and the table of which module runs each subcommand (the
dashboard, `tool`, `send`, `sends`, `explain`, `search`, `export`, `session`, `cron`, `demo`,
`import-openclaw`, `serve`, `watch`, `usage`, `store`); their options and help texts are in `parser.py`
(`cron_parser.py` for `cron`, `store_parser.py` for `store`), each command in `commands/<name>.py`.

Exit codes: 0 for every tool result (including `status:"error"`/`"forbidden"`), 2 with one
line on stderr for invalid arguments, an unknown tool, a bad or missing config file, or a state
directory that cannot be used (`errors.py`). Everything printed that sessions-tui did not write
itself (agent text, keys, paths, problems) has its control characters made visible; JSON escapes them.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable, Sequence

Handler = Callable[[argparse.Namespace], int]
"""A command's `run`: it takes the parsed arguments and returns the exit status."""

COMMANDS_PACKAGE = "sessions_tui.cli.commands"
HANDLERS: dict[str | None, str] = {
    None: "dashboard",
    "tool": "tool",
    "send": "send",
    "sends": "sends",
    "explain": "explain",
    "search": "search",
    "export": "export",
    "session": "session",
    "cron": "cron",
    "demo": "demo",
    "import-openclaw": "import_openclaw",
    "serve": "serve",
    "watch": "watch",
    "usage": "usage",
    "store": "store",
}
"""Each command (None: no command, the dashboard) to its module under `commands/`, whose `run`
runs it. A module is loaded only when its command is the one given: a `tool` call loads neither the
dashboard, nor the server, nor any other command."""


def handler(command: str | None) -> Handler:
    """The `run` of `command`'s module, loaded now."""
    run: Handler = importlib.import_module(f"{COMMANDS_PACKAGE}.{HANDLERS[command]}").run
    return run


def main(argv: Sequence[str] | None = None) -> int:
    # pydantic looks for plugins in every installed package's metadata when it builds its first
    # validator; sessions-tui uses none, and the scan is a good part of a `tool` call's start.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from sessions_tui.cli.arguments import check_arguments
    from sessions_tui.cli.errors import run_reporting
    from sessions_tui.cli.parser import build_parser

    args = sys.argv[1:] if argv is None else list(argv)
    opts = build_parser(args).parse_args(args)

    def command() -> int:
        check_arguments(opts)
        return handler(opts.command)(opts)

    return run_reporting(command, opts)


def entry() -> int:
    """The installed `sessions-tui` command and `python -m sessions_tui`: `main`, in a process that
    ends as it returns. Tests call `main`, which leaves the cyclic collector be; here it is kept off
    what cannot be garbage, a sixth of a `tool` call's time. Loading the command line (the engine,
    the tools) builds objects that live as long as the process, so the collector is off while it
    loads and then told to set them aside (`gc.freeze`); at the end the exit frees what is left,
    and the collector's last walks over every object are spared the same way."""
    gc.disable()
    try:
        for module in LOADED_FIRST:
            importlib.import_module(module)
        gc.freeze()
    finally:
        gc.enable()
    status = main()
    gc.freeze()
    return status


LOADED_FIRST = ("sessions_tui.cli.parser", "sessions_tui.cli.arguments", "sessions_tui.cli.errors")
"""What `main` imports whatever the command: most of what a `tool` call loads."""
