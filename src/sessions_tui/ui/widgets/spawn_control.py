"""Kill and steer from the spawn panel's runs list (`x`, `e`), through the `subagents` tool; and
why a spawn was refused. Whether to kill (`KillAsked`, naming what dies) and what to steer with
(`SteerAsked`) are the screen's to ask: a widget opens no screen. A run with nothing running in its
subtree is said at once to be finished (`x`), one that is not running to be past steering (`e`),
before any box opens.

A part of `SpawnPanel` (kept apart, as one concept): the tool runs as the panel's requester, in a
worker on the app's event loop, as a send or a spawn does: that is where the engine's runs live,
which a kill cancels and a steer queues into; what it answered is a toast, and the runs list is
read again. A refused spawn's deciding
rule (`explain`'s spawn verdict) is a "Why refused" toast, as a refused send's is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual import on, work
from textual.message import Message
from textual.widget import Widget

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Requester
from sessions_tui.ui.refusals import refusing_verdict
from sessions_tui.ui.text import one_line
from sessions_tui.ui.widgets.spawn_runs import RunsTable


@dataclass(frozen=True)
class ShownRun:
    """A run as the runs list shows it: what `x` and `e` say before they act."""

    child_key: str
    name: str  # its label, or its task, on one line
    running: bool
    running_below: int  # its descendants still running


def _descendants(count: int) -> str:
    return f"{count} descendant{'' if count == 1 else 's'}"


def kill_question(run: ShownRun) -> str:
    """What `x` kills, asked: `kill research-1 and its 2 descendants?`; a finished run's running
    descendants alone when it has ended itself."""
    if not run.running:
        return f"kill the running {_descendants(run.running_below)} of {run.name}? (it has finished itself)"
    below = f" and its {_descendants(run.running_below)}" if run.running_below else ""
    return f"kill {run.name}{below}?"


class SpawnControl(Widget):
    """The panel's kill and steer; the panel provides what is declared here."""

    backend: Backend
    call_as: Callable[[], Requester]
    _runs: dict[str, ShownRun]

    class Controlled(Message):
        """What a kill or steer answered."""

        def __init__(self, action: str, status: str, said: str) -> None:
            super().__init__()
            self.action, self.status, self.said = action, status, said

    class KillAsked(Message):
        """`x` on a run with something running below or in it: the screen asks `question` (what dies),
        then calls `kill`."""

        def __init__(self, key: str, question: str) -> None:
            super().__init__()
            self.key, self.question = key, question

    class SteerAsked(Message):
        """`e` on a run: the screen asks what to steer the sub-agent `key` with, then calls `steer`."""

        def __init__(self, key: str, shown: str) -> None:
            super().__init__()
            self.key, self.shown = key, shown

    def refresh_runs(self) -> None:
        raise NotImplementedError

    @on(RunsTable.Control)
    def _control(self, event: RunsTable.Control) -> None:
        """`x` asks whether to kill the sub-agent and its subtree; `e` what to steer it with. A run
        past either says so at once (the `subagents` tool stays the judge of a run ended since)."""
        event.stop()
        run = self._runs.get(event.run_id)
        if run is None:
            return
        if event.action == "kill":
            if run.running or run.running_below:
                self.post_message(self.KillAsked(run.child_key, kill_question(run)))
            else:
                self.app.notify(f"{run.name} is already finished: nothing to kill.", title="Kill", markup=False)
        elif run.running:
            self.post_message(self.SteerAsked(run.child_key, self.backend.display(run.child_key)))
        else:
            said = f"{run.name} has finished: it cannot be steered (only a running sub-agent takes a steer)."
            self.app.notify(said, title="Steer", severity="warning", markup=False)

    def kill(self, key: str) -> None:
        """Kill the sub-agent `key` and its subtree (what the screen was told yes to, on `KillAsked`)."""
        self._subagents({"action": "kill", "target": key})

    def steer(self, key: str, text: str) -> None:
        """Queue `text` into the running sub-agent `key` (what the screen asked for, on `SteerAsked`)."""
        if text:
            self._subagents({"action": "steer", "target": key, "message": text})

    @work(group="spawn-control", exit_on_error=False)
    async def _subagents(self, args: dict[str, Any]) -> None:
        result = await self.backend.call_tool("subagents", args, self.call_as())
        said = result.get("text") or result.get("error") or result.get("status")
        self.post_message(self.Controlled(str(args["action"]), str(result.get("status")), str(said)))

    @work(group="spawn-why", exit_on_error=False)
    async def why_refused(self, requester: str, agent: str | None) -> None:
        """After a refused spawn: the rule that decides a spawn by the acting-as requester under
        `agent` (None: its own), from the same verdict `explain` gives."""
        verdict = await refusing_verdict(self.backend, self.call_as(), requester, agent, "spawn")
        if verdict is not None:
            shown = one_line(f"{verdict.rule}: {verdict.why}", 200)
            self.app.notify(shown, title="Why refused", severity="warning", markup=False)

    def on_spawn_control_controlled(self, event: Controlled) -> None:
        event.stop()
        title = f"subagents {event.action}"
        if event.status in ("ok", "accepted"):
            self.app.notify(one_line(event.said, 200), title=title, markup=False)
        else:
            self.app.notify(one_line(event.said, 200), title=title, severity="warning", markup=False)
        self.refresh_runs()
