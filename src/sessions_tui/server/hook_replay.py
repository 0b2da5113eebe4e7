"""The `idempotencyKey` replay rule of `POST /hooks/agent`: the same request again gets the same run, never a second.

OpenClaw's rule (gateway/server/hooks-request-handler.ts): a request with a replay key, the same
token, path and dispatch fields (agent, session key, message, name, mode, delivery, model,
thinking, timeout) as an earlier one is answered with that one's admission: the same `runId`, and
for a caller that waits, the same completion. Changing any of them makes a new run. A request
still being admitted is waited for, not started twice. An admission that fails is forgotten (a
retry may succeed); an admitted run is kept while it runs and for `ttl_s` (5 minutes) after it
ended, at most `max_ended` (1,000) ended ones, oldest dropped first. Kept in this process only, as
OpenClaw keeps it: a restart forgets them.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sessions_tui.backend.values.vocabulary import HookAdmitted, HookCompletion

REPLAY_TTL_S = 300.0
MAX_ENDED = 1000


@dataclass
class _Entry:
    key: str
    admission: asyncio.Future[HookAdmitted]
    completion: asyncio.Future[HookCompletion] | None = None
    ended_at: float | None = None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class HookReplays:
    """The replay entries of one server process."""

    def __init__(
        self,
        *,
        ttl_s: float = REPLAY_TTL_S,
        max_ended: int = MAX_ENDED,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl_s = ttl_s
        self.max_ended = max_ended
        self._clock = clock
        self._entries: dict[str, _Entry] = {}

    def key(self, idempotency_key: str | None, token: str, path: str, scope: dict[str, Any]) -> str | None:
        """The entry a request replays, or None when it gives no replay key."""
        if not idempotency_key:
            return None
        fields = json.dumps({"pathKey": path, "dispatchScope": scope}, sort_keys=True, ensure_ascii=False)
        return f"{_digest(token)}:{_digest(fields)}:{_digest(idempotency_key)}"

    def __len__(self) -> int:
        return len(self._entries)

    async def admit(
        self,
        key: str | None,
        dispatch: Callable[[], Awaitable[HookAdmitted]],
        completion: Callable[[str], Awaitable[HookCompletion]],
    ) -> tuple[HookAdmitted, Callable[[], Awaitable[HookCompletion]]]:
        """The admission of the request `key` names: the earlier one's when there is one, else
        `dispatch`'s (whose refusal is raised and not kept); and how to wait for its completion."""
        if key is None:
            admitted = await dispatch()
            return admitted, lambda: completion(admitted.run_id)
        self._prune()
        entry = self._entries.get(key)
        if entry is None:
            entry = _Entry(key, asyncio.ensure_future(dispatch()))
            self._entries[key] = entry
            entry.admission.add_done_callback(lambda done: self._admitted(key, entry, done, completion))
        admitted = await asyncio.shield(entry.admission)
        return admitted, lambda: self._completion(entry)

    def _admitted(
        self,
        key: str,
        entry: _Entry,
        done: asyncio.Future[HookAdmitted],
        completion: Callable[[str], Awaitable[HookCompletion]],
    ) -> None:
        if done.cancelled() or done.exception() is not None:
            if self._entries.get(key) is entry:
                del self._entries[key]  # a failed admission may be retried
            return
        entry.completion = asyncio.ensure_future(completion(done.result().run_id))
        entry.completion.add_done_callback(lambda _: self._ended(entry))

    def _ended(self, entry: _Entry) -> None:
        """Its run ended (once, whichever of its completion's callback and a waiter sees it first)."""
        if entry.ended_at is not None or self._entries.get(entry.key) is not entry:
            return
        entry.ended_at = self._clock()
        del self._entries[entry.key]
        self._entries[entry.key] = entry  # the newest ended one last: the oldest are dropped first
        self._prune()

    async def _completion(self, entry: _Entry) -> HookCompletion:
        assert entry.completion is not None  # set as soon as the admission is
        done = await asyncio.shield(entry.completion)
        self._ended(entry)
        return done

    def _prune(self) -> None:
        now = self._clock()
        for key, entry in list(self._entries.items()):
            if entry.ended_at is not None and entry.ended_at < now - self.ttl_s:
                del self._entries[key]
        ended = [key for key, entry in self._entries.items() if entry.ended_at is not None]
        for key in ended[: max(0, len(ended) - self.max_ended)]:
            del self._entries[key]
