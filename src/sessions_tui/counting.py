"""Counted words: `1 session`, `2 sessions`, `0 sessions`, said one way on every floor.

Every count a face prints (the dashboard's header and table, the command line's reports) names its
word through `plural`, so none says `1 sessions`. It imports nothing of the project's: the engine's
reports use it as the faces do.
"""

from __future__ import annotations

IRREGULAR = {"child": "children", "match": "matches", "reply": "replies", "entry": "entries", "copy": "copies"}


def counted(n: int, word: str) -> str:
    """The word as `n` counts it, without the number: `session` for 1, else its plural (`sessions`,
    `children`, `matches`)."""
    return word if n == 1 else IRREGULAR.get(word, word + "s")


def plural(n: int, word: str) -> str:
    """`n` and its word: `1 session`, `0 sessions`, `1,204 messages` (thousands separated)."""
    return f"{n:,} {counted(n, word)}"
