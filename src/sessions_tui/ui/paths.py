"""Paths as the dashboard shows them: the user's home directory as `~`, as a shell prompt does.

Shorter (the header has little room), the same for every user with the default state directory,
and the same on every run of a test whose HOME is a temporary directory.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache


@lru_cache(maxsize=8)
def _home_pattern(home: str) -> re.Pattern[str]:
    # The home directory as a whole path or a path's start: not `/home/al` inside `/home/alice`,
    # nor inside a longer path (`/srv/home/al/x`).
    return re.compile(r"(?<![\w/.~-])" + re.escape(home) + r"(?=/|(?![\w.-]))")


def home_relative(text: str) -> str:
    """`text` (a path, or text holding paths) with the user's home directory (HOME) written `~`."""
    home = os.path.expanduser("~").rstrip("/")
    if not home or home == "~" or home not in text:
        return text
    return _home_pattern(home).sub("~", text)
