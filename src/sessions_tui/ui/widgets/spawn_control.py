"""Kill and steer from the spawn panel's runs list (`x`, `e`), through the `subagents` tool; and
why a spawn was refused. What to steer with is the screen's to ask (`SteerAsked`): a widget opens
no screen.

A part of `SpawnPanel` (kept apart, as one concept): the tool runs as the panel's requester, in a
worker on the app's event loop, as a send or a spawn does: that is where the engine's runs live,
which a kill cancels and a steer queues into; what it answered is a toast, and the runs list is
read again. A refused spawn's deciding
rule (`explain`'s spawn verdict) is a "Why refused" toast, as a refused send's is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import on, work
from textual.message import Message
from textual.widget import Widget

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Requester
from sessions_tui.ui.refusals import refusing_verdict
from sessions_tui.ui.text import one_line
from sessions_tui.ui.widgets.spawn_runs import RunsTable


class SpawnControl(Widget):
    """The panel's kill and steer; the panel provides what is declared here."""

    backend: Backend
    call_as: Callable[[], Requester]
    _child_of_run: dict[str, str]

    class Controlled(Message):
        """What a kill or steer answered."""

        def __init__(self, action: str, status: str, said: str) -> None:
            super().__init__()
            self.action, self.status, self.said = action, status, said

    class SteerAsked(Message):
        """`e` on a run: the screen asks what to steer the sub-agent `key` with, then calls `steer`."""

        def __init__(self, key: str, shown: str) -> None:
            super().__init__()
            self.key, self.shown = key, shown

    def refresh_runs(self) -> None:
        raise NotImplementedError

    @on(RunsTable.Control)
    def _control(self, event: RunsTable.Control) -> None:
        """`x` kills the sub-agent and its subtree; `e` asks what to steer it with."""
        event.stop()
        key = self._child_of_run.get(event.run_id)
        if not key:
            return
        if event.action == "kill":
            self._subagents({"action": "kill", "target": key})
        else:
            self.post_message(self.SteerAsked(key, self.backend.display(key)))

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
