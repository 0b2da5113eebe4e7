"""Options several `sessions-tui` commands share (each declared once, its help in the words of the
command it is under), how a subcommand and its help are declared (parser.py builds the command line
from them), and the parser every one is: options only by their whole name, and a mistyped command
or option answered with the closest one (`did you mean`)."""

from __future__ import annotations

import argparse
import shutil
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

from sessions_tui.cli.errors import EXIT_USAGE, redacted_line

TOKEN_ENV = "SESSIONS_TUI_TOKEN"
"""The bearer token's variable: `serve`'s token, and `--remote`'s unless `--token` is given."""
TOKEN_FILE = "serve.token"
"""Where in its state directory a `serve` given no token writes the one it makes (mode 600)."""
PASSWORD_ENV = "SESSIONS_TUI_PASSWORD"
"""An OpenClaw gateway's password, unless `--password` is given."""
GATEWAY_ADMIN_ENV = "SESSIONS_TUI_GATEWAY_ADMIN"
"""Set (not empty, not `0`): ask an OpenClaw gateway's WebSocket for `operator.admin` too, which
resetting and compacting a session need there (the gateway's owner approves that scope)."""


DEMO_DIR = "<DEMO_DIR>"
"""Stands for the demo's state directory in a help text, until the help is shown (finding the
directory loads what finds the everyday one, which a command given `--state` does not need)."""


def with_demo_dir(text: str) -> str:
    """`text` naming the demo's state directory where it has `DEMO_DIR`."""
    if DEMO_DIR not in text:
        return text
    from sessions_tui.cli.backends import demo_state_dir

    return text.replace(DEMO_DIR, str(demo_state_dir()))


UNRECOGNIZED = "unrecognized arguments: "
"""How argparse begins its error for what no parser took (`parse_args`)."""


class RedactingParser(argparse.ArgumentParser):
    """A parser whose error repeats what was typed redacted (an option's value, an unknown
    argument, a mistyped command may be a pasted token), with its usage line; exit 2. Its help
    names the demo's state directory where a text has `DEMO_DIR`.

    An option is taken by its whole name only (`--stat` is not `--state`: `allow_abbrev=False`),
    and a command, a choice or an option that is none is answered with the closest there is
    (Python 3.11's argparse has no `suggest_on_error`). `argv`: what it parses (build_parser sets
    it), to tell an unknown option from the command after it (`--stat /tmp`: `/tmp` is no command,
    `--stat` is what was mistyped)."""

    argv: Sequence[str] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def format_help(self) -> str:
        for action in self._actions:
            if action.help:
                action.help = with_demo_dir(action.help)
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        if message.startswith(UNRECOGNIZED):
            message += self.did_you_mean(message.removeprefix(UNRECOGNIZED).split(" "))
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {redacted_line(message)}\n")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is None or value in action.choices:
            return
        unknown = self._unknown_option_before(str(value))
        if unknown is not None:  # `--stat /tmp`: the option was mistyped, its value taken for the command
            self.error(f"{UNRECOGNIZED}{unknown} {value}")
        import difflib  # a mistyped choice's suggestion: loaded by the mistake, not by every command

        choices = [str(choice) for choice in action.choices]
        close = difflib.get_close_matches(str(value), choices, n=1)
        if close:
            listed = ", ".join(map(repr, choices))
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r}, did you mean {close[0]!r}? (choose from {listed})"
            )
        super()._check_value(action, value)

    def _unknown_option_before(self, value: str) -> str | None:
        words = list(self.argv)
        if value not in words or words.index(value) == 0:
            return None
        before = words[words.index(value) - 1]
        known = before.split("=", 1)[0] in self._option_string_actions
        return before if before.startswith("--") and not known else None

    def did_you_mean(self, words: list[str]) -> str:
        """` (did you mean --state?)` for each unknown option among `words` close to a known one,
        of this parser or a command's under it; nothing when none is close."""
        import difflib  # as in _check_value

        options = sorted({option for parser in self.parsers() for option in parser._option_string_actions})
        hints: list[str] = []
        for word in words:
            if word.startswith("-"):
                hints += difflib.get_close_matches(word.split("=", 1)[0], options, n=1)
        return f" (did you mean {', '.join(hints)}?)" if hints else ""

    def parsers(self) -> Iterator[argparse.ArgumentParser]:
        """This parser and every command's under it (only those build_parser gave their options)."""
        yield self
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for parser in action.choices.values():
                    yield from parser.parsers() if isinstance(parser, RedactingParser) else (parser,)


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
    """--state, --store and --config on every command; --demo only where it means something (`demo` is the
    help text, None: the command takes no --demo). `demo_dir`: the command is the demo's own."""
    default = argparse.SUPPRESS if suppress else None
    state_default = f"the demo's own, {demo_dir}" if demo_dir else "$SESSIONS_TUI_HOME, else the XDG data directory"
    config_default = "" if demo_dir else "$SESSIONS_TUI_CONFIG, else "
    parser.add_argument("--state", metavar="DIR", default=default, help=f"state directory (default: {state_default})")
    parser.add_argument(
        "--store",
        metavar="LOCATION",
        default=default,
        help=(
            "where the sessions are stored: postgresql://[user@]host[:port]/dbname, its password from PGPASSWORD "
            "or a password file, never the URL (default: $SESSIONS_TUI_STORE, else the state directory's SQLite)"
        ),
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=default,
        help=f"config file, JSON5 (default: {config_default}<state>/config.json5)",
    )
    if demo is not None:
        parser.add_argument("--demo", action="store_true", default=argparse.SUPPRESS if suppress else False, help=demo)


def remote_urls(opts: argparse.Namespace) -> list[str]:
    """The servers `--remote` named, in order (none: the command runs on a state directory)."""
    return list(getattr(opts, "remote", None) or [])


def remote_options(parser: argparse.ArgumentParser, *, suppress: bool, doing: str) -> None:
    """--remote and --token: the dashboard and the commands that read or act on sessions, on servers
    instead of a state directory. `doing`: what the command does there, in its help (`search`:
    "the server to search")."""
    parser.add_argument(
        "--remote",
        metavar="URL",
        action="append",
        default=argparse.SUPPRESS if suppress else None,
        help=f"the server to {doing}: a 'sessions-tui serve' (http://host:port; a bare host:port is http://) or "
        "an OpenClaw gateway (ws://host:port), instead of a state directory; give it again for several",
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
    parser: argparse.ArgumentParser,
    *,
    doing: str,
    demo: str,
    requester: str | None = None,
    sandboxed: str | None = None,
) -> None:
    """A command that runs on a backend: --state, --config, --demo, --remote, --token; `doing`: what
    it does on a --remote server (`remote_options`), `requester`: the help of its --as, `sandboxed`:
    of its --sandboxed (None: the command takes none). SUPPRESS: given before the command
    (`sessions-tui --as X tool …`) they count too; a subcommand's own default would otherwise
    overwrite them."""
    global_options(parser, suppress=True, demo=demo)
    remote_options(parser, suppress=True, doing=doing)
    if requester is not None:
        parser.add_argument("--as", dest="as_key", metavar="SESSION_KEY", default=argparse.SUPPRESS, help=requester)
    if sandboxed is not None:
        parser.add_argument("--sandboxed", action="store_true", default=argparse.SUPPRESS, help=sandboxed)
