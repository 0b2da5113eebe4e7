"""Why a send or a spawn was refused: the verdict that refuses it, for a "Why refused" toast."""

from __future__ import annotations

from typing import Literal

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable, Capability, Requester
from sessions_tui.backend.values.views import Verdict
from sessions_tui.backend.values.vocabulary import ToolInputError


async def refusing_verdict(
    backend: Backend, requester: Requester, target: str, agent: str | None, action: Literal["send", "spawn"]
) -> Verdict | None:
    """After a refusal: the verdict on `action` that refuses it, for a "Why refused" toast (None
    when the backend cannot explain, or the action is allowed by now)."""
    if Capability.EXPLAIN not in backend.capabilities:
        return None
    try:
        found = await backend.explain(requester, target, agent)
    except (ToolInputError, BackendUnavailable):
        return None
    verdict = found.verdict(action)
    return None if verdict.allowed else verdict
