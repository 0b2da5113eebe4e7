"""Writing transcript mirror files in as few system calls as Python allows.

Creating a file costs the kernel far more than writing its bytes, and an import creates one per
session with lines: each is one `os.open`, one `os.write` and one `os.close`, no file object.
They are written by the thread that commits their sizes, before it commits them (a thread of
their own cost more than it saved: every system call hands the interpreter lock back and forth).
"""

from __future__ import annotations

import os
from pathlib import Path


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_new(path: Path | str, data: bytes) -> None:
    """`path` holding `data` alone, created (with its directory) if missing: one open, one write."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except FileNotFoundError:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)
