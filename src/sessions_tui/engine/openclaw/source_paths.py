"""Reading an OpenClaw state directory without leaving it.

An import or a follow reads only what is inside the source directory. A symbolic link on the way
to what it reads (the `agents` directory, an agent's directory, its `agent/` or `sessions/`, a
store, a transcript) is followed only when its target is in the source too; a link that leads
out of it, one whose target is missing and a loop of links are reported and skipped, never
opened. The source directory itself may be a link: it is the directory named.

The layout's paths are checked component by component when they are found (a few `lstat`s an
agent); a transcript is opened without following a link at its last component, so the common
case costs nothing more, and only a transcript that is a link is checked.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from sessions_tui.engine.inputs.files import IsLink, read_regular_bytes


class LeavesSource(OSError):
    """A link on the way to a file leads out of the source, to nothing, or round a loop; the
    message is the problem to report (`<link>: …; skipped`)."""


def real_root(root: Path) -> Path:
    """The source directory as the links in its own path resolve."""
    return Path(os.path.realpath(root))


def _inside(real: str, root: Path) -> bool:
    top = str(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def link_problem(root: Path, path: Path) -> str | None:
    """Why `path` (under `root`, the source as `real_root` gives it) is not read, when a link on
    the way to it leads out of the source, to nothing, or round a loop; None when every link on
    the way stays inside (or `path` is simply not there: the caller's reading finds that out)."""
    level = root
    for part in path.relative_to(root).parts:
        level = level / part
        try:
            mode = os.lstat(level).st_mode
        except OSError:
            return None
        if not stat.S_ISLNK(mode):
            continue
        try:
            target = os.readlink(level)
        except OSError:
            target = "?"
        try:
            real = os.path.realpath(level, strict=True)
        except FileNotFoundError:
            return f"{level}: a link to {target}, which does not exist; skipped"
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return f"{level}: a loop of links; skipped"
            return f"{level}: a link that cannot be followed ({exc.strerror or exc}); skipped"
        if not _inside(real, root):
            return f"{level}: a link out of the source directory (to {target}); skipped"
    return None


def read_source_bytes(root: Path, path: Path) -> bytes:
    """The bytes of `path`, a regular file in the source. Raises `LeavesSource` for a link that
    leads out of it (or nowhere, or round a loop), else as `read_regular_bytes` does."""
    try:
        return read_regular_bytes(path, follow_link=False)
    except IsLink:
        why = link_problem(root, path)
        if why is not None:
            raise LeavesSource(why) from None
        return read_regular_bytes(path)  # a link to another file of the source
