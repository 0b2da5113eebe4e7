"""A throwaway PostgreSQL server for the tests and benches: `initdb` into a temporary directory, started
on a free loopback port, stopped and removed at the end.

The server binaries come from Debian's `postgresql` package (`/usr/lib/postgresql/<n>/bin`, the newest
version there) or from PATH. PostgreSQL refuses to run as root, so under root the cluster runs as the
package's `postgres` user (`runuser`), its directory handed to that user. Durability is off (`fsync`,
`synchronous_commit`, `full_page_writes`): a test server that loses its data at a crash loses nothing.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

USER = "sessions"
"""The cluster's superuser (trust authentication on loopback: no password)."""

MISSING = (
    "no PostgreSQL server binary (initdb) on this machine: install Debian's `postgresql` package "
    "(`apt-get install postgresql`) to run the PostgreSQL tests"
)


def server_bin() -> Path | None:
    """The directory of `initdb`, `pg_ctl` and `postgres`: `SESSIONS_TUI_PG_BIN` when set (empty: none,
    to see the run without them), else the newest Debian version, else PATH's."""
    chosen = os.environ.get("SESSIONS_TUI_PG_BIN")
    if chosen is not None:
        return Path(chosen) if chosen and (Path(chosen) / "initdb").exists() else None
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Cluster:
    """One running server: `url(db)` names a database on it; `create_database` makes a fresh one."""

    bin: Path
    root: Path
    port: int = field(default_factory=_free_port)
    _as_postgres: list[str] = field(default_factory=list)

    @property
    def data(self) -> Path:
        return self.root / "data"

    def _run(self, *args: str) -> None:
        subprocess.run([*self._as_postgres, *args], check=True, capture_output=True, text=True)

    def start(self) -> Cluster:
        if os.geteuid() == 0:  # the server will not run as root
            self._as_postgres = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.root, "postgres")
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", USER, "-E", "UTF8", "--no-sync")
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        log = str(self.root / "server.log")
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", log, "-w", "start")
        return self

    def stop(self) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        except subprocess.CalledProcessError:
            pass  # already down
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A new empty database `name` (a test's own); its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def start_cluster() -> Cluster | None:
    """A started cluster, or None when there is no server binary here."""
    found = server_bin()
    if found is None:
        return None
    return Cluster(found, Path(tempfile.mkdtemp(prefix="sessions-tui-pg-"))).start()
