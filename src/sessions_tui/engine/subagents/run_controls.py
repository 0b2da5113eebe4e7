"""Kill, steer and abort across processes: a run is controlled by the process executing it.

A run's tasks live in the process that runs it (the dashboard, `serve`, a `send`); the store says
which (`runs.pid`). Asked to kill or steer a run another live process executes, a process records
a `run_controls` row for that process and watches it for the answer (at most
`CONTROL_WAIT_SECONDS`). Every process serves the rows addressed to it from a watcher on its own
event loop, woken by the store's `data_version` (it moves when another process commits): the kill
or steer is carried out there, as if asked locally, and the result written back. Runs a dead
process left are the start-up's orphans (`Runs.recover_interrupted`): they are ended as
interrupted and announced `unknown`, never "killed" by a process that did not run them.

The operator's stop of a session's turn (`abort_session`, OpenClaw's `sessions.abort`) goes the
same way: the process the runs registry names as running the turn is asked (an `abort` row), and
with `clear_queued` so is every process holding runs waiting behind it; each answers once its
part has ended, and the stop is written to the audit log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from sessions_tui.counting import counted
from sessions_tui.engine.events import MessageAppended
from sessions_tui.engine.hosts import EngineFloor
from sessions_tui.engine.messaging.audit import record_abort
from sessions_tui.engine.run_end import INTERRUPTED
from sessions_tui.engine.runs.recovery import recover_interrupted
from sessions_tui.engine.runs.runs import CROSS_PROCESS_POLL_SECONDS, KILLED, TERMINAL, RunRequest, Runs
from sessions_tui.engine.stopping import cancel_and_wait
from sessions_tui.engine.store.connection import StoreError
from sessions_tui.engine.store.processes import stopped
from sessions_tui.engine.subagents.records import SubagentRun

if TYPE_CHECKING:
    from sessions_tui.engine.messaging.ledger import SendLedger
    from sessions_tui.engine.store.tables.run_controls import RunControlRow
    from sessions_tui.engine.subagents.registry import SubagentRegistry

log = logging.getLogger(__name__)

ANNOUNCE_WAIT_STEPS = 200  # a killed run's announce takes no model turn: it is quick
CONTROL_WAIT_SECONDS = 10.0
CONTROL_POLL_SECONDS = 2 * CROSS_PROCESS_POLL_SECONDS  # the watcher's tick: one PRAGMA, 10 a second


CLEAR_QUEUED = "clear-queued"
"""An `abort` row's message when the runs waiting behind the turn are to be dropped too."""

ABORTED, NO_ACTIVE_RUN, STILL_RUNNING = "aborted", "no-active-run", "still-running"


@dataclass(frozen=True)
class SessionAbort:
    """What the operator's stop of a session's turn did: `status` is `aborted` (`run_id` stopped),
    `no-active-run`, or `still-running` (`run_id` was asked to stop and had not within the wait);
    `cleared` the waiting runs dropped."""

    session_key: str
    status: str
    run_id: str | None = None
    cleared: list[str] = field(default_factory=list)


class ControlFailed(Exception):
    """A kill or steer the process running the run did not carry out (it stopped, or did not answer)."""


class ControlsHost(EngineFloor, Protocol):
    """What control needs of the engine: its floor (the store; the clock for the audit log), its
    runs, the send ledger (the reap ends the sends of dead processes too), the sub-agent registry,
    background work."""

    @property
    def runs(self) -> Runs[Any]: ...

    @property
    def ledger(self) -> SendLedger: ...

    @property
    def subagents(self) -> SubagentRegistry: ...

    def background(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]: ...


def is_live(engine: ControlsHost, run: SubagentRun) -> bool:
    """Whether a registered run is still queued or running (its record has not ended)."""
    record = engine.runs.get(run.run_id)
    return record is not None and record.status in ("queued", "running")


async def kill_here(engine: ControlsHost, run: SubagentRun, pid: int) -> bool:
    """This process's part of a kill: its runs in the child's session killed and, when the run was
    live here (its record names `pid`), its end as `killed` and its announce. Returns whether it was."""
    holder = engine.store.runs.run_pid(run.run_id)
    was_live = is_live(engine, run) and holder in (pid, None)
    await engine.runs.kill_session(run.child_key)
    if was_live:
        await engine.subagents.finish(run.run_id, "killed", KILLED)
        await _announced(engine, run.run_id)
    return was_live


