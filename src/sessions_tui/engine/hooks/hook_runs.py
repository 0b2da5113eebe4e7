"""The runs inbound hooks start: a hook let in, placed, its session readied, its run queued and followed to its end.

`admit` does the store's part (any thread: the store's own, for a server's loop): the placement
(hooks/policy.py), the session (a new `hook:<uuid>` one; an isolated hook on a key that has a
transcript gets a fresh sessionId, the earlier one kept as a reset keeps it; a persistent one
reuses it), the hook recorded on the entry (`hook`: its name, path, run, when; its name as the
session's `displayName` when it has none, so every list shows where it came from), the run's
record, all in one transaction; then `HookReceived` and `SessionChanged`. `start` queues the run on
the caller's loop and follows it in the background: when it ends, its completion (OpenClaw's
`completion`: status, whether it replied) is known, and a reply asked for on a channel (`deliver`
with `channel` and `to`) goes out through the outbox. The message the agent gets is wrapped as
external content (hooks/external_content.py).

Per process: a run started here is followed here (`completion` answers for those only).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from sessions_tui.engine.events import HookReceived, SessionChanged
from sessions_tui.engine.hooks.external_content import SILENT_REPLY_TOKEN, hook_prompt, suspicious_patterns
from sessions_tui.engine.hooks.policy import HookPlacement, place_hook
from sessions_tui.engine.hooks.values import HookAdmitted, HookCompletion, HookRun
from sessions_tui.engine.messaging.a2a import ReplySnapshot, latest_assistant_reply
from sessions_tui.engine.messaging.outbox import Outbox
from sessions_tui.engine.runs.runs import RunRequest, Runs
from sessions_tui.engine.session_operations import OperationsHost, reset_session
from sessions_tui.engine.sessions.ids import new_uuid
from sessions_tui.engine.sessions.refusals import OwnedByOpenClaw
from sessions_tui.engine.store.tables.runs import RunRecord

log = logging.getLogger(__name__)

HOOK_LANE = "hook"
COMPLETION_WAIT_MS = 24 * 3600 * 1000
"""How long following a run waits for its end at most (a run has its own time limit)."""
COMPLETION_KEPT_S = 300.0
"""How long a completion stays to be asked for after its run ended (OpenClaw keeps a replay 5 minutes)."""
Disposition = Literal["visible", "silent", "empty"]


class HookConflict(Exception):
    """The hook's session cannot take work (it belongs to an OpenClaw): OpenClaw's 409."""


class HooksHost(OperationsHost, Protocol):
    """What hook runs need of the engine: its floor, key spellings, runs, outbox, background work."""

    @property
    def runs(self) -> Runs[Any]: ...

    @property
    def outbox(self) -> Outbox: ...

    def background(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]: ...


@dataclass(frozen=True)
class Admission:
    """A hook's store part done: where it runs, its run's record and request, the reply before it."""

    hook: HookRun
    placement: HookPlacement
    record: RunRecord
    request: RunRequest
    baseline: ReplySnapshot | None


class HookRuns:
    """The hook runs of one engine, and the completions of those this process follows."""

    def __init__(self, engine: HooksHost) -> None:
        self.engine = engine
        self._completions: dict[str, asyncio.Task[HookCompletion]] = {}

    def admit(self, hook: HookRun, runs: Runs[Any]) -> Admission:
        """The store's part of letting `hook` in (any thread): `HookRefused` for what the policy
        refuses, `HookConflict` for a session that cannot take work."""
        engine = self.engine
        known = engine.config.agent_ids()
        placement = place_hook(
            engine.config.hooks,
            engine.alias,
            known,
            agent_id=hook.agent_id,
            session_key=hook.session_key,
            session_mode=hook.session_mode,
        )
        key = placement.session_key
        if engine.owner_of(key) is not None:
            raise HookConflict("hook agent run was rejected because the target session changed")
        now = engine.now()
        job_id = new_uuid()
        found = suspicious_patterns(hook.message)
        if found:
            log.warning("suspicious patterns in external hook content (session=%s): %s", key, ", ".join(found[:3]))
        request = RunRequest(
            session_key=key,
            message=hook_prompt(hook.message, name=hook.name, job_id=job_id, now_ms=now),
            provenance={"kind": "hook", "name": hook.name, "sourcePath": hook.path, "jobId": job_id},
            lane=HOOK_LANE,
            label=hook.name,
            model=hook.model,
            thinking=hook.thinking,
            timeout_seconds=hook.timeout_seconds,
        )
        with engine.store.write():
            engine.store.sessions.ensure(key)
            if hook.session_mode == "isolated" and engine.store.transcripts.transcript_tail(key)[0] > 0:
                reset_session(engine, key)  # a fresh session; the earlier transcript kept
            try:
                record = runs.record(request)
            except OwnedByOpenClaw as exc:
                raise HookConflict("hook agent run was rejected because the target session changed") from exc
            entry = engine.store.sessions.get(key)
            changes: dict[str, Any] = {
                "hook": {"name": hook.name, "path": hook.path, "runId": record.run_id, "at": now},
                "updatedAt": now,
            }
            if entry is not None and not entry.entry.get("label") and not entry.entry.get("displayName"):
                changes["displayName"] = hook.name
            engine.store.sessions.patch(key, changes)
            baseline = latest_assistant_reply(engine, key) if hook.session_mode == "persistent" else None
        engine.events.publish(SessionChanged(ts=now, session_key=key))
        engine.events.publish(HookReceived(ts=now, session_key=key, name=hook.name, run_id=record.run_id))
        return Admission(hook, placement, record, request, baseline)

    def start(self, admission: Admission, runs: Runs[Any]) -> HookAdmitted:
        """Queue the admitted run (on the caller's loop) and follow it to its end."""
        run_id = runs.enqueue(admission.record, admission.request)
        self._completions[run_id] = self.engine.background(self._follow(admission, runs))
        return HookAdmitted(run_id=run_id, session_key=admission.placement.session_key)

    async def completion(self, run_id: str) -> HookCompletion:
        """How a hook run this process started ended, once it has (`KeyError` for another run)."""
        task = self._completions[run_id]
        return await asyncio.shield(task)

    async def _follow(self, admission: Admission, runs: Runs[Any]) -> HookCompletion:
        run_id = admission.record.run_id
        try:
            ended = await runs.wait(run_id, COMPLETION_WAIT_MS)
            reply = await self.engine.store.thread.run(self._reply, admission)
            return self._settle(admission, "ok" if ended.status == "ok" else "error", reply)
        finally:
            # Kept a while for whoever asks; the server keeps what it answered.
            asyncio.get_running_loop().call_later(COMPLETION_KEPT_S, self._completions.pop, run_id, None)

    def _reply(self, admission: Admission) -> str | None:
        """On the store's thread: the run's reply, if it gave a new one."""
        snapshot = latest_assistant_reply(self.engine, admission.placement.session_key)
        return snapshot.text if snapshot is not None and snapshot != admission.baseline else None

    def _settle(self, admission: Admission, status: Literal["ok", "error"], reply: str | None) -> HookCompletion:
        """The completion; a visible reply of a run that went well delivered when one was asked."""
        hook = admission.hook
        disposition: Disposition = "visible"
        if not reply or reply.strip() == SILENT_REPLY_TOKEN:
            disposition = "silent" if reply else "empty"
        done = HookCompletion(status=status, reply_disposition=disposition)
        if not (hook.deliver and hook.channel and hook.to) or status != "ok":
            return done
        if reply is None or disposition == "silent" or disposition == "empty":
            suppressed: Literal["empty", "silent"] = "silent" if disposition == "silent" else "empty"
            return done.model_copy(update={"delivered": False, "delivery_suppression_reason": suppressed})
        self.engine.outbox.enqueue(
            kind="hook",
            message=reply,
            session_key=admission.placement.session_key,
            channel=hook.channel,
            to=hook.to,
            data={"hook": hook.name, "runId": admission.record.run_id},
        )
        return done.model_copy(update={"delivery_attempted": True})


__all__ = ["Admission", "HookConflict", "HookRuns", "HooksHost"]
