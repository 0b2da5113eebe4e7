"""What the arguments must be before any command runs: text arguments that are UTF-8 text, options
that go with the command given, and the requester session `--as` names."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.toolkit.keys import looks_like_session_id, looks_like_session_key
from sessions_tui.cli.errors import UsageError

if TYPE_CHECKING:
    from sessions_tui.backend.contract.protocols import Backend

# The command-line arguments that are text, not paths, by the name a refusal gives them (an
# argument given several times, or taking several words, is a list of them).
_TEXT_ARGUMENTS = {
    "name": "NAME",
    "args_json": "ARGS_JSON",
    "key": "KEY",
    "message": "MESSAGE",
    "query": "QUERY",
    "as_key": "--as",
    "from_key": "FROM",
    "target": "TO",
    "agent": "--agent",
    "session": "--session",
    "remote": "--remote",
    "token": "--token",
    "host": "--host",
    "workers": "--workers",
}

# The commands `--demo` (given before them) means nothing to, and why.
_NO_DEMO = {"demo": "it writes the demo already", "import-openclaw": "the demo has sessions of its own"}


def check_text_arguments(opts: argparse.Namespace) -> None:
    """Refuse bytes that are not UTF-8 in a text argument: Python hands them over as lone surrogates
    (surrogateescape), which no key, tool name, message or query can hold. Paths are bytes and may."""
    for attr, name in _TEXT_ARGUMENTS.items():
        value = getattr(opts, attr, None)
        for text in value if isinstance(value, list) else [value]:
            if not isinstance(text, str):
                continue
            undecodable = next((i for i, c in enumerate(text) if "\ud800" <= c <= "\udfff"), None)
            if undecodable is not None:
                raise UsageError(f"{name}: not UTF-8 text (character {undecodable})")


def check_arguments(opts: argparse.Namespace) -> None:
    """Every check that comes before a command runs: its text arguments, and `--demo` and `--remote`
    given before a command they do not go with."""
    check_text_arguments(opts)
    if opts.demo and opts.command in _NO_DEMO:
        raise UsageError(
            f"--demo goes with the commands that read or act on sessions, not {opts.command}: {_NO_DEMO[opts.command]}"
        )
    if getattr(opts, "remote", None) and opts.command in ("demo", "import-openclaw", "serve"):
        raise UsageError(f"--remote goes with the commands that read or act on sessions, not {opts.command}")


def requester_of(backend: Backend, as_key: str | None, sandboxed: bool) -> Requester:
    """The session a command acts as: `--as` (a key or sessionId), else main."""
    if as_key is not None:
        key = as_key.strip()
        if not key or not (looks_like_session_key(key) or looks_like_session_id(key)):
            raise UsageError(f"--as: not a session key: {as_key!r}")
        if key == "current":
            raise UsageError("--as: 'current' names no session here; give a key")
    else:
        key = "main"
    return Requester(
        key=key if as_key is not None else None,
        sandboxed=sandboxed or backend.is_sandboxed(backend.canonical(key)),
    )
