"""A notice: one happening the operator wants to hear of, as one clean line of title and body.

Its texts are redacted by whoever makes it (`rules.py`) and cleaned here: one line (every run of
whitespace one space), no control or format characters (agent text is data: it may carry ESC or BEL,
which would end an OSC sequence, or bidi controls that turn a line around), cut to a length.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Literal

NoticeKind = Literal["done", "failed", "stuck", "looping", "reply", "hook", "cron"]
"""What a notice is about: a watched session's status (`done`, `failed`, `stuck`, `looping`), a reply
landing for the operator's send, an inbound hook, a cron run starting."""

TITLE_LIMIT = 80
BODY_LIMIT = 200


@cache
def _whitespace() -> re.Pattern[str]:
    return re.compile(r"\s+")


def clean_line(text: str, limit: int) -> str:
    """`text` as one line without control or format characters (categories Cc, Cf, Cs, Zl, Zp),
    whitespace runs one space, at most `limit` characters (cut with `…`)."""
    spaced = _whitespace().sub(" ", text)
    kept = "".join(c for c in spaced if unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Zl", "Zp")).strip()
    return kept if len(kept) <= limit else kept[: max(0, limit - 1)].rstrip() + "…"


@dataclass(frozen=True, slots=True)
class Notice:
    """One notice: `title` and `body` one clean line each, the session it is about, its kind and when
    it happened (ms since the epoch, the backend's clock); `gist`: what it says without naming the
    session (a list with a session column shows it), else the body. Build one with `notice`."""

    title: str
    body: str
    session_key: str
    kind: NoticeKind
    at: int
    gist: str = ""

    def line(self) -> str:
        """The notice as one line: `title: body`."""
        return f"{self.title}: {self.body}" if self.body else self.title


def notice(title: str, body: str, *, session_key: str, kind: NoticeKind, at: int, gist: str | None = None) -> Notice:
    """A notice with its texts cleaned (`clean_line`); its gist the body unless given."""
    cleaned = clean_line(body, BODY_LIMIT)
    said = cleaned if gist is None else clean_line(gist, BODY_LIMIT)
    return Notice(clean_line(title, TITLE_LIMIT), cleaned, session_key, kind, at, said)
