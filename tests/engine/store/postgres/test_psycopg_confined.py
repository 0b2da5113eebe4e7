"""psycopg stays in the PostgreSQL store: no module of sessions_tui outside engine/store/postgres/
imports it (so SQLite users and a `tool` call never load it), and the package's root imports none of
its modules (opening a PostgreSQL store loads them)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import sessions_tui

SRC = Path(sessions_tui.__file__).resolve().parent
POSTGRES = SRC / "engine" / "store" / "postgres"


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_only_the_postgres_store_imports_psycopg() -> None:
    outside = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if POSTGRES not in path.parents and _imports(path) & {"psycopg", "psycopg_pool"}
    ]
    assert outside == []


def test_importing_the_postgres_package_loads_no_psycopg() -> None:
    code = "import sys, sessions_tui.engine.store.postgres; print(any(m.startswith('psycopg') for m in sys.modules))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "False", proc.stderr


def test_the_store_s_modules_load_psycopg_only_when_a_store_opens() -> None:
    """What a command given `--store` reads before anything connects (which parts are not there yet)
    loads no psycopg: the store's modules import it when a database is opened."""
    modules = ["database", "adapter", "schema", "store"]
    code = (
        "import sys\n"
        f"for name in {modules!r}:\n"
        "    __import__('sessions_tui.engine.store.postgres.' + name)\n"
        "print(any(m.startswith('psycopg') for m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "False", proc.stderr
