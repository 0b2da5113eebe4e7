"""Which process left a mark in the store (a run, a send's flow, an announce, a delivery lease, a run
control) and whether it is alive: what it left under way the next process ends or takes over.

A mark holds a process id in the store's own namespace (`Processes.me`). In the state directory's
SQLite store that is the operating system's pid, alive while `kill(pid, 0)` finds it
(`LocalProcesses`): one machine. On PostgreSQL, several machines share the store, so a process is a
row of the `hosts` table with a lease it renews (postgres/hosts.py): its id there is the mark, and it
is alive while its lease stands. Every part that asks goes through `Store.processes`.
"""

from __future__ import annotations

import os
import socket
from typing import Protocol


class Processes(Protocol):
    """The store's processes: this one's id, and whether another's is alive."""

    @property
    def tag(self) -> str:
        """The namespace the ids are of (a machine's name, or the shared store's): a lease owner
        string starts with it (messaging/outbox.py), and one of another namespace only expires."""
        ...

    @property
    def me(self) -> int:
        """This process's id in the store (asked when a mark is written)."""
        ...

    @property
    def shared(self) -> bool:
        """Whether other machines' processes write to the store too (their work may be taken over
        while this process runs, not only when it starts: runs/takeover.py)."""
        ...

    def alive(self, pid: int | None) -> bool:
        """Whether the process `pid` is alive (this one is); False for None."""
        ...

    def ended_at(self, pid: int | None) -> int | None:
        """When a dead process stopped being alive (ms since the epoch), where that is known: a lapsed
        host's lease end; None otherwise (a pid is found gone only when asked)."""
        ...

    def lapsed(self) -> list[int]:
        """The processes known dead whose marks are still to be taken over (on a shared store: the hosts
        whose lease lapsed; locally none: a dead pid is found by the marks it left)."""
        ...

    def forget(self, pids: list[int]) -> None:
        """Forget `lapsed` processes once what they left has been taken over."""
        ...


def pid_alive(pid: int | None) -> bool:
    """True for a live process of this machine (also one we may not signal); False for none."""
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class LocalProcesses:
    """The processes of one machine: ids are pids (read afresh: `serve --workers` forks)."""

    shared = False

    @property
    def tag(self) -> str:
        return socket.gethostname()

    @property
    def me(self) -> int:
        return os.getpid()

    def alive(self, pid: int | None) -> bool:
        return pid_alive(pid)

    def ended_at(self, pid: int | None) -> int | None:
        return None

    def lapsed(self) -> list[int]:
        return []

    def forget(self, pids: list[int]) -> None:
        pass


def stopped(processes: Processes, pid: int | None) -> bool:
    """Whether the process that left a mark is another one than this, and no longer alive: what
    it left under way the next process ends."""
    return pid != processes.me and not processes.alive(pid)


def held_elsewhere(processes: Processes, pid: int | None) -> bool:
    """Whether another live process than this one holds a mark (it must be asked, or waited for)."""
    return pid != processes.me and processes.alive(pid)
