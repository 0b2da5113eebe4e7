"""The worker processes of `serve --workers N`: forked on the bound port, watched until they end.

Under the GIL a Python process is one core, and one client already keeps a server process most of
the way busy; a second core serves only from a second process. The parent binds the port (a
socket per worker: server/run.py's `listen_shared`), then forks the workers (no thread and no
SQLite connection may exist in it then: `fork_workers` refuses otherwise). Forked, a worker starts
in milliseconds with everything the parent imported, and inherits the bound sockets as they are;
each opens its own backend on the same state directory (what several processes sharing one
already rely on: WAL, claims made in one write transaction).

The parent says the server is ready once every worker is (each writes a byte to a pipe of its own),
passes SIGINT and SIGTERM on to the workers as SIGTERM (uvicorn ends gracefully on it; a second
SIGINT from a terminal, sent to the whole process group, would make it force its exit), and waits
for them. A worker that ends while no stop was asked stops the others, and the parent ends with
`WorkerEnded` naming it. A worker dies with the parent (Linux: PR_SET_PDEATHSIG), so a killed parent
leaves no server behind it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import NoReturn

STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})

Ready = Callable[[], None]
"""What a worker calls once it serves (its uvicorn has started)."""

Work = Callable[[int, Ready], int]
"""A worker's whole life, given its index (0 …) and its `Ready`: returns its exit status."""


class WorkerEnded(Exception):
    """A worker ended while no stop was asked (the others were stopped)."""


class _Stopped(BaseException):
    """A stop reached a worker before its server took over the signals: it ends at once, status 0."""


@dataclass
class _Worker:
    index: int
    pid: int
    ready_fd: int
    ready: bool = False
    status: int | None = None


def _how_it_ended(status: int) -> str:
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        return f"killed by {signal.Signals(-code).name}"
    return f"exit status {code}"


def _die_with_parent() -> None:
    """Linux: SIGTERM when the parent dies (PR_SET_PDEATHSIG); elsewhere a killed parent leaves it serving."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)
    except (OSError, AttributeError):
        return


def _child(index: int, parent: int, ready_fd: int, work: Work) -> NoReturn:
    """A worker, just forked (the stop signals blocked): its own signal handlers, its work, its exit.
    Never returns into the parent's code."""
    status = 1
    serving = False

    def stop(signum: int, frame: FrameType | None) -> None:
        # Before its server starts, a stop ends the worker at once. Once serving, uvicorn holds the
        # signals, and raises the one it caught again when it has shut down: nothing is left to do.
        if not serving:
            raise _Stopped

    def ready() -> None:
        nonlocal serving
        serving = True
        os.write(ready_fd, b"r")
        os.close(ready_fd)

    try:
        for signum in STOP_SIGNALS:
            signal.signal(signum, stop)
        _die_with_parent()
        if os.getppid() != parent:  # it died before prctl took effect
            raise _Stopped
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
        status = work(index, ready)
    except _Stopped:
        status = 0
    except BaseException:  # noqa: BLE001 - a worker never runs on into the parent's code
        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(status)


def _fork(index: int, parent: int, work: Work) -> _Worker:
    read_fd, write_fd = os.pipe()
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)  # the child sets its own handlers first
    try:
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            _child(index, parent, write_fd, work)
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    return _Worker(index, pid, read_fd)


def fork_workers(count: int, work: Work, on_ready: Callable[[], None]) -> None:
    """Run `work` in `count` forked processes until they end. `on_ready` is called once, when every
    one of them serves. Returns when all have ended after a stop (SIGINT or SIGTERM to this process,
    passed on to them); raises `WorkerEnded` when one ended unasked (the others are stopped first)."""
    if threading.active_count() > 1:
        names = ", ".join(t.name for t in threading.enumerate() if t is not threading.current_thread())
        raise RuntimeError(f"the workers are forked from a process with no other thread (found: {names})")
    parent = os.getpid()
    workers: list[_Worker] = []
    stopping = False
    failed: _Worker | None = None

    def stop_all() -> None:
        nonlocal stopping
        stopping = True
        for worker in workers:
            if worker.status is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(worker.pid, signal.SIGTERM)

    def forward(signum: int, frame: FrameType | None) -> None:
        if os.getpid() == parent:
            stop_all()

    def ended_unasked(worker: _Worker) -> None:
        nonlocal failed
        if not stopping:
            failed = worker
            stop_all()

    previous = {signum: signal.signal(signum, forward) for signum in STOP_SIGNALS}
    try:
        try:
            for index in range(count):
                workers.append(_fork(index, parent, work))
        except BaseException:  # those forked already are not left serving
            stop_all()
            for worker in workers:
                os.close(worker.ready_fd)
                os.waitpid(worker.pid, 0)
            raise
        for worker in workers:
            worker.ready = os.read(worker.ready_fd, 1) == b"r"  # empty: it ended first
            os.close(worker.ready_fd)
            if not worker.ready:
                ended_unasked(worker)
        if not stopping:
            on_ready()
        while any(w.status is None for w in workers):
            pid, status = os.wait()
            reaped = next((w for w in workers if w.pid == pid), None)
            if reaped is not None:
                reaped.status = status
                ended_unasked(reaped)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if failed is not None:
        status = failed.status if failed.status is not None else 0
        when = "while serving" if failed.ready else "before it served"
        raise WorkerEnded(
            f"worker {failed.index + 1} of {count} (pid {failed.pid}) ended {when} ({_how_it_ended(status)}); "
            "the others were stopped"
        )
