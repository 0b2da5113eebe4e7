"""The transcripts a face has open on a gateway: subscribed while read, and their history shaped as
our `sessions_history` answers it.

A face reads a session's history (`sessions_history`); from then on the gateway is asked to send
that session's transcript as it grows (`sessions.messages.subscribe {key}`: `session.message`
events). The last `KEEP` sessions read stay subscribed; an older one is unsubscribed. At every
reconnect the open ones are subscribed again (`resubscribe`).

`history_result` turns a `chat.history` answer into `sessions_history`'s result
(tools/reading/sessions_history.py): tool messages left out unless asked for, every message sanitised and
redacted by the built-in rules (`sanitize_history`), the paging fields as the local tool gives them.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any

from sessions_tui.backend.gateway.link.refusals import ConnectionLost, RequestFailed
from sessions_tui.backend.gateway.reading.roster import Calls
from sessions_tui.engine.redaction.redact import Redactor
from sessions_tui.engine.redaction.sanitize import sanitize_history, strip_tool_messages

log = logging.getLogger(__name__)

KEEP = 4
"""Sessions whose transcripts stay subscribed after they were read."""

_FAILED = (ConnectionLost, RequestFailed, TimeoutError)


class OpenTranscripts:
    """The sessions whose transcripts this backend follows, the most recently read last."""

    def __init__(self, keep: int = KEEP) -> None:
        self.keep = keep
        self._keys: OrderedDict[str, None] = OrderedDict()

    @property
    def keys(self) -> list[str]:
        return list(self._keys)

    async def open(self, calls: Calls, key: str) -> None:
        """Follow `key`'s transcript (the gateway's own key); the oldest past `keep` is let go."""
        if key in self._keys:
            self._keys.move_to_end(key)
            return
        try:
            await calls.request("sessions.messages.subscribe", {"key": key})
        except _FAILED as exc:
            log.info("gateway: following %s's transcript failed: %s", key, exc)
            return
        self._keys[key] = None
        while len(self._keys) > self.keep:
            old, _ = self._keys.popitem(last=False)
            try:
                await calls.request("sessions.messages.unsubscribe", {"key": old})
            except _FAILED as exc:
                log.debug("gateway: letting %s's transcript go failed: %s", old, exc)

    async def resubscribe(self, calls: Calls) -> None:
        """Follow the open transcripts again (a new connection follows none)."""
        for key in list(self._keys):
            try:
                await calls.request("sessions.messages.subscribe", {"key": key})
            except RequestFailed as exc:  # the session went meanwhile
                log.info("gateway: following %s's transcript again failed: %s", key, exc)
                self._keys.pop(key, None)


def history_params(key: str, *, limit: int, offset: int) -> dict[str, Any]:
    """`chat.history`'s parameters for a page of `sessions_history` (the gateway caps `limit` at 1000)."""
    params: dict[str, Any] = {"sessionKey": key, "limit": max(1, min(limit, 1000))}
    if offset:
        params["offset"] = offset
    return params


def history_result(
    answer: Any, shown_key: str, *, include_tools: bool, offset: int, redactor: Redactor
) -> dict[str, Any]:
    """A `chat.history` answer as `sessions_history`'s result, sanitised and redacted."""
    raw = answer.get("messages") if isinstance(answer, dict) else None
    messages = [m for m in raw or [] if isinstance(m, dict)]
    if not include_tools:
        messages = strip_tool_messages(messages)
    result = sanitize_history(messages, redactor)
    has_more = bool(answer.get("hasMore")) if isinstance(answer, dict) else False
    total = answer.get("totalMessages") if isinstance(answer, dict) else None
    payload: dict[str, Any] = {
        "sessionKey": shown_key,
        "messages": result.messages,
        "truncated": result.truncated,
        "droppedMessages": result.dropped_messages,
        "contentTruncated": result.content_truncated,
        "contentRedacted": result.content_redacted,
        "bytes": result.bytes,
        "hardCapped": result.hard_capped,
        "totalBytes": result.bytes,
        "offset": offset,
        "hasMore": has_more,
        "totalMessages": total if isinstance(total, int) else len(messages),
    }
    next_offset = answer.get("nextOffset") if isinstance(answer, dict) else None
    if has_more and isinstance(next_offset, int):
        payload["nextOffset"] = next_offset
    return payload
