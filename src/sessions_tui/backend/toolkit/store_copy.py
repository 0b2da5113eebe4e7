"""Moving a store (`sessions-tui store copy`): its two locations read, both stores opened, the copy run.

One side is a state directory (its SQLite store), the other a PostgreSQL URL, whose password rule is
`--store`'s (engine/store/location.py): never in the URL. The PostgreSQL store keeps its mirror files in
the directory's side. What cannot be done is a `StoreCopyError`: one line naming `--from` or `--to`.
"""

from __future__ import annotations

import logging
from contextlib import ExitStack
from pathlib import Path

from sessions_tui.engine.store.connection import StoreError
from sessions_tui.engine.store.copy import CopyRefused, CopyReport, TableCount, copy_store
from sessions_tui.engine.store.location import SCHEMES, LocationError, postgres_url
from sessions_tui.engine.store.schema import DB_NAME
from sessions_tui.engine.store.store import Store

__all__ = ["CopyReport", "StoreCopyError", "TableCount", "copy_between"]


class StoreCopyError(Exception):
    """A copy that cannot be made: one line naming the side (`--from`, `--to`) and why."""


def _is_url(text: str) -> bool:
    return text.split(":", 1)[0].lower() in SCHEMES if ":" in text else False


def _url(text: str, origin: str) -> str:
    try:
        return postgres_url(text, origin)
    except LocationError as exc:
        raise StoreCopyError(str(exc)) from None


def copy_between(source: str, target: str) -> CopyReport:
    """The store at `source` copied into the empty store at `target` (one a directory, one a PostgreSQL
    URL), every table's rows counted on both sides."""
    if _is_url(source) == _is_url(target):
        raise StoreCopyError("store copy: give one state DIR and one postgresql://host/dbname URL (--from, --to)")
    url, origin = (_url(source, "--from"), "--from") if _is_url(source) else (_url(target, "--to"), "--to")
    directory = Path(target if _is_url(source) else source).expanduser()
    if not _is_url(source) and not (directory / DB_NAME).is_file():
        raise StoreCopyError(f"--from: {directory} holds no sessions-tui store (no {DB_NAME})")
    with ExitStack() as stack:
        try:
            sqlite = Store(directory)
        except (OSError, StoreError) as exc:
            side = "--to" if origin == "--from" else "--from"
            raise StoreCopyError(f"{side}: {directory}: cannot open its store ({_first_line(exc)})") from None
        stack.callback(sqlite.close)
        pg = _open_postgres(url, origin, directory)
        stack.callback(pg.close)
        source_store, target_store = (pg, sqlite) if origin == "--from" else (sqlite, pg)
        where = target if origin == "--to" else str(directory)
        try:
            return copy_store(source_store, target_store)
        except CopyRefused as exc:
            raise StoreCopyError(f"--to: {where}: {exc}; store copy writes only into an empty store") from None


def _open_postgres(url: str, origin: str, state_dir: Path) -> Store:
    from sessions_tui.engine.store.postgres.store import PostgresStore

    logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())  # its retries: the one line below says it
    try:
        return PostgresStore(url, state_dir)
    except Exception as exc:  # psycopg's and its pool's errors: said in one line, never a traceback
        raise StoreCopyError(f"{origin}: {url}: cannot open the PostgreSQL database ({_first_line(exc)})") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
