"""Real damage to a real store: the pages of some tables overwritten (the damaged-store tests and
the damage-while-running tests share it)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

PAGE = 4096


def pages_of(db: Path, prefixes: tuple[str, ...]) -> list[int]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT name, pageno FROM dbstat").fetchall()
    finally:
        conn.close()
    return sorted(page for name, page in rows if name.startswith(prefixes))


def overwrite(db: Path, pages: list[int]) -> None:
    with open(db, "r+b") as handle:
        for page in pages:
            handle.seek((page - 1) * PAGE)
            handle.write(b"\x5a" * PAGE)
