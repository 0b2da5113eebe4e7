"""A session entry (OpenClaw's session fields, stored as JSON): its type, and the accessors that read it.

An entry is open-ended JSON: OpenClaw adds fields, and an import keeps whatever OpenClaw wrote,
so `SessionEntry` is a `TypedDict` (total=False) of the fields this code reads or writes, not a
model. It is the dict itself: fields it does not name survive every round trip untouched, and
reading one costs nothing (the list and browse paths read entries by the hundred thousand).
Its value types are what OpenClaw writes; a file on disk may hold anything, so code that must
not fail on a hand-edited or hostile entry reads through the accessors below, which check.

The accessors also read the listed rows (`sessions_list`'s, the dashboard's), which share the
fields they read: any `Mapping[str, Any]` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict, TypeGuard


class SessionEntry(TypedDict, total=False):
    """The fields of a session entry this code knows (any other is kept as it came)."""

    sessionId: str
    sessionFile: str
    updatedAt: int | float
    kind: str
    chatType: str
    channel: str
    label: str
    displayName: str
    subject: str
    origin: dict[str, Any]
    deliveryContext: dict[str, Any]
    delivery: dict[str, Any]  # OpenClaw 2026.9's `context` / `route`
    lastChannel: str
    lastTo: str
    lastAccountId: str
    lastThreadId: str | int | float
    spawnedBy: str
    spawnDepth: int
    parentSessionKey: str
    childSessions: list[str]
    model: str
    modelProvider: str
    modelOverride: str
    providerOverride: str
    contextTokens: int | float
    inputTokens: int | float
    outputTokens: int | float
    totalTokens: int | float
    estimatedCostUsd: int | float
    status: str
    startedAt: int | float
    endedAt: int | float
    runtimeMs: int | float
    thinkingLevel: str
    fastMode: bool
    verboseLevel: str
    reasoningLevel: str
    elevatedLevel: str
    responseUsage: str
    systemSent: bool
    abortedLastRun: bool
    sendPolicy: str
    hook: dict[str, Any]  # sessions-tui's: the inbound hook that last ran here (`name`, `path`, `runId`, `at`)


def is_number(value: object) -> TypeGuard[int | float]:
    """A JSON number: an int or a float, never a bool (which Python counts as an int). NaN and
    the infinities are floats, so numbers here; callers that need finite ones check apart."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_int(value: object) -> TypeGuard[int]:
    """A JSON integer: an int, never a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def display_name(fields: Mapping[str, Any]) -> str:
    """What a session is called in a list: its `label`, else its `displayName` (the first that is
    set and not empty), else "". Of an entry or of a listed row, whose values are strings
    (`sessions_list` keeps only strings); another value is shown as its `str`."""
    return str(fields.get("label") or fields.get("displayName") or "")


def title(entry: Mapping[str, Any]) -> str | None:
    """What an export calls a session: unlike `display_name`, only a string with text in it counts,
    and a group's `subject` comes after `label` and `displayName`; None when none has text."""
    for name in ("label", "displayName", "subject"):
        value = entry.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return None


def updated_at(entry: Mapping[str, Any]) -> int | float | None:
    """When the session last changed (ms), when the entry says so with a number."""
    value = entry.get("updatedAt")
    return value if is_number(value) else None
