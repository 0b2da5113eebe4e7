"""The state directory is its owner's alone: directories 0700, files 0600.

It holds raw transcripts, secrets included, so nothing in it may be readable by another local
user. Every directory sessions-tui creates there is made here (`make_dirs`, each missing level
0700: `os.makedirs` would give the levels above the last one the umask's usual 0755), every file
it creates is opened with 0600, and the SQLite database is created here before SQLite opens it
(`create_file`): SQLite would create it 0644, and gives its `-wal` and `-shm` the database's mode.
A mode given at creation is never looser than asked, whatever the umask.

A state directory from before is tightened when it is opened (`tighten`): the directory, what it
holds at its top level (the database, its `-wal` and `-shm`, the config, `serve.token`), and the
directories of the transcript mirrors, with the mirrors inside a directory that was open to others.
Each is given its kind's mode (0700, 0600), whatever it had. That costs a few `lstat`s, so it runs
at every open; once tightened there is nothing left to do. The state directory named may be a
link, to the directory tightened; links in it are never followed, and what belongs to another user
is left as it is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600
_OPEN_TO_OTHERS = 0o077
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def make_dirs(path: Path) -> None:
    """`path`, and every missing directory above it, created 0700."""
    missing: list[Path] = []
    level = path
    while not os.path.isdir(level):
        missing.append(level)
        if level.parent == level:
            break
        level = level.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, DIR_MODE)
        except FileExistsError:
            if not os.path.isdir(directory):
                raise


def create_file(path: Path) -> None:
    """An empty file at `path`, 0600, unless something is there already (left as it is)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC | _O_NOFOLLOW, FILE_MODE)
    except FileExistsError:
        return
    os.close(fd)


def write_file(path: Path, data: bytes) -> None:
    """`path` holding `data`, readable by its owner only: a file that was there is truncated and
    its mode set to 0600 (a link at `path` is refused, never written through)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _O_CLOEXEC | _O_NOFOLLOW, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _tighten_one(path: Path, loosened: list[str], label: str) -> bool:
    """Make `path` 0700 if it is a directory, 0600 if a regular file, when it is this user's and
    open to others (a link is left alone); True if it was a directory that was open. The mode is
    its kind's, not what was there less group and other bits: a directory that had lost its own
    `x` is one its owner can use again."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    if not st.st_mode & _OPEN_TO_OTHERS or st.st_uid != os.geteuid():
        return False
    is_dir = stat.S_ISDIR(st.st_mode)
    if not is_dir and not stat.S_ISREG(st.st_mode):
        return False
    try:
        os.chmod(path, DIR_MODE if is_dir else FILE_MODE, follow_symlinks=False)
    except (OSError, NotImplementedError):
        return False
    loosened.append(label)
    return is_dir


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as it:
            return list(it)
    except OSError:
        return []


def tighten(state_dir: Path) -> list[str]:
    """Make an existing state directory its owner's alone; returns what was open to others
    (relative to it: `.` for the directory itself), empty when nothing was. The state directory
    named may be a link: the directory it leads to is the one tightened (the links in it are not
    followed)."""
    loosened: list[str] = []
    state_dir = Path(os.path.realpath(state_dir))
    _tighten_one(state_dir, loosened, ".")
    for entry in _entries(state_dir):
        _tighten_one(Path(entry.path), loosened, entry.name)
    agents = state_dir / "agents"
    for agent in _entries(agents) if os.path.isdir(agents) and not os.path.islink(agents) else []:
        if not agent.is_dir(follow_symlinks=False):
            continue
        _tighten_one(Path(agent.path), loosened, f"agents/{agent.name}")
        sessions = Path(agent.path) / "sessions"
        if _tighten_one(sessions, loosened, f"agents/{agent.name}/sessions"):
            # a directory from before: its mirrors may be from before too (mirrors made since are 0600)
            for mirror in _entries(sessions):
                _tighten_one(Path(mirror.path), loosened, f"agents/{agent.name}/sessions/{mirror.name}")
    return loosened


def tightened_notice(state_dir: Path, loosened: list[str]) -> str:
    """The one line that says a state directory was open to other users and is no longer."""
    inside = [name for name in loosened if name != "."]
    listed = ", ".join(inside[:3]) + (f" and {len(inside) - 3} more" if len(inside) > 3 else "")
    what = ("the directory" + (f", {listed}" if listed else "")) if "." in loosened else listed
    named = f"{state_dir} (a link to {os.path.realpath(state_dir)})" if os.path.islink(state_dir) else f"{state_dir}"
    return (
        f"{named}: the state directory was readable by other users ({what}); "
        "now its owner's only (directories 700, files 600)"
    )
