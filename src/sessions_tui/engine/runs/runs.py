"""Runs: one model turn sequence in a session, queued one at a time per session.

`start` records the run and returns its id at once; a worker per session executes its queue in
order, and waits while another process is running a turn in the same session. `wait` waits for
a run's end without ever stopping it: a wait that times out leaves the run going. Records live in
the store, so a run started by another process can be waited on too (by polling), and runs a dead
process left unfinished are found on start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, Generic, Literal, TypeVar

from pydantic import Field

from sessions_tui.engine.events import RunEnded, RunStarted
from sessions_tui.engine.hosts import OwnedFloor
from sessions_tui.engine.inputs.surrogates import scrub_text
from sessions_tui.engine.lazy_model import LazyModel
from sessions_tui.engine.run_end import INTERRUPTED, RunEnd
from sessions_tui.engine.sessions.ids import new_uuid
from sessions_tui.engine.sessions.refusals import OwnedByOpenClaw
from sessions_tui.engine.store.connection import StoreDamaged
from sessions_tui.engine.store.processes import held_elsewhere, stopped
from sessions_tui.engine.store.tables.runs import RunRecord

TERMINAL = ("ok", "error", "timeout", "aborted", "killed")
KILLED = "killed"  # a killed run's error text too
DEFAULT_RUN_TIMEOUT_SECONDS = 600
CROSS_PROCESS_POLL_SECONDS = 0.05
TOLD_POLL_SECONDS = 0.5
"""How long a run waiting for another process's turn waits without a change of its session (on a store that tells)."""


class RunRequest(LazyModel):
    """What a run does: a message into a session, with the context the caller adds."""

    session_key: str
    message: str
    extra_system_prompt: str | None = None
    system_prompt: str | None = None  # replaces the agent's own prompt (sub-agents)
    provenance: dict[str, Any] | None = None
    lane: str = "main"
    timeout_seconds: int | None = None  # None: the default; 0: no limit
    model: str | None = None
    thinking: str | None = None
    tools: list[str] | None = None  # None: what the session may use
    label: str | None = None
    internal: bool = False  # an engine step (announce), hidden from the "user" role in views
    keep_status: bool = False  # leave the session's status alone (a finished child's announce step)
    # The sessions the message passed through, canonical keys, oldest first, this run's session
    # last (a `sessions_send` hop; a ping-pong or announce step keeps its send's chain as it is);
    # empty for a run no send started. Tool calls of the run carry it (docs/decisions.md D19).
    chain: list[str] = Field(default_factory=list)


class WaitResult(LazyModel):
    """The answer to waiting on a run, as OpenClaw's `agent.wait` gives it: the run's end, or `timeout`."""

    run_id: str
    status: RunEnd | Literal["pending"]
    error: str | None = None
    started_at: int | None = None
    ended_at: int | None = None


RunsHost = OwnedFloor
"""What runs need of the engine: config (the default timeout), store, event bus, clock, and session owners."""


HostT = TypeVar("HostT", bound=RunsHost)
Executor = Callable[[HostT, RunRecord, RunRequest], Awaitable[None]]
"""What runs a run: called with the engine that queued it; raises when the run fails."""


