"""Writing transcript mirror files, and a thread that creates them while a batch goes on.

Creating a file costs the kernel far more than writing its bytes: an import of thousands of
sessions spends most of its time creating their mirrors. Inside a batch, new mirrors are handed
to `MirrorWriter`, whose thread creates them while the batch's own thread parses and inserts the
next sessions; the batch waits for every one of them before it commits, so a mirror is still
always written before the size it should have is committed.
"""

from __future__ import annotations

import os
import threading
from collections import deque
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


class MirrorWriter:
    """`write_new` calls done by one thread, started with the first and ended by `drain`."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._queue: deque[tuple[Path | str, bytes]] = deque()
        self._busy = False  # the thread holds an item taken off the queue
        self._thread: threading.Thread | None = None
        self._error: OSError | None = None

    def submit(self, path: Path | str, data: bytes) -> None:
        with self._cond:
            self._queue.append((path, data))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="mirror-writer", daemon=True)
                self._thread.start()
            else:
                self._cond.notify_all()

    @property
    def pending(self) -> bool:
        return self._thread is not None

    def drain(self) -> None:
        """Wait until every submitted file is written and the thread has ended; raise the first
        error met (the files after it were still written)."""
        with self._cond:
            thread = self._thread
            if thread is None:
                return
            while self._queue or self._busy:
                self._cond.wait()
            self._thread = None
            self._cond.notify_all()
            error, self._error = self._error, None
        thread.join()
        if error is not None:
            raise error

    def _run(self) -> None:
        me = threading.current_thread()
        while True:
            with self._cond:
                while not self._queue and self._thread is me:
                    self._cond.wait()
                if not self._queue:
                    return  # drained and released
                path, data = self._queue.popleft()
                self._busy = True
            try:
                write_new(path, data)
            except OSError as exc:
                with self._cond:
                    self._error = self._error or exc
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
