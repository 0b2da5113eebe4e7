"""Redact, then cut: the one way agent text is shortened (docs/decisions.md D16).

A secret cut in two is no longer a secret any rule finds: `AKIAQWERTYUIOPASDF…` keeps 18 of a key's
20 characters and matches nothing, so whatever shows the cut text, stores it or passes it on shows
them. Every place that cuts text to a length (a quote in the demo model's reply, a preview, a
summary, a label, a snippet, an error body) cuts what the redaction of the whole text shows.

A long text is redacted only as far as it can be shown, its first `keep` characters plus
`REDACT_WINDOW_MARGIN`, so a 10 MB message costs what a 12 KB one does. Masks make a text shorter:
when the redaction of that window leaves less than half the margin after the cut, the window
grows, so a secret the window's end splits is never within the part that is kept.
"""

from __future__ import annotations

from collections.abc import Callable

REDACT_WINDOW_MARGIN = 8192
"""Characters redacted beyond the part of a long text that is kept."""

ELLIPSIS = "…"

Redact = Callable[[str], str]


def redacted_head(text: str, keep: int, redact: Redact) -> tuple[str, str]:
    """(the redaction of a head of `text`, that head): the head is the whole text, or enough of it
    that the first `keep` characters of its redaction are those of the whole text's."""
    window = max(0, keep) + REDACT_WINDOW_MARGIN
    while len(text) > window:
        head = text[:window]
        shown = redact(head)
        if len(shown) >= keep + REDACT_WINDOW_MARGIN // 2:
            return shown, head
        window *= 2
    return redact(text), text


def redact_then_cut(text: str, limit: int, redact: Redact, *, flat: bool = False, mark: str = ELLIPSIS) -> str:
    """`text` in at most `limit` characters, `mark` last when it was cut: redacted before it is cut.
    `flat` makes each run of whitespace one space (a one-line preview)."""
    shown, head = redacted_head(text, limit, redact)
    if flat:
        shown = " ".join(shown.split())
    if len(shown) <= limit and len(head) == len(text):
        return shown
    return shown[: max(0, limit - len(mark))] + mark
