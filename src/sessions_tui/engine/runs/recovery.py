"""What a process that stopped left under way, ended by the next one as interrupted.

Its runs end as errors (`Runs.recover_interrupted`: the sends waiting on them get that end in the
send ledger), then the sends whose agent-to-agent flow it was running and had not finished (in a
ping-pong turn's or the announce step's run, or between two steps with no run at all) end in the
ledger the same way (`SendLedger.end_flows_left`), all in one transaction: `sessions-tui sends`
never shows a dead process's send as still under way, and shows its end once. Start-up, the
ledger's reads and the sub-agent tools' reap call it.
"""

from __future__ import annotations

from typing import Any, Protocol

from sessions_tui.engine.runs.runs import Runs
from sessions_tui.engine.store.processes import stopped
from sessions_tui.engine.store.store import Store
from sessions_tui.engine.store.tables.runs import RunRecord


class FlowsLeft(Protocol):
    """What the recovery needs of the send ledger: the agent-to-agent flows stopped processes left
    under way, and ending them."""

    def flows_left(self) -> list[tuple[str, int]]: ...

    def end_flows_left(self, flows: list[tuple[str, int]]) -> list[str]: ...


class RecoveryHost(Protocol):
    """What the recovery needs of the engine: the store, the runs and the send ledger."""

    @property
    def store(self) -> Store: ...

    @property
    def runs(self) -> Runs[Any]: ...

    @property
    def ledger(self) -> FlowsLeft: ...


def recover_interrupted(
    engine: RecoveryHost, unfinished: list[tuple[str, int | None]] | None = None
) -> list[RunRecord]:
    """End what stopped processes left under way; returns the runs ended. `unfinished`: the
    store's (run id, pid) of unfinished runs, when the caller has read them already. Nothing is
    written (no transaction is begun) when no stopped process left anything."""
    unfinished = list(engine.store.runs.unfinished_runs()) if unfinished is None else unfinished
    runs = [(run_id, pid) for run_id, pid in unfinished if stopped(engine.store.processes, pid)]
    flows = engine.ledger.flows_left()
    if not runs and not flows:
        return []
    with engine.store.write():
        recovered = engine.runs.recover_interrupted(runs)
        engine.ledger.end_flows_left(flows)  # a flow waiting on a run ended above is over already
    return recovered
