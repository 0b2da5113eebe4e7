"""Whether a process that left a mark in the store (a run, an announce, a delivery lease) is alive."""

from __future__ import annotations

import os


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


def stopped(pid: int | None) -> bool:
    """Whether the process that left a mark is another one than this, and no longer alive: what
    it left under way the next process ends."""
    return pid != os.getpid() and not pid_alive(pid)
