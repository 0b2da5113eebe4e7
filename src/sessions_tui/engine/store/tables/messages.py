"""Which transcript lines are chat messages, and the message each one shows.

A transcript holds more than messages (the session header, model changes, custom entries…). The
messages are numbered from 1 in transcript order, the way OpenClaw's `readSessionMessages` numbers
them, and that number (`msg_seq`) is what history pages are cut by.
"""

from __future__ import annotations

from typing import Any

from sessions_tui.engine.clock import ms_from_iso

# Transcript events OpenClaw shows as a system line: a compaction, a session reset (`/new`…).
_MARKERS = {"compaction": "Compaction", "reset": "Reset"}


def message_of_line(line: dict[str, Any], msg_seq: int) -> dict[str, Any] | None:
    """The chat message a transcript line holds, numbered as OpenClaw's `readSessionMessages` does.

    OpenClaw's displayed `custom_message` lines (a run that failed before replying…) are
    messages of role `custom`, as its gateway shows them.
    """
    entry_id = line.get("id")
    if isinstance(line.get("message"), dict):
        msg = dict(line["message"])
        old = msg.get("__openclaw")
        msg["__openclaw"] = {**(old if isinstance(old, dict) else {}), "id": entry_id, "seq": msg_seq}
        return msg
    if line.get("type") in _MARKERS:
        meta: dict[str, Any] = {"kind": line["type"], "id": entry_id}
        if isinstance(line.get("tokensBefore"), int):
            meta["tokensBefore"] = line["tokensBefore"]
        if isinstance(line.get("previousSessionId"), str):  # this engine's reset: the transcript it follows
            meta["previousSessionId"] = line["previousSessionId"]
        meta["seq"] = msg_seq
        stamp = line.get("timestamp")
        return {
            "role": "system",
            "content": [{"type": "text", "text": _MARKERS[line["type"]]}],
            "timestamp": ms_from_iso(stamp) if isinstance(stamp, str) else stamp,
            "__openclaw": meta,
        }
    if _is_shown_custom_message(line):
        stamp = line.get("timestamp")
        custom: dict[str, Any] = {
            "role": "custom",
            "customType": line.get("customType"),
            "content": line.get("content"),
            "display": True,
            "timestamp": ms_from_iso(stamp) if isinstance(stamp, str) else stamp,
        }
        custom_meta: dict[str, Any] = {"id": entry_id, "seq": msg_seq}
        details = line.get("details")
        if isinstance(details, dict) and isinstance(details.get("runId"), str):
            custom_meta["runId"] = details["runId"]
        custom["__openclaw"] = custom_meta
        return custom
    return None


def _is_shown_custom_message(line: dict[str, Any]) -> bool:
    """OpenClaw shows a `custom_message` when it says `display: true`, except its runtime context."""
    return (
        line.get("type") == "custom_message"
        and line.get("display") is True
        and line.get("customType") != "openclaw.runtime-context"
    )


def is_message_line(line: dict[str, Any]) -> bool:
    """Whether a transcript line counts as a message (gets a `msg_seq`)."""
    return isinstance(line.get("message"), dict) or line.get("type") in _MARKERS or _is_shown_custom_message(line)
