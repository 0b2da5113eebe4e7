"""The process that creates a batch's new mirror files (mirror_files.MirrorWriter), run as a script.

Standard library only, started with `-I -S`: it must start in milliseconds. It reads, from
stdin, records of `<path length> <data length>` (two little-endian uint32) then the path and
the data, and creates each file as `write_new` does. A record with a path length of 0 asks
whether every file before it was written: it answers one line, `ok`, or the JSON
`[errno, strerror, path]` of the first that was not (the files after a failure are skipped
until that answer). It ends at the end of its input, and dies with its parent (Linux), so a
killed import leaves no process writing files behind it.
"""

from __future__ import annotations

import json
import os
import signal
import struct
import sys

_HEAD = struct.Struct("<II")
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)


def _die_with_parent(parent: int) -> None:
    """Linux: SIGKILL when the parent dies (PR_SET_PDEATHSIG); elsewhere the closed pipe ends it."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it died before prctl took effect
        os._exit(1)


def _write(path: str, data: bytes) -> None:
    try:
        fd = os.open(path, _FLAGS, 0o600)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), 0o700, exist_ok=True)
        fd = os.open(path, _FLAGS, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def main() -> int:
    os.umask(0o077)  # its directories 0700 (makedirs gives the levels above the last the umask's mode), files 0600
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; a Ctrl-C reaches it too
    _die_with_parent(int(sys.argv[1]))
    read = sys.stdin.buffer.read
    out = sys.stdout.buffer
    failed: list[object] | None = None
    while True:
        head = read(_HEAD.size)
        if len(head) < _HEAD.size:
            return 0
        path_len, data_len = _HEAD.unpack(head)
        if path_len == 0:
            out.write(b"ok\n" if failed is None else json.dumps(failed).encode() + b"\n")
            out.flush()
            failed = None
            continue
        raw_path, data = read(path_len), read(data_len)
        if len(raw_path) < path_len or len(data) < data_len:
            return 0  # the parent died mid-record: nothing half-sent is written
        path = os.fsdecode(raw_path)
        if failed is None:
            try:
                _write(path, data)
            except OSError as exc:
                failed = [exc.errno, exc.strerror, path]


if __name__ == "__main__":
    sys.exit(main())
