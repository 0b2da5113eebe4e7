"""Where a store is: the state directory's SQLite file (the default) or a PostgreSQL database's URL.

`--store postgresql://[user@]host[:port]/dbname` (or `$SESSIONS_TUI_STORE`) names a PostgreSQL database.
Its password is never part of the URL: libpq takes it from `PGPASSWORD` or a password file (`PGPASSFILE`,
`~/.pgpass`), so it is never on a command line, in a process list or a shell's history. A URL that
holds one, or that is not a PostgreSQL URL, is refused with one line saying what is wrong, the password
never repeated. Nothing here connects (nor imports psycopg).
"""

from __future__ import annotations

import os
from urllib.parse import parse_qsl, urlsplit

STORE_ENV = "SESSIONS_TUI_STORE"
SCHEMES = ("postgresql", "postgres")
SQLITE = "sqlite"
"""The location of the state directory's own SQLite store (what no `--store` means)."""


class LocationError(ValueError):
    """A store location that cannot be used: one line naming what is wrong (never a password)."""


def chosen_location(cli_value: str | None) -> tuple[str, str] | None:
    """`--store`, else `$SESSIONS_TUI_STORE`, with who gave it (`sqlite` too: the state directory's
    SQLite store, named); None when neither says (the config's `store.location` may)."""
    for value, origin in ((cli_value, "--store"), (os.environ.get(STORE_ENV), f"${STORE_ENV}")):
        if value is not None and value.strip():
            return value.strip(), origin
    return None


def store_url(location: str, origin: str) -> str | None:
    """The PostgreSQL URL a location names (checked: `postgres_url`), None for `sqlite`."""
    return None if location == SQLITE else postgres_url(location, origin)


def postgres_url(location: str, origin: str = "--store") -> str:
    """`location` checked to be a PostgreSQL URL with no password in it; returned as given."""
    scheme = location.split(":", 1)[0].lower() if ":" in location else ""
    if scheme not in SCHEMES:
        raise LocationError(
            f"{origin}: not a store location: give a postgresql://host/dbname URL, or leave it out for SQLite"
        )
    try:
        parts = urlsplit(location)
        port = parts.port
        password = parts.password
        query = parse_qsl(parts.query, keep_blank_values=True, strict_parsing=bool(parts.query))
    except ValueError as exc:
        raise LocationError(f"{origin}: not a valid PostgreSQL URL ({_reason(exc)})") from None
    if password is not None or any(name == "password" for name, _ in query):
        raise LocationError(
            f"{origin}: the URL holds a password; give it in PGPASSWORD or a password file (PGPASSFILE, ~/.pgpass), "
            "never on the command line"
        )
    if parts.fragment:
        raise LocationError(f"{origin}: a PostgreSQL URL has no #fragment")
    if port == 0:
        raise LocationError(f"{origin}: port 0 is not a port")
    if not parts.path.strip("/"):
        raise LocationError(f"{origin}: the URL names no database: postgresql://host/dbname")
    if "/" in parts.path.strip("/"):
        raise LocationError(f"{origin}: the URL's database name holds a '/': postgresql://host/dbname")
    return location


def _reason(exc: ValueError) -> str:
    """What urllib found wrong, without the URL (which it may quote)."""
    text = str(exc)
    return "its port is not a number from 1 to 65535" if "port" in text.lower() else "it cannot be parsed"
