"""Writing transcript mirror files in as few system calls as Python allows, and a batch's new ones
in a process of their own.

Creating a file costs the kernel far more than writing its bytes (from 25 µs to over 0.5 ms a
file, depending on the filesystem's state), and an import creates one per session with lines.
A thread of its own to create them cost more than it saved: each of its system calls handed the
interpreter lock back and forth with the importing thread. So a batch that creates many hands
them to a child process (mirror_child.py), which creates them on another core while the batch
parses and inserts the next sessions; the batch waits for every one of them before it commits,
so a mirror is still always written before the size it should have is committed.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

from sessions_tui.engine.store.disk import mirror_child
from sessions_tui.engine.store.disk.private_files import make_dirs


def write_all(fd: int, data: bytes | bytearray) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_new(path: Path | str, data: bytes) -> None:
    """`path` holding `data` alone, created 0600 (with its directory, 0700) if missing: one open, one write."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except FileNotFoundError:
        make_dirs(Path(path).parent)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)


_HEAD = struct.Struct("<II")
_SYNC = _HEAD.pack(0, 0)
_SEND_BYTES = 256 * 1024  # records are sent in pieces about this big
_PIPE_BYTES = 1024 * 1024  # asked of the kernel for the pipe (Linux), so the child is rarely starved


class MirrorWriter:
    """A batch's new mirror files: kept until `sync`, written then by this process when they are
    few, or by a child process started once they are many, which writes them as they come.

    A file that cannot be written fails the batch: its error is raised by every later `sync`,
    until `close`, so the batch cannot commit. A child that cannot be started, or that dies, is
    not such a failure: the files it was given since the last `sync` are written here instead.
    """

    spawn_after = 64
    """Files held before a child process is started (its start costs about as much as writing these)."""

    def __init__(self) -> None:
        self._held: list[tuple[str, bytes]] = []  # to be written by this process
        self._sent: list[tuple[str, bytes]] = []  # given to the child since the last sync
        self._out = bytearray()
        self._proc: subprocess.Popen[bytes] | None = None
        self._no_child = False  # it could not start, or died: not tried again before `close`
        self._error: OSError | None = None
        self.pending = False
        """Whether files were added since the last `sync`."""

    def add(self, path: Path | str, data: bytes) -> None:
        """`write_new(path, data)`, done by `sync` at the latest."""
        self.pending = True
        if self._error is not None:
            return
        if self._proc is None:
            self._held.append((os.fspath(path), data))
            if len(self._held) >= self.spawn_after and not self._no_child and self._start():
                held, self._held = self._held, []
                for held_path, held_data in held:
                    self._record(held_path, held_data)
            return
        self._record(os.fspath(path), data)

    def sync(self) -> None:
        """Return once every file added is written; raise the first that was not."""
        if self._error is None and self.pending:
            try:
                self._sync()
            except OSError as exc:
                self._error = exc
        self.pending = False
        if self._error is not None:
            raise self._error

    def close(self) -> None:
        """Drop what was not synced (a batch rolled back), end the child process and forget errors."""
        self._end_child()
        self._held, self._sent, self._error, self.pending, self._no_child = [], [], None, False, False

    def _sync(self) -> None:
        if self._proc is not None:
            assert self._proc.stdout is not None
            self._out += _SYNC
            answer = b""
            try:
                self._flush()
                answer = self._proc.stdout.readline()
            except OSError:
                pass
            if answer == b"ok\n":
                self._sent = []
            elif answer:
                self._sent = []
                errno, strerror, path = json.loads(answer)
                raise OSError(errno, strerror, path)
            else:
                self._child_lost()
        held, self._held = self._held, []
        for path, data in held:
            write_new(path, data)

    def _record(self, path: str, data: bytes) -> None:
        self._sent.append((path, data))
        raw = os.fsencode(path)
        self._out += _HEAD.pack(len(raw), len(data))
        self._out += raw
        self._out += data
        if len(self._out) >= _SEND_BYTES:
            try:
                self._flush()
            except OSError:
                self._child_lost()

    def _flush(self) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        out, self._out = self._out, bytearray()
        write_all(self._proc.stdin.fileno(), out)  # blocks (the interpreter lock released) while the child is behind

    def _child_lost(self) -> None:
        """The child died: what it was given since the last sync is written here, as is what comes next."""
        self._end_child()
        self._held = self._sent + self._held
        self._sent = []
        self._no_child = True

    def _end_child(self) -> None:
        self._out = bytearray()
        proc, self._proc = self._proc, None
        if proc is None:
            return
        assert proc.stdin is not None and proc.stdout is not None
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        proc.wait()

    def _start(self) -> bool:
        """Start the child process; False (the files are then written here) if it cannot be."""
        script = mirror_child.__file__
        if not sys.executable or getattr(sys, "frozen", False) or not script or not os.path.isfile(script):
            self._no_child = True
            return False
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", script, str(os.getpid())],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                bufsize=0,
            )
        except OSError:
            self._no_child = True
            return False
        assert self._proc.stdin is not None
        try:
            import fcntl

            fcntl.fcntl(self._proc.stdin.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), _PIPE_BYTES)
        except (ImportError, OSError):
            pass  # a smaller pipe only makes this process wait for the child more often
        return True
