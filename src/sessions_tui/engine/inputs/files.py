"""Reading a file someone named: only a regular file, so a FIFO never hangs and a device never
streams forever.

The path is checked with `stat` before it is opened; it is then opened non-blocking (opening a
FIFO would otherwise wait for a writer) and checked again on the open descriptor, so a file
swapped for a FIFO in between is refused too. Asked not to follow a link, it refuses one at the
path's last component (`IsLink`), also one swapped in between.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class NotRegularFile(OSError):
    """The path names a directory, FIFO, device or socket; `kind` says which ("a FIFO")."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"is {kind}, not a regular file")
        self.kind = kind


class IsLink(OSError):
    """The path is a symbolic link, and was not to be followed."""


def kind_of(mode: int) -> str:
    """What a file is, in words (said of one that is not what was wanted)."""
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "of an unknown kind"


def _refuse(mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise NotRegularFile(kind_of(mode))


def check_regular(path: Path) -> None:
    """Raise `NotRegularFile` unless `path` is a regular file (or a link to one); `OSError` if
    it cannot be looked at (`FileNotFoundError` when it is not there)."""
    _refuse(os.stat(path).st_mode)


class FileTooLarge(OSError):
    """The file holds more than the reader takes: `size` bytes (at least), `limit` at most."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"{size} bytes, over the {limit} it may hold")
        self.size = size
        self.limit = limit


def read_regular_bytes(path: Path, max_bytes: int | None = None, *, follow_link: bool = True) -> bytes:
    """The whole content of a regular file; `NotRegularFile` for anything else, before reading.
    With `max_bytes`, `FileTooLarge` for a file larger than that, from its size before reading
    (and from what is read, should it grow meanwhile). With `follow_link=False`, `IsLink` if the
    path's last component is a symbolic link."""
    if follow_link:
        check_regular(path)
        flags = os.O_RDONLY | _O_NONBLOCK | _O_CLOEXEC
    else:
        mode = os.lstat(path).st_mode
        if stat.S_ISLNK(mode):
            raise IsLink(f"{path}: is a symbolic link")
        _refuse(mode)
        flags = os.O_RDONLY | _O_NONBLOCK | _O_CLOEXEC | _O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if not follow_link and exc.errno == errno.ELOOP:  # swapped for a link since the lstat
            raise IsLink(f"{path}: is a symbolic link") from None
        raise
    try:
        status = os.fstat(fd)
        _refuse(status.st_mode)
        if max_bytes is not None and status.st_size > max_bytes:
            raise FileTooLarge(status.st_size, max_bytes)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as handle:
            fd = -1
            data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
        if max_bytes is not None and len(data) > max_bytes:
            raise FileTooLarge(len(data), max_bytes)
        return data
    finally:
        if fd >= 0:
            os.close(fd)