class Runs(Generic[HostT]):
    """The run queues of one engine (`HostT`, which the executor is called with)."""

    def __init__(self, engine: HostT, executor: Executor[HostT], *, on_start: Callable[[], None] | None = None) -> None:
        self.engine = engine
        self.executor = executor
        self.on_start = on_start
        """Called as each run is queued, its record written (the engine serves run controls from then on)."""
        self._queues: dict[str, deque[tuple[RunRecord, RunRequest]]] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._done: dict[str, asyncio.Event] = {}
        self._active: dict[str, asyncio.Task[None]] = {}
        self._inner: dict[str, asyncio.Future[None]] = {}  # the executor of a running run, to kill it alone
        self._killing: set[str] = set()
        self._turns: dict[str, asyncio.Event] = {}  # sessions whose turn another process holds: set on a change
        self._told: bool | None = None  # whether the store tells of other processes' changes (None: not asked)

    # -- records --------------------------------------------------------------------------------

    def _insert(self, record: RunRecord, request: RunRequest) -> None:
        self.engine.store.runs.insert_run(record, {"request": request.model_dump(exclude_none=True)})

    def _update(self, record: RunRecord) -> None:
        self.engine.store.runs.update_run(
            record.run_id,
            status=record.status,
            error=record.error,
            started_at=record.started_at,
            ended_at=record.ended_at,
            session_key=record.session_key,
        )

    def get(self, run_id: str) -> RunRecord | None:
        return self.engine.store.runs.get_run(run_id)

    def recover_interrupted(self, unfinished: list[tuple[str, int | None]] | None = None) -> list[RunRecord]:
        """Runs a dead process left queued or running end as errors (nothing stays 'running');
        `unfinished`: the store's (run id, pid) of such runs, when the caller has read them already."""
        recovered = []
        for run_id, pid in self.engine.store.runs.unfinished_runs() if unfinished is None else unfinished:
            if not stopped(self.engine.store.processes, pid):
                continue
            # Its end, and what its end makes of others' records (the send ledger marks its send),
            # in one transaction: the bus is synchronous, so they write inside this one. Read in
            # it too: of two processes starting at once, one ends the run, once.
            with self.engine.store.write():
                record = self.get(run_id)
                if record is None or record.status not in ("queued", "running"):
                    continue
                # It ended when its process was last known alive (a lapsed host: its lease's end), never
                # after a run another process started in the session once it was gone.
                ended = self.engine.store.processes.ended_at(pid)
                now = self.engine.now()
                record.status, record.error = "error", INTERRUPTED
                record.ended_at = now if ended is None else max(record.started_at or 0, min(now, ended))
                self._update(record)
                self._ended(record)
            recovered.append(record)
        return recovered

    def active_run(self, session_key: str) -> str | None:
        """The run this process is executing in a session, if any."""
        for run_id, task in self._active.items():
            if not task.done() and getattr(task, "session_key", None) == session_key:
                return run_id
        return None

    # -- queue ----------------------------------------------------------------------------------

    def start(self, request: RunRequest) -> str:
        """Queue a run; returns its id at once. Must be called inside the event loop.

        Never in a session that belongs to an OpenClaw (docs/decisions.md D17): that raises `OwnedByOpenClaw`.
        """
        return self.enqueue(self.record(request), request)

    def record(self, request: RunRequest) -> RunRecord:
        """A run's record written, queued: `start`'s store part, which any thread may do (the store's
        own, for a caller whose loop must not wait for SQLite); `enqueue` queues it then. Raises
        `OwnedByOpenClaw` for a session an OpenClaw owns."""
        owner = self.engine.owner_of(request.session_key)
        if owner is not None:
            raise OwnedByOpenClaw(request.session_key, owner)
        record = RunRecord(
            run_id=new_uuid(),
            session_key=request.session_key,
            lane=request.lane,
            pid=self.engine.store.processes.me,
            created_at=self.engine.now(),
        )
        self._insert(record, request)
        return record

    def enqueue(self, record: RunRecord, request: RunRequest) -> str:
        """Queue a run `record` wrote; returns its id. Must be called inside the event loop."""
        if self.on_start is not None:
            self.on_start()
        self._done[record.run_id] = asyncio.Event()
        queue = self._queues.setdefault(request.session_key, deque())
        queue.append((record, request))
        worker = self._workers.get(request.session_key)
        if worker is None or worker.done():
            self._workers[request.session_key] = asyncio.get_running_loop().create_task(
                self._work(request.session_key), name=f"runs:{request.session_key}"
            )
        return record.run_id

    async def _work(self, session_key: str) -> None:
        queue = self._queues[session_key]
        while queue:
            record, request = queue.popleft()
            task = asyncio.current_task()
            assert task is not None
            task.session_key = session_key  # type: ignore[attr-defined]
            self._active[record.run_id] = task
            try:
                await self._execute(record, request)
            finally:
                self._active.pop(record.run_id, None)
                self._done[record.run_id].set()

    def _try_start(self, record: RunRecord) -> bool:
        """Mark the run running unless a live process is running one in the same session.

        Check and claim are one write transaction, so of two processes (the dashboard and a
        `sessions-tui send`, say) only one runs a session's turn at a time.
        """
        processes = self.engine.store.processes
        started_at = self.engine.store.runs.claim_run(
            record.run_id, record.session_key, held_elsewhere=lambda pid: held_elsewhere(processes, pid)
        )
        if started_at is None:
            return False
        record.status, record.started_at = "running", started_at
        return True

    async def _execute(self, record: RunRecord, request: RunRequest) -> None:
        engine = self.engine
        try:
            turn = self._turns.setdefault(record.session_key, asyncio.Event())
            while not self._try_start(record):
                if record.run_id in self._killing:  # killed while another process ran its turn: it never starts
                    self._killing.discard(record.run_id)
                    self._turns.pop(record.session_key, None)
                    record.status, record.error = "killed", KILLED
                    self._finish(record)
                    return
                await self._turn_changed(turn)
                turn.clear()
            self._turns.pop(record.session_key, None)
        except StoreDamaged as exc:  # never started: it ends, saying why
            record.status, record.error = "error", str(exc)
            self._finish(record)
            return
        engine.events.publish(
            RunStarted(ts=record.started_at, run_id=record.run_id, session_key=record.session_key, lane=record.lane)
        )
        timeout = request.timeout_seconds
        if timeout is None:
            timeout = engine.config.agents.defaults.timeout_seconds or DEFAULT_RUN_TIMEOUT_SECONDS
        # The executor runs as its own task so that a kill stops this run and not the session's worker.
        inner = asyncio.ensure_future(self.executor(engine, record, request))
        self._inner[record.run_id] = inner
        try:
            if record.run_id in self._killing:
                inner.cancel()
            if timeout and timeout > 0:
                await asyncio.wait_for(inner, timeout)
            else:
                await inner
            record.status = "ok"
        except TimeoutError:
            record.status, record.error = "timeout", f"run timed out after {timeout}s"
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if record.run_id in self._killing and (current is None or not current.cancelling()):
                record.status, record.error = "killed", KILLED
            else:
                inner.cancel()
                record.status, record.error = "aborted", "run aborted"
                self._finish(record)
                raise
        except Exception as exc:  # noqa: BLE001 - a failed run is a result, not a crash
            # scrubbed: a model's error text may spell a lone surrogate, which SQLite cannot store
            record.status, record.error = "error", scrub_text(str(exc)) or type(exc).__name__
        finally:
            self._inner.pop(record.run_id, None)
            self._killing.discard(record.run_id)
        self._finish(record)

    async def _turn_changed(self, turn: asyncio.Event) -> None:
        """Wait until the session's turn may be free: on a store that tells of other processes' changes
        (PostgreSQL's), until a change of that session (a poll's time at most); else a poll's time."""
        if self._told is None:
            loop = asyncio.get_running_loop()

            def changed(sessions: frozenset[str]) -> None:
                loop.call_soon_threadsafe(self._wake_turns, sessions)

            store = self.engine.store  # the first watcher starts the change reader (a connection): off the loop
            self._told = await store.thread.run(store.watch_changes, changed)
        if not self._told:
            await asyncio.sleep(CROSS_PROCESS_POLL_SECONDS)
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(turn.wait(), TOLD_POLL_SECONDS)

    def _wake_turns(self, sessions: frozenset[str]) -> None:
        for key in sessions:
            turn = self._turns.get(key)
            if turn is not None:
                turn.set()

    def _finish(self, record: RunRecord) -> None:
        record.ended_at = self.engine.now()
        try:
            self._update(record)
        except StoreDamaged:  # the damaged database takes nothing more: the run ends here all the same
            pass
        self._ended(record)

    def _ended(self, record: RunRecord) -> None:
        self.engine.events.publish(
            RunEnded(
                ts=record.ended_at,
                run_id=record.run_id,
                session_key=record.session_key,
                status=record.status,
                error=record.error,
            )
        )

    # -- kill and steer -------------------------------------------------------------------------

    def queued(self, session_key: str) -> list[str]:
        """Ids of the runs this process has queued (not yet started) in a session."""
        return [record.run_id for record, _ in self._queues.get(session_key, ())]

    async def kill(self, run_id: str) -> bool:
        """End one run of this process as `killed`, queued or running; returns whether it was live."""
        for queue in self._queues.values():
            for item in list(queue):
                if item[0].run_id == run_id:
                    queue.remove(item)
                    record = item[0]
                    record.status, record.error = "killed", KILLED
                    self._finish(record)
                    self._done[run_id].set()
                    return True
        task = self._active.get(run_id)
        if task is None or task.done():
            return False
        self._killing.add(run_id)
        inner = self._inner.get(run_id)
        if inner is not None:
            inner.cancel()
        await asyncio.shield(self._done[run_id].wait())
        return True

    async def kill_session(self, session_key: str) -> list[str]:
        """Kill every run of a session this process has queued or running; returns their ids."""
        killed = []
        for run_id in self.queued(session_key):
            if await self.kill(run_id):
                killed.append(run_id)
        active = self.active_run(session_key)
        if active is not None and await self.kill(active):
            killed.append(active)
        return killed

    async def abort_session(
        self, session_key: str, run_id: str | None, *, clear_queued: bool
    ) -> tuple[bool, list[str]]:
        """The operator's stop, this process's part: with `clear_queued`, every run it holds waiting
        in the session (queued, or waiting for another process's turn to end) killed first; then
        `run_id` killed if this process is executing it. Returns (whether `run_id` was stopped, the
        waiting runs killed)."""
        cleared: list[str] = []
        if clear_queued:
            active = self.active_run(session_key)
            waiting = self.queued(session_key) + ([active] if active is not None and active not in self._inner else [])
            for waiting_id in waiting:
                if await self.kill(waiting_id):
                    cleared.append(waiting_id)
        stopped = run_id is not None and run_id in self._inner and await self.kill(run_id)
        return stopped, cleared

    async def wait(self, run_id: str, timeout_ms: int) -> WaitResult:
        """Wait up to `timeout_ms` for a run to end; a timeout never stops the run."""
        timeout = max(1, int(timeout_ms)) / 1000
        done = self._done.get(run_id)
        if done is not None:
            try:
                await asyncio.wait_for(asyncio.shield(done.wait()), timeout)
            except TimeoutError:
                pass
        else:
            await self._poll(run_id, timeout)
        record = self.get(run_id)
        if record is None:
            return WaitResult(run_id=run_id, status="error", error=f"Unknown run: {run_id}")
        if record.status not in TERMINAL:
            return WaitResult(run_id=run_id, status="timeout", started_at=record.started_at)
        return WaitResult(
            run_id=run_id,
            status=record.status,
            error=record.error,
            started_at=record.started_at,
            ended_at=record.ended_at,
        )

    async def _poll(self, run_id: str, timeout: float) -> None:
        """A run of another process: watch its record until it ends or time is up."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            record = self.get(run_id)
            if record is None or record.status in TERMINAL:
                return
            await asyncio.sleep(min(0.1, max(0.0, deadline - loop.time())))

    def pending(self) -> int:
        return sum(len(q) for q in self._queues.values()) + len(self._active)

    async def drain(self) -> None:
        """Wait until every queued and running run of this process has ended."""
        while True:
            workers = [w for w in self._workers.values() if not w.done()]
            if not workers:
                return
            await asyncio.gather(*workers, return_exceptions=True)

    async def cancel_all(self) -> None:
        for worker in list(self._workers.values()):
            worker.cancel()
        await asyncio.gather(*self._workers.values(), return_exceptions=True)
