"""Sub-agents: the registry of spawned runs, their announce back, cleanup and archive.

A spawn registers its child run here (in the store, so a restarted process loses nothing). When
the child's run ends, the engine runs an announce step in the child (docs/decisions.md D4) and posts the
normalised `Status:` / `Result:` / `Notes:` block with a stats line into the requester's
session and to its channel, unless the child answers exactly `ANNOUNCE_SKIP`. A run that a
dead process left unfinished is found on start-up and announced with status `unknown`.
Finished children are archived (docs/decisions.md D5): flagged, never deleted.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, Protocol

from sessions_tui.engine.events import Announced, MessageAppended, SessionChanged
from sessions_tui.engine.messaging.a2a import ANNOUNCE_SKIP, A2AHost, is_announce_skip, latest_assistant_reply
from sessions_tui.engine.messaging.announce_route import AnnounceTarget, queue_announce, resolve_announce_target
from sessions_tui.engine.run_end import outcome_of, session_status_of
from sessions_tui.engine.runs.runs import TERMINAL, RunRequest
from sessions_tui.engine.sessions.keys import is_subagent_session_key
from sessions_tui.engine.sessions.refusals import SendBlocked
from sessions_tui.engine.store.processes import held_elsewhere
from sessions_tui.engine.store.tables.registry import SubagentRow
from sessions_tui.engine.subagents.announce_text import normalise_announce, stats_line
from sessions_tui.engine.subagents.records import (
    AnnouncementView,
    ChildView,
    SubagentRun,
    run_of_row,
    session_cost,
)

log = logging.getLogger(__name__)

ANNOUNCE_STEP_MESSAGE = "Sub-agent announce step."
NO_OUTPUT = "(no output)"
WAIT_SLICE_MS = 3_600_000


def announce_step_prompt(run: SubagentRun) -> str:
    return "\n".join(
        [
            "Sub-agent announce step:",
            f"Task: {run.task}",
            f"Outcome: {run.status_label}",
            'Reply with "Result:" (what you found or produced) and "Notes:" (anything the requester should '
            "know) only; no Status line, the system adds it.",
            f'If nothing should be announced, reply exactly "{ANNOUNCE_SKIP}".',
        ]
    )


class SubagentsHost(A2AHost, Protocol):
    """What the sub-agent registry needs of the engine, besides what announcing takes: background
    work (following a child's run) and admission into the requester's session."""

    def background(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]: ...

    def admit(self, key: str, *, via: str, requester: str | None = None) -> None: ...


class SubagentRegistry:
    def __init__(self, engine: SubagentsHost) -> None:
        self.engine = engine

    # -- records --------------------------------------------------------------------------------

    def register(self, run: SubagentRun) -> None:
        self.engine.store.registry.insert_subagent_run(
            SubagentRow(
                run_id=run.run_id,
                child_key=run.child_key,
                requester_key=run.requester_key,
                task=run.task,
                label=run.label,
                cleanup=run.cleanup,
                created_at=run.created_at,
                data=run.data,
            )
        )

    def get(self, run_id: str) -> SubagentRun | None:
        row = self.engine.store.registry.get_subagent_run(run_id)
        return run_of_row(row) if row else None

    def runs_of(self, requester_key: str | None = None, limit: int = 200) -> list[SubagentRun]:
        """Registered runs, newest first; only the requester's when given."""
        return [run_of_row(r) for r in self.engine.store.registry.subagent_runs(requester_key, limit=limit)]

    def children(self, requester_key: str, limit: int = 50) -> list[ChildView]:
        """The requester's children, newest first, with their sessions' live status."""
        out = []
        for run in self.runs_of(requester_key, limit=limit):
            session = self.engine.store.sessions.get(run.child_key)
            entry = session.entry if session else {}
            status = entry.get("status") or ("running" if run.ended_at is None else "done")
            started = entry.get("startedAt")
            out.append(
                ChildView(
                    run_id=run.run_id,
                    child_key=run.child_key,
                    label=run.label,
                    task=run.task,
                    status=status,
                    started_at=started if isinstance(started, int) else run.created_at,
                    ended_at=run.ended_at or (entry.get("endedAt") if isinstance(entry.get("endedAt"), int) else None),
                    total_tokens=entry.get("totalTokens")
                    if isinstance(entry.get("totalTokens"), (int, float))
                    else None,
                    cost_usd=session_cost(entry),
                )
            )
        return out

    def announcements(self, requester_key: str, limit: int = 200) -> list[AnnouncementView]:
        """Announces in the requester's recent transcript, oldest first."""
        out = []
        for message in self.engine.store.transcripts.history(requester_key, limit=limit).messages:
            announce = message.get("announce")
            if not isinstance(announce, dict):
                continue
            run = self.get(str(announce.get("runId", "")))
            text = "".join(b.get("text", "") for b in message.get("content") or [] if isinstance(b, dict))
            out.append(
                AnnouncementView(
                    run_id=str(announce.get("runId", "")),
                    child_key=str(announce.get("childSessionKey", "")),
                    label=(run.label or run.task) if run else None,
                    text=text,
                    ts=message.get("timestamp"),
                    status=announce.get("status"),
                )
            )
        return out

    def active_children(self, requester_key: str) -> int:
        return self.engine.store.registry.running_children(requester_key)

    def _claim(self, run_id: str) -> bool:
        """Take the announce of a run for this process (so two processes never both announce)."""
        processes = self.engine.store.processes
        return self.engine.store.registry.claim_announce(
            run_id, processes.me, held_elsewhere=lambda pid: held_elsewhere(processes, pid)
        )

    # -- lifecycle ------------------------------------------------------------------------------

    def watch(self, run_id: str) -> None:
        """Follow a child run to its end and announce it, in the background."""
        self.engine.background(self._follow(run_id))

    async def _follow(self, run_id: str) -> None:
        try:
            while True:
                wait = await self.engine.runs.wait(run_id, WAIT_SLICE_MS)
                if wait.ended_at is not None or wait.status != "timeout":
                    break
            await self.finish(run_id, wait.status, wait.error)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - never drop a run silently; recovery will retry
            log.exception("sub-agent run %s: announce failed", run_id)

    async def finish(self, run_id: str, status: str, error: str | None) -> None:
        """Record the child's outcome, then announce it (once, whichever process gets there)."""
        run = self.get(run_id)
        if run is None:
            return
        outcome = outcome_of(status)
        if run.ended_at is None:
            now = self.engine.now()
            self.engine.store.registry.end_subagent_run(run_id, ended_at=now, outcome=outcome, outcome_error=error)
            self._mark_child(run, outcome, now)
        if self._claim(run_id):
            await self._announce(self.get(run_id))  # type: ignore[arg-type]

    def _mark_child(self, run: SubagentRun, outcome: str, ended_at: int) -> None:
        session = self.engine.store.sessions.get(run.child_key)
        if session is None:
            return
        started = session.entry.get("startedAt")
        changes: dict[str, Any] = {"status": session_status_of(outcome), "endedAt": ended_at}
        if isinstance(started, int):
            changes["runtimeMs"] = max(0, ended_at - started)
        self.engine.store.sessions.patch(run.child_key, changes)
        self.engine.events.publish(SessionChanged(ts=ended_at, session_key=run.child_key))

    async def _announce(self, run: SubagentRun) -> None:
        engine = self.engine
        # A killed child gets no announce step: nothing of it may run again (its last reply is the Result).
        reply, why = (None, None) if run.outcome == "killed" else await self._announce_step(run)
        if reply is not None and is_announce_skip(reply):
            self._done(run, "skipped")
            return
        if reply is None or not reply.strip():
            latest = latest_assistant_reply(engine, run.child_key)
            result = latest.text if latest else NO_OUTPUT
            notes = f"The announce step did not answer ({why})." if why else ""
        else:
            result, notes = normalise_announce(reply)
            result = result or NO_OUTPUT
        text = self.compose(run, result, notes)
        announce = {"childSessionKey": run.child_key, "runId": run.run_id, "status": run.outcome or "unknown"}
        try:
            engine.admit(run.requester_key, via="subagent_announce", requester=run.child_key)
        except SendBlocked:
            engine.events.publish(
                Announced(
                    ts=engine.now(),
                    kind="subagent",
                    session_key=run.requester_key,
                    text=text,
                    run_id=run.run_id,
                    child_session_key=run.child_key,
                    status=run.outcome,
                    delivery="forbidden",
                )
            )
            self._done(run, "forbidden")
            return
        if engine.store.sessions.get(run.requester_key) is None:
            engine.store.sessions.ensure(run.requester_key)
        appended = engine.store.transcripts.append(
            run.requester_key,
            {
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
                "announce": announce,
                "timestamp": engine.now(),
            },
        )
        engine.events.publish(
            MessageAppended(ts=engine.now(), session_key=run.requester_key, role="assistant", seq=appended.msg_seq)
        )
        target = None if is_subagent_session_key(run.requester_key) else self._requester_target(run)
        state = queue_announce(
            engine,
            kind="subagent",
            session_key=run.requester_key,
            text=text,
            target=target,
            via="subagent_announce",
            event={"run_id": run.run_id, "child_session_key": run.child_key, "status": run.outcome},
        ).state
        self._done(run, state)

    def _requester_target(self, run: SubagentRun) -> AnnounceTarget | None:
        origin = run.data.get("requesterOrigin") or {}
        if origin.get("channel") and origin.get("to"):
            return AnnounceTarget(
                channel=origin["channel"],
                to=origin["to"],
                account_id=origin.get("accountId"),
                thread_id=origin.get("threadId"),
            )
        return resolve_announce_target(self.engine, run.requester_key)

    async def _announce_step(self, run: SubagentRun) -> tuple[str | None, str | None]:
        """One more model turn in the child: its Result and Notes, or ANNOUNCE_SKIP."""
        engine = self.engine
        if engine.store.sessions.get(run.child_key) is None:
            return None, "the child session is gone"
        timeout_ms = engine.config.agents.defaults.subagents.announce_timeout_ms
        run_id = engine.runs.start(
            RunRequest(
                session_key=run.child_key,
                message=ANNOUNCE_STEP_MESSAGE,
                extra_system_prompt=announce_step_prompt(run),
                lane="subagent",
                internal=True,
                keep_status=True,
                tools=[],
                timeout_seconds=max(1, timeout_ms // 1000),
            )
        )
        wait = await engine.runs.wait(run_id, timeout_ms)
        if wait.status != "ok":
            return None, wait.error or wait.status
        snapshot = latest_assistant_reply(engine, run.child_key)
        return (snapshot.text if snapshot else None), None

    def compose(self, run: SubagentRun, result: str, notes: str) -> str:
        """The announce block (docs/decisions.md D4): Status, Result and Notes, then the stats line."""
        session = self.engine.store.sessions.get(run.child_key)
        entry = session.entry if session else {}
        started = entry.get("startedAt")
        runtime = (run.ended_at - started) if isinstance(started, int) and run.ended_at else None
        stats = stats_line(
            entry,
            runtime_ms=runtime,
            key=run.child_key,
            session_id=session.session_id if session else "unknown",
            transcript=session.mirror_path if session else "unknown",
        )
        return f"Status: {run.status_label}\nResult: {result}\nNotes: {notes}\n\n{stats}"

    def _done(self, run: SubagentRun, state: str) -> None:
        now = self.engine.now()
        archive_at = None
        if run.cleanup == "delete":
            archive_at = now
        else:
            minutes = self.engine.config.agents.defaults.subagents.archive_after_minutes
            if minutes and minutes > 0:
                archive_at = (run.ended_at or now) + minutes * 60_000
        data = {**run.data, "announceDelivery": state}
        self.engine.store.registry.mark_announced(run.run_id, announced_at=now, archive_at=archive_at, data=data)
        if archive_at is not None and archive_at <= now:
            self.archive(run.child_key)

    # -- archive and recovery -------------------------------------------------------------------

    def archive(self, child_key: str) -> bool:
        """Flag a finished child as archived: it leaves listings, its transcript stays. Whether
        this call archived it (not when another process did first: one archive time, one event)."""
        session = self.engine.store.sessions.get(child_key)
        if session is None or session.archived_at is not None:
            return False
        if not self.engine.store.sessions.archive_if_live(child_key, self.engine.now()):
            return False
        self.engine.events.publish(SessionChanged(ts=self.engine.now(), session_key=child_key))
        return True

    def sweep(self) -> int:
        """Archive every finished child whose time has come; returns how many this call archived."""
        return sum(self.archive(key) for key in self.engine.store.registry.children_due_for_archive(self.engine.now()))

    def recover(self) -> list[str]:
        """Find runs left unannounced (a crash, a restart) and announce them; returns their ids."""
        recovered = []
        for row in self.engine.store.registry.unannounced_subagent_runs():
            run = run_of_row(row)
            if run.announce_state == "announcing" and self.engine.store.processes.alive(row.announce_pid):
                continue
            record = self.engine.runs.get(run.run_id)
            if record is not None and record.status not in TERMINAL:
                if self.engine.runs.active_run(run.child_key) == run.run_id:
                    continue
                if self._run_pid_alive(run.run_id):
                    continue
            status = record.status if record is not None and record.status in TERMINAL else "unknown"
            if record is not None and record.error and record.error.startswith("interrupted"):
                status = "unknown"
            recovered.append(run.run_id)
            self.engine.background(self.finish(run.run_id, status, record.error if record else None))
        return recovered

    def _run_pid_alive(self, run_id: str) -> bool:
        return held_elsewhere(self.engine.store.processes, self.engine.store.runs.run_pid(run_id))
