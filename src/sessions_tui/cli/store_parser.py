"""`sessions-tui store ACTION …`: moving a store (`copy`); commands/store.py runs it.

Apart from parser.py, which declares the other commands, so that neither grows past what one module holds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sessions_tui.cli.options import CommandParser, subcommand


def add_store_command(sub: Any, wanted: Callable[[str], bool] = lambda command: True) -> None:
    """Declare `store` and its actions on `sub`, with their options when `wanted` says `store` may be given."""
    store = subcommand(
        sub,
        "store",
        "move a store: copy a state directory's store to PostgreSQL, or back",
        "ACTION is one of the actions below; 'sessions-tui store ACTION --help' for its options.",
        epilog="example: sessions-tui store copy --from ~/.local/share/sessions-tui --to postgresql://db/sessions",
    )
    if not wanted("store"):
        return
    actions = store.add_subparsers(dest="store_command", metavar="ACTION", parser_class=CommandParser)
    actions.required = True
    copy = subcommand(
        actions,
        "copy",
        "copy every table of a store into an empty one, then compare each table's rows",
        "One side is a state directory (its SQLite store), the other a postgresql://[user@]host[:port]/dbname "
        "URL; its password comes from PGPASSWORD or a password file (PGPASSFILE, ~/.pgpass), never the URL. "
        "Everything is copied as it is: sessions, transcripts (every line verbatim), runs, the sub-agent "
        "registry, outbox, audit, send ledger, search index, usage, cron jobs and their runs, imports; ids kept. "
        "The target must be empty (a new database, or a directory without sessions). Stop the engine "
        "(dashboards, serve) on the source first: what it writes meanwhile is not copied.\n\n"
        "Exit status: 0 when every table's count is equal, 1 when one differs (named), 2 for bad input "
        "(a location, a target that holds sessions, a database that cannot be opened).",
        epilog="example: PGPASSFILE=~/.pgpass sessions-tui store copy --from ~/.local/share/sessions-tui "
        "--to postgresql://me@db.internal/sessions",
    )
    copy.add_argument("--from", dest="source", metavar="FROM", required=True, help="a state DIR or a PostgreSQL URL")
    copy.add_argument("--to", dest="target", metavar="TO", required=True, help="a state DIR or a PostgreSQL URL")
    copy.add_argument("--json", action="store_true", help="print each table's counts as JSON")
