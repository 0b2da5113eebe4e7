"""What a dead host left under way on a store several hosts share, taken over while this host runs.

On one machine a process that died is found by the next one to start (backend/local/opening.py's
`start`). On a PostgreSQL store shared by several hosts, the others are running: each long-running
host looks every renewal period (a third of `store.leaseSeconds`) for hosts whose lease has lapsed
(store/processes.py), and when it finds one does what start-up does for a dead process: its runs end
as interrupted (the sends waiting on them get that end), the run controls asked of it are closed, its
pending deliveries are resumed here and its sub-agents announced. Every step is a write transaction
that re-reads what it ends, so of two hosts finding the same dead one, one ends each thing, once.
The lapsed hosts are then forgotten, and the change log trimmed to `CHANGES_KEPT_MS`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Protocol

from sessions_tui.engine.runs.recovery import RecoveryHost, recover_interrupted
from sessions_tui.engine.stopping import cancel_and_wait

log = logging.getLogger(__name__)

CHANGES_KEPT_MS = 10 * 60_000
"""How long the change log keeps an event (a reader further behind reads the store afresh)."""


class Resumes(Protocol):
    """A part that takes up what dead processes left (run controls, outbox, sub-agents)."""

    def recover(self) -> object: ...


class Deliveries(Protocol):
    def resume(self) -> object: ...


class TakeoverHost(RecoveryHost, Protocol):
    """What the takeover needs of the engine: the recovery's parts, and the run controls, outbox and
    sub-agents that take up what a dead process left."""

    @property
    def run_controls(self) -> Resumes: ...

    @property
    def outbox(self) -> Deliveries: ...

    @property
    def subagents(self) -> Resumes: ...


class Takeover:
    """The takeover of lapsed hosts' work, every `period_s`, in the background of the running loop."""

    def __init__(self, engine: TakeoverHost, period_s: float) -> None:
        self.engine = engine
        self.period_s = period_s
        self.taken_over: list[int] = []
        """The hosts this host has taken over (their ids), in order."""
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._serve(), name="takeover")

    async def aclose(self) -> None:
        task, self._task = self._task, None
        await cancel_and_wait(task)

    async def _serve(self) -> None:
        store = self.engine.store
        while True:
            await asyncio.sleep(self.period_s)
            try:
                lapsed = await store.thread.run(store.processes.lapsed)
                if lapsed:
                    self.take_over(lapsed)
                await store.thread.run(store.prune_changes, int(time.time() * 1000) - CHANGES_KEPT_MS)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the database away a moment: the next period tries again
                log.warning("looking for lapsed hosts failed: %s", exc)

    def take_over(self, lapsed: list[int]) -> None:
        """Do for the lapsed hosts what start-up does for dead processes, then forget them. On the loop:
        deliveries and announces resumed here are tasks of it."""
        engine = self.engine
        recover_interrupted(engine)
        engine.run_controls.recover()
        engine.outbox.resume()
        engine.subagents.recover()
        engine.store.processes.forget(lapsed)
        self.taken_over += lapsed
        log.info("took over what %d lapsed host(s) left: %s", len(lapsed), lapsed)
