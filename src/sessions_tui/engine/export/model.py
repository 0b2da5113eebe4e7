"""What an export holds: one session's row, entry and stored transcript lines, redacted or not.

Built once from the store (or received from a server's operator API, always redacted) and then
rendered as Markdown, HTML or OpenClaw JSONL in the process that writes the file, so a remote
export needs nothing of the engine but this structure.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel

from sessions_tui.engine.export.redaction import redact_entry, redact_line
from sessions_tui.engine.redaction.cut import Redact, redact_then_cut
from sessions_tui.engine.redaction.redact import Redactor
from sessions_tui.engine.sessions.entry import title

ExportFormat = Literal["md", "html", "jsonl"]
FORMATS: tuple[ExportFormat, ...] = ("md", "html", "jsonl")

_UNSAFE_NAME_RE = re.compile(r"[^A-Za-z0-9._-]+")
FILE_STEM_MAX = 120


class SessionExport(BaseModel):
    """One session as an export renders it. `lines` are the stored transcript lines in order
    (verbatim, or each with its strings redacted); `entry` is the session's entry (OpenClaw's
    SessionEntry as stored), redacted alike."""

    key: str
    session_id: str
    agent_id: str
    channel: str | None = None
    created_at: int
    updated_at: int
    entry: dict[str, Any]
    lines: list[str]
    redacted: bool
    server: str | None = None
    """The server it was read from, in a dashboard over several (`key` is as that server has it)."""

    @property
    def label(self) -> str | None:
        return title(self.entry)


def build_export(
    *,
    key: str,
    session_id: str,
    agent_id: str,
    channel: str | None,
    created_at: int,
    updated_at: int,
    entry: dict[str, Any],
    lines: list[str],
    redactor: Redactor | None,
) -> SessionExport:
    """The export of a session read from the store; `redactor` None: verbatim (the owner's `--no-redact`)."""
    if redactor is not None:
        key = redactor.redact(key)
        channel = redactor.redact(channel) if channel else channel
        entry = redact_entry(entry, redactor)
        lines = [redact_line(line, redactor) for line in lines]
    return SessionExport(
        key=key,
        session_id=session_id,
        agent_id=agent_id,
        channel=channel,
        created_at=created_at,
        updated_at=updated_at,
        entry=entry,
        lines=lines,
        redacted=redactor is not None,
    )


def default_file_name(key: str, fmt: ExportFormat, redact: Redact) -> str:
    """`agent_main_main.md`: the key, redacted then cut to 120 characters (a secret in a key is
    masked, never cut into a fragment), with everything but letters, digits, `.`, `_`, `-` made `_`."""
    shown = redact_then_cut(key, FILE_STEM_MAX, redact, mark="")
    stem = _UNSAFE_NAME_RE.sub("_", shown).strip("._") or "session"
    return f"{stem}.{fmt}"
