"""The command line's one error, `UsageError`, and the one place every error a command ends with is
said: one line on stderr, redacted where it repeats what was typed, its controls made visible; exit 2.
A command asks its backend for what it needs first (`require`): one line when it is not there.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from sessions_tui.backend.contract.types import BackendUnavailable, Capability
from sessions_tui.backend.toolkit.state_dir import database_error_line
from sessions_tui.backend.values.vocabulary import StoreDamaged
from sessions_tui.terminal_text import visible_line

if TYPE_CHECKING:
    from sessions_tui.backend.contract.protocols import Backend

EXIT_OK = 0
EXIT_REFUSED = 1  # well formed, but refused: by a policy, the state, or what the backend lacks
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """Bad input on the command line (an argument, an option, a file or server it names that cannot
    be used): one line on stderr, exit 2. The message names what, then why: `--limit: between …`."""


def require(backend: Backend, capability: Capability) -> None:
    """A command that needs `capability` on a backend without it ends here, before it asks: the
    backend's one line for it (`not_offered`), exit 2."""
    if capability not in backend.capabilities:
        raise UsageError(backend.not_offered(capability))


def redacted_line(text: str) -> str:
    """`text` as one line of output, redacted as every output is: what was typed may be a pasted token."""
    from sessions_tui.backend.toolkit.redaction import default_redactor

    return visible_line(default_redactor().redact(text))


def said(exc: Exception) -> str:
    """An error's one line as printed: what the user typed (a key, a sessionId, a tool's arguments)
    may hold a secret, so it is redacted as every output is (the name before the first colon apart:
    `KEY: not …` is no secret), then its controls made visible."""
    from sessions_tui.backend.toolkit.redaction import default_redactor

    redact = default_redactor().redact
    where, colon, what = str(exc).partition(": ")  # the option or argument named, then what of it
    return visible_line(f"{redact(where)}{colon}{redact(what)}")


def _complain(line: str) -> int:
    print(f"sessions-tui: {line}", file=sys.stderr)
    return EXIT_USAGE


def run_reporting(command: Callable[[], int], opts: argparse.Namespace) -> int:
    """Run `command` and return its exit status, or say the error it ends with (exit 2; Ctrl+C 130;
    a reader that went away, `… | head`, 0) and never a traceback."""
    try:
        return command()
    except (UsageError, BackendUnavailable) as exc:
        return _complain(said(exc))
    except StoreDamaged as exc:  # a write the damaged database refused
        return _complain(visible_line(exc))
    except sqlite3.DatabaseError as exc:  # a database that opened but turned out corrupt on a read
        where = getattr(opts, "state_dir", None)
        return _complain(visible_line(database_error_line(where if isinstance(where, Path) else None, exc)))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`… | head`): nothing more to say, and no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
