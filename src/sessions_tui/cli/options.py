"""Options several `sessions-tui` commands share, and how a subcommand and its help are declared
(parser.py builds the command line from them)."""

from __future__ import annotations

import argparse
import shutil
import sys
import textwrap
from collections.abc import Callable
from typing import Any, NoReturn

from sessions_tui.cli.errors import EXIT_USAGE, redacted_line

TOKEN_ENV = "SESSIONS_TUI_TOKEN"
"""The bearer token's variable: `serve`'s token, and `--remote`'s unless `--token` is given."""
PASSWORD_ENV = "SESSIONS_TUI_PASSWORD"
"""An OpenClaw gateway's password, unless `--password` is given."""


DEMO_DIR = "<DEMO_DIR>"
"""Stands for the demo's state directory in a help text, until the help is shown (finding the
directory loads what finds the everyday one, which a command given `--state` does not need)."""


def with_demo_dir(text: str) -> str:
    """`text` naming the demo's state directory where it has `DEMO_DIR`."""
    if DEMO_DIR not in text:
        return text
    from sessions_tui.cli.backends import demo_state_dir

    return text.replace(DEMO_DIR, str(demo_state_dir()))


class RedactingParser(argparse.ArgumentParser):
    """A parser whose error repeats what was typed redacted (an option's value, an unknown
    argument, a mistyped command may be a pasted token), with its usage line; exit 2. Its help
    names the demo's state directory where a text has `DEMO_DIR`."""

    def format_help(self) -> str:
        for action in self._actions:
            if action.help:
                action.help = with_demo_dir(action.help)
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {redacted_line(message)}\n")


class CommandParser(RedactingParser):
    """A subcommand's parser whose description and epilog are written only when its help is shown
    (`description_source`, `epilog_source`): the `tool` help lists every tool, which a tool call
    should not load, and a command that runs shows no help to fill to the terminal's width."""

    description_source: Callable[[], str] | None = None
    epilog_source: Callable[[], str] | None = None

    def format_help(self) -> str:
        if self.description_source is not None:
            self.description = self.description_source()
        if self.epilog_source is not None:
            self.epilog = self.epilog_source()
        return super().format_help()


def global_options(
    parser: argparse.ArgumentParser, *, suppress: bool, demo: str | None, demo_dir: str | None = None
) -> None:
    """--state and --config on every command; --demo only where it means something (`demo` is the
    help text, None: the command takes no --demo). `demo_dir`: the command is the demo's own."""
    default = argparse.SUPPRESS if suppress else None
    state_default = f"the demo's own, {demo_dir}" if demo_dir else "$SESSIONS_TUI_HOME, else the XDG data directory"
    config_default = "" if demo_dir else "$SESSIONS_TUI_CONFIG, else "
    parser.add_argument("--state", metavar="DIR", default=default, help=f"state directory (default: {state_default})")
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=default,
        help=f"config file, JSON5 (default: {config_default}<state>/config.json5)",
    )
    if demo is not None:
        parser.add_argument("--demo", action="store_true", default=argparse.SUPPRESS if suppress else False, help=demo)


def remote_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    """--remote and --token: the dashboard and the commands that read or act on sessions, on servers
    instead of a state directory."""
    parser.add_argument(
        "--remote",
        metavar="URL",
        action="append",
        default=argparse.SUPPRESS if suppress else None,
        help="a 'sessions-tui serve' (http://host:port) or an OpenClaw gateway (ws://host:port, or http://) "
        "instead of a state directory, for the dashboard and every command but demo, import-openclaw and "
        "serve; give it again for several (the dashboard shows them all)",
    )
    parser.add_argument(
        "--token",
        metavar="TOKEN",
        action="append",
        default=argparse.SUPPRESS if suppress else None,
        help="the bearer token of the --remote given in the same place in order (one for all if only one; "
        "default $SESSIONS_TUI_TOKEN)",
    )
    parser.add_argument(
        "--password",
        metavar="PASSWORD",
        default=argparse.SUPPRESS if suppress else None,
        help="an OpenClaw gateway's password (gateway.auth.password) for every --remote gateway "
        f"(default ${PASSWORD_ENV})",
    )
    parser.add_argument(
        "--remote-http-only",
        action="store_true",
        default=argparse.SUPPRESS if suppress else False,
        help="speak to an OpenClaw gateway over its HTTP tool API, polled, not its WebSocket (for a gateway "
        "that refuses WebSocket clients)",
    )


def subcommand(
    sub: Any,
    name: str,
    summary: str,
    description: str,
    *,
    epilog_source: Callable[[], str] | None = None,
    **kwargs: Any,
) -> argparse.ArgumentParser:
    """A subcommand of `sub` (made with `parser_class=CommandParser`): its help line `summary`, and
    the paragraphs of `description` after it, filled (`wrapped`) when its help is shown, as
    `epilog_source` writes its epilog then."""
    parser: CommandParser = sub.add_parser(
        name, help=summary, formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs
    )
    parser.description_source = lambda: f"{summary[0].upper()}{summary[1:]}.\n\n{wrapped(with_demo_dir(description))}"
    parser.epilog_source = epilog_source
    return parser


def wrapped(text: str) -> str:
    """Paragraphs filled to the terminal's width (at most 100 columns), as argparse fills its own."""
    width = max(40, min(100, shutil.get_terminal_size().columns - 2))
    return "\n\n".join(
        textwrap.fill(" ".join(p.split()), width=width, break_on_hyphens=False, break_long_words=False)
        for p in text.split("\n\n")
    )


def face_options(
    parser: argparse.ArgumentParser, *, demo: str, requester: str | None = None, sandboxed: str | None = None
) -> None:
    """A command that runs on a backend: --state, --config, --demo, --remote, --token; `requester`:
    the help of its --as, `sandboxed`: of its --sandboxed (None: the command takes none). SUPPRESS:
    given before the command (`sessions-tui --as X tool …`) they count too; a subcommand's own
    default would otherwise overwrite them."""
    global_options(parser, suppress=True, demo=demo)
    remote_options(parser, suppress=True)
    if requester is not None:
        parser.add_argument("--as", dest="as_key", metavar="SESSION_KEY", default=argparse.SUPPRESS, help=requester)
    if sandboxed is not None:
        parser.add_argument("--sandboxed", action="store_true", default=argparse.SUPPRESS, help=sandboxed)
