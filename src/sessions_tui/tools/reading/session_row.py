"""The row `sessions_list` answers, as a model: `SessionRow`, in OpenClaw's field order.

The tool builds its rows as the dicts this declares (`sessions_list.ListedRow`), without a validation
pass; a test holds them to it. What comes from elsewhere is checked against it: a gateway's roster row
becomes a `sessions_list` row through `SessionRow` (backend/gateway/reading/tool_answers.py).
"""

from __future__ import annotations

from typing import Any, cast

from pydantic import ConfigDict

from sessions_tui.engine.lazy_model import LazyModel
from sessions_tui.tools.reading.sessions_list import ListedRow


class DeliveryContext(LazyModel):
    model_config = ConfigDict(extra="ignore")
    channel: str | None = None
    to: str | None = None
    accountId: str | None = None
    threadId: str | int | float | None = None


class Origin(LazyModel):
    provider: str | None = None
    accountId: str | None = None


class SessionRow(LazyModel):
    """One row of `sessions_list`, in OpenClaw's field order; absent fields are omitted."""

    key: str
    kind: str
    channel: str
    origin: Origin | None = None
    spawnedBy: str | None = None
    parentSessionKey: str | None = None
    label: str | None = None
    displayName: str | None = None
    deliveryContext: DeliveryContext | None = None
    updatedAt: int | float | None = None
    sessionId: str | None = None
    model: str | None = None
    contextTokens: int | float | None = None
    totalTokens: int | float | None = None
    estimatedCostUsd: int | float | None = None
    status: str | None = None
    startedAt: int | float | None = None
    endedAt: int | float | None = None
    runtimeMs: int | float | None = None
    childSessions: list[str] | None = None
    thinkingLevel: str | None = None
    fastMode: bool | None = None
    verboseLevel: str | None = None
    reasoningLevel: str | None = None
    elevatedLevel: str | None = None
    responseUsage: str | None = None
    systemSent: bool | None = None
    abortedLastRun: bool | None = None
    sendPolicy: str | None = None
    lastChannel: str | None = None
    lastTo: str | None = None
    lastAccountId: str | None = None
    transcriptPath: str | None = None
    archived: bool | None = None
    messages: list[Any] | None = None
    messagesCapped: bool | None = None  # the page's 80 KB message cap dropped or replaced some

    def dump(self) -> ListedRow:
        return cast(ListedRow, self.model_dump(exclude_none=True))