async def _announced(engine: ControlsHost, run_id: str) -> None:
    """Wait (briefly) for the killed run's announce, which the run's own follower may be posting."""
    for _ in range(ANNOUNCE_WAIT_STEPS):
        run = engine.subagents.get(run_id)
        if run is None or run.announce_state == "done":
            return
        await asyncio.sleep(0.01)


def steer(engine: ControlsHost, run: SubagentRun, message: str) -> str:
    """Queue `message` in the child's lane in this process; its run takes it after the current turn.
    Returns the queued run's id."""
    return engine.runs.start(
        RunRequest(
            session_key=run.child_key,
            message=message,
            lane="subagent",
            label=run.label,
            provenance={
                "kind": "inter_session",
                "sourceSessionKey": run.requester_key,
                "sourceTool": "subagents",
            },
            chain=[run.requester_key, run.child_key],
        )
    )


class RunControls:
    """This engine's side of cross-process control: asking other processes, and serving their asks."""

    def __init__(self, engine: ControlsHost) -> None:
        self.engine = engine
        self.pid = engine.store.processes.me  # who this engine is to the others (tests stand a second process in)
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def elsewhere(self, pid: int | None) -> bool:
        """Whether `pid` is another live process (one that must be asked)."""
        return pid is not None and pid != self.pid and self.engine.store.processes.alive(pid)

    # -- asking ----------------------------------------------------------------------------------

    async def request(self, owner_pid: int, run_id: str, action: str, message: str | None = None) -> dict[str, Any]:
        """Ask the process `owner_pid` to kill or steer `run_id` and wait for its answer; raises
        `ControlFailed` when it stops or does not answer in time (the request is then closed)."""
        store = self.engine.store
        control_id = store.run_controls.add_run_control(run_id, action, message, owner_pid)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CONTROL_WAIT_SECONDS
        while True:
            row = store.run_controls.get_run_control(control_id)
            if row is not None and row.done_at is not None:
                return row.result
            if not self.engine.store.processes.alive(owner_pid):
                why = f"the process running it (pid {owner_pid}) has stopped"
            elif loop.time() >= deadline:
                why = f"the process running it (pid {owner_pid}) did not answer within {CONTROL_WAIT_SECONDS:g} s"
            else:
                await asyncio.sleep(CONTROL_POLL_SECONDS)
                continue
            if store.run_controls.finish_run_control(control_id, {"error": why}):
                raise ControlFailed(why)
            # answered between the read and now: read it again

    async def kill(self, run: SubagentRun) -> bool:
        """End a registered run and everything queued in its child's session, wherever it executes:
        other processes are asked, this one's part is done here. Returns whether the run was live."""
        engine = self.engine
        was_live = False
        for pid in engine.store.run_controls.session_run_pids(run.child_key):
            if pid is not None and self.elsewhere(pid):
                answer = await self.request(pid, run.run_id, "kill")
                if "error" in answer:
                    raise ControlFailed(str(answer["error"]))
                was_live = was_live or answer.get("wasLive") is True
        return await kill_here(engine, run, self.pid) or was_live

    async def steer(self, run: SubagentRun, message: str) -> str | None:
        """Queue `message` in the child's lane in the process running it; returns the queued run's
        id, None when the run ended meanwhile."""
        holder = self.engine.store.runs.run_pid(run.run_id)
        if holder is None or not self.elsewhere(holder):
            return steer(self.engine, run, message)
        answer = await self.request(holder, run.run_id, "steer", message)
        if "error" in answer:
            raise ControlFailed(str(answer["error"]))
        queued = answer.get("queuedRunId")
        return queued if isinstance(queued, str) else None

    async def abort_session(
        self, session_key: str, *, clear_queued: bool = False, requester: str | None = None
    ) -> SessionAbort:
        """Stop the session's running turn wherever it runs (with `clear_queued`, the runs waiting
        behind it too, in every process holding one), waiting at most `CONTROL_WAIT_SECONDS` for
        each process's part to end; audited when it asked anything of a run, and told where it is
        seen (messaging/audit.py `record_abort`: the transcript's line, the send ledger)."""
        engine = self.engine
        live = engine.store.runs.live_runs(session_key)
        if any(
            stopped(engine.store.processes, run.pid) for run in live
        ):  # a dead process's runs end as interrupted, not stopped
            self.reap()
            live = engine.store.runs.live_runs(session_key)
        running = next((run for run in live if run.status == "running"), None)
        cleared: list[str] = []
        if clear_queued:  # those first, so none of them starts once the turn ends
            holders: dict[int | None, str] = {}
            for run in live:
                if run.status == "queued" and (running is None or run.pid != running.pid):
                    holders.setdefault(run.pid, run.run_id)
            for pid, pointer in holders.items():
                with contextlib.suppress(TimeoutError):  # a holder that did not answer keeps its runs
                    cleared += (await self._abort_in(pid, session_key, pointer, clear_queued=True))[1]
        status, run_id = NO_ACTIVE_RUN, None
        if running is not None:
            run_id = running.run_id
            try:
                was, dropped = await self._abort_in(running.pid, session_key, run_id, clear_queued=clear_queued)
            except TimeoutError:
                was, dropped = True, []
            cleared += dropped
            record = engine.store.runs.get_run(run_id)
            if record is not None and record.status not in TERMINAL:
                status = STILL_RUNNING
            elif was and record is not None and record.status == KILLED:
                status = ABORTED
            else:
                run_id = None  # it ended by itself meanwhile
        if run_id is not None or cleared:
            record_abort(engine, session_key, status=status, run_id=run_id, cleared=cleared, requester=requester)
            self._tell_stop(session_key, status, run_id, cleared, requester)
        return SessionAbort(session_key, status, run_id, cleared)

    def _tell_stop(
        self, session_key: str, status: str, run_id: str | None, cleared: list[str], requester: str | None
    ) -> None:
        """A stop seen where its session is read: a line in the transcript (`Stopped by the
        operator…`, a displayed custom message) and, for each send whose run it ended or dropped,
        the ledger's `aborted`."""
        engine = self.engine
        who = "the operator" if requester is None else requester
        parts = [f"run {run_id}"] if status == ABORTED and run_id else []
        if status == STILL_RUNNING:
            parts.append("asked; the run has not ended yet")
        if cleared:
            parts.append(f"{len(cleared)} queued {counted(len(cleared), 'message')} dropped")
        line = {
            "type": "custom_message",
            "customType": "sessions-tui.stop",
            "display": True,
            "content": f"Stopped by {who} ({'; '.join(parts)})",
            "details": {"runId": run_id, "status": status, "clearedQueued": cleared},
        }
        with contextlib.suppress(StoreError):  # deleted meanwhile: nothing to tell
            appended = engine.store.transcripts.append_lines(session_key, [line])[0]
            engine.events.publish(
                MessageAppended(ts=engine.now(), session_key=session_key, role="custom", seq=appended.msg_seq)
            )
        detail = {"by": who, "status": status}
        for stopped_run in ([run_id] if status == ABORTED and run_id else []) + cleared:
            engine.ledger.mark(stopped_run, "aborted", detail)

    async def _abort_in(
        self, pid: int | None, session_key: str, run_id: str, *, clear_queued: bool
    ) -> tuple[bool, list[str]]:
        """One process's part of a stop: here, or asked of the live process `pid` (its answer).
        Raises `TimeoutError` when its part has not ended within the wait (or it could not)."""
        if pid is not None and self.elsewhere(pid):
            try:
                answer = await self.request(pid, run_id, "abort", CLEAR_QUEUED if clear_queued else None)
            except ControlFailed as exc:
                if self.engine.store.processes.alive(pid):
                    raise TimeoutError(str(exc)) from None
                self.reap()  # it stopped meanwhile: its runs end as interrupted
                return False, []
            if "error" in answer:  # it could not: what the run's record says is the outcome
                raise TimeoutError(str(answer["error"]))
            return answer.get("stopped") is True, [str(one) for one in answer.get("cleared") or []]
        if pid is not None and pid != self.pid:  # a dead process's run, reaped above: nothing runs it
            return False, []
        part = self.engine.runs.abort_session(session_key, run_id, clear_queued=clear_queued)
        return await asyncio.wait_for(asyncio.shield(asyncio.ensure_future(part)), CONTROL_WAIT_SECONDS)

    def reap(self) -> dict[str, int]:
        """Runs dead processes left queued or running end as interrupted (the start-up's orphan
        handling), their sub-agents announced `unknown`; returns {registered run id: its dead pid}."""
        engine = self.engine
        unfinished = list(engine.store.runs.unfinished_runs())
        pids = dict(unfinished)
        gone: dict[str, int] = {}
        for record in recover_interrupted(engine, unfinished):
            pid = pids.get(record.run_id)
            if pid is not None and engine.subagents.get(record.run_id) is not None:
                gone[record.run_id] = pid
                engine.background(engine.subagents.finish(record.run_id, "unknown", INTERRUPTED))
        return gone

    # -- serving ---------------------------------------------------------------------------------

    def start(self) -> None:
        """Serve what other processes ask of this one, on the running loop until `aclose`; requests
        left for processes that are gone are closed first. Must be called inside the event loop."""
        self.recover()
        loop = asyncio.get_running_loop()
        if self._task is not None and not self._task.done() and self._loop is loop:
            return
        self._loop = loop
        self._task = loop.create_task(self._watch(), name="run-controls")

    def serving(self) -> bool:
        """Whether this process serves what others ask of it (`start`, on the running loop)."""
        task = self._task
        return task is not None and not task.done() and self._loop is asyncio.get_running_loop()

    def recover(self) -> list[int]:
        """Close the requests addressed to processes that are gone; returns their ids."""
        closed = []
        for row in self.engine.store.run_controls.pending_run_controls():
            owner = row.owner_pid
            if owner is None or (owner != self.pid and not self.engine.store.processes.alive(owner)):
                why = f"the process running it (pid {owner}) has stopped"
                if self.engine.store.run_controls.finish_run_control(row.id, {"error": why}):
                    closed.append(row.id)
        return closed

    async def aclose(self) -> None:
        task, self._task = self._task, None
        await cancel_and_wait(task, closing=True)

    async def _watch(self) -> None:
        """Check for requests when another process has committed (one PRAGMA a tick otherwise; a
        tick is skipped while another thread holds the store)."""
        version: int | None = None
        while True:
            try:
                now = self.engine.store.data_version_if_free()
                if now is not None and now != version:
                    version = now
                    await self.serve_pending()
            except sqlite3.ProgrammingError:  # the store was closed under us: nothing more to serve
                return
            except Exception:  # noqa: BLE001 - the watcher must outlive a failed request
                log.exception("run controls: serving a request failed")
            await asyncio.sleep(CONTROL_POLL_SECONDS)

    async def serve_pending(self) -> int:
        """Carry out every request addressed to this process, oldest first; returns how many."""
        rows = self.engine.store.run_controls.pending_run_controls(self.pid)
        for row in rows:
            try:
                result = await self._serve(row)
            except Exception as exc:  # noqa: BLE001 - the requester gets the failure as its answer
                log.exception("run controls: %s of %s failed", row.action, row.run_id)
                result = {"error": f"{row.action} failed: {exc}"}
            self.engine.store.run_controls.finish_run_control(row.id, result)
        return len(rows)

    async def _serve(self, row: RunControlRow) -> dict[str, Any]:
        engine = self.engine
        if row.action == "abort":
            record = engine.store.runs.get_run(row.run_id)
            if record is None:
                return {"error": f"Unknown run: {row.run_id}"}
            was, cleared = await engine.runs.abort_session(
                record.session_key, row.run_id, clear_queued=row.message == CLEAR_QUEUED
            )
            return {"stopped": was, "cleared": cleared}
        run = engine.subagents.get(row.run_id)
        if run is None:
            return {"error": f"Unknown subagent run: {row.run_id}"}
        if row.action == "kill":
            return {"wasLive": await kill_here(engine, run, self.pid)}
        if row.action == "steer" and row.message:
            if engine.store.runs.run_pid(run.run_id) != self.pid:
                return {"error": f"the run {run.run_id} is not running in process {self.pid}"}
            if not is_live(engine, run):
                return {"queuedRunId": None}
            return {"queuedRunId": steer(engine, run, row.message)}
        return {"error": f"Unsupported control: {row.action}"}
