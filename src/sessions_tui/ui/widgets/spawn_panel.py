"""The spawn panel: a form for `sessions_spawn`, the children with live status, their announcements."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, DataTable, Input, Label, Select, Static

from sessions_tui.engine.keys import agent_id_of
from sessions_tui.tools.base import ToolInputError
from sessions_tui.tools.registry import invoke
from sessions_tui.ui.errors import ReportsWorkerErrors
from sessions_tui.ui.text import (
    STATUS_ICONS,
    clock_time,
    elapsed,
    literal,
    one_line,
    short_number,
    span,
)
from sessions_tui.ui.widgets.field import Field

RUN_COLUMNS = [("label", "LABEL", 12), ("agent", "AGENT", 7), ("status", "STATUS", 10), ("elapsed", "ELAPSED", 7),
               ("tokens", "TOKENS", 6)]
STATUS_WORDS = {"running": "running", "done": "done", "failed": "failed", "timeout": "timed out"}


class SpawnPanel(ReportsWorkerErrors, Vertical):
    class AgentsLoaded(Message):
        def __init__(self, result: dict[str, Any]) -> None:
            super().__init__()
            self.result = result

    class Spawned(Message):
        def __init__(self, result: dict[str, Any]) -> None:
            super().__init__()
            self.result = result

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.engine: Any = None
        self.call_factory: Any = None
        self.requester: str = ""
        self._announced: set[str] = set()

    def compose(self) -> ComposeResult:
        with Vertical(id="spawn-form"):
            yield Static(span("Spawn a sub-agent", style="bold"), classes="panel-title")
            with Horizontal(classes="form-row"):
                yield Label("Task", classes="form-label")
                yield Field(placeholder="what the sub-agent should do", id="spawn-task")
            with Horizontal(classes="form-row"):
                yield Label("Label", classes="form-label")
                yield Field(placeholder="optional", id="spawn-label")
                yield Label("Agent", classes="form-label")
                yield Select([("main", "main")], value="main", allow_blank=False, id="spawn-agent", compact=True)
            with Horizontal(classes="form-row"):
                yield Label("Model", classes="form-label")
                yield Field(placeholder="default", id="spawn-model")
                yield Label("Timeout", classes="form-label")
                yield Field("0", id="spawn-timeout", type="integer", max_length=5)
                yield Label("Cleanup", classes="form-label")
                yield Select([("keep", "keep"), ("delete", "delete")], value="keep", allow_blank=False,
                             id="spawn-cleanup", compact=True)
            with Horizontal(classes="form-row form-actions"):
                yield Static("", id="spawn-outcome")
                yield Button("Spawn", id="spawn-button", variant="primary", compact=True)
        yield Static(span("Runs", style="bold"), classes="panel-title")
        yield DataTable(id="spawn-runs", cursor_type="row", zebra_stripes=True)
        yield Static(span("Announcements", style="bold"), classes="panel-title")
        yield VerticalScroll(id="announcements")

    def on_mount(self) -> None:
        table = self.query_one("#spawn-runs", DataTable)
        for key, title, width in RUN_COLUMNS:
            table.add_column(title, key=key, width=width)
        self.set_interval(1.0, self.refresh_runs)

    def configure(self, engine: Any, call_factory: Any, requester: str) -> None:
        self.engine, self.call_factory, self.requester = engine, call_factory, requester
        self._load_agents()
        self.refresh_runs()
        self._load_announcements()

    @work(exclusive=True, group="spawn-agents", exit_on_error=False)
    async def _load_agents(self) -> None:
        self.post_message(self.AgentsLoaded(await invoke(self.call_factory(), "agents_list", {})))

    def on_spawn_panel_agents_loaded(self, event: AgentsLoaded) -> None:
        event.stop()
        agents = event.result["agents"]
        select = self.query_one("#spawn-agent", Select)
        select.set_options([(a["id"] + (f" ({a['name']})" if a.get("name") else ""), a["id"]) for a in agents])
        select.value = event.result["requester"]

    def _load_announcements(self) -> None:
        box = self.query_one("#announcements", VerticalScroll)
        box.remove_children()
        self._announced.clear()
        if self.requester:
            for item in self.engine.subagents.announcements(self.requester):
                self.add_announcement(item.text, item.child_key, item.ts, item.run_id, label=item.label)

    def add_announcement(self, text: str, child_key: str, ts: Any, run_id: str = "", delivery: str | None = None,
                         label: str | None = None) -> None:
        if run_id and run_id in self._announced:
            return
        self._announced.add(run_id)
        name = label or one_line(child_key, 40)
        head = span(f"{clock_time(ts)} ", style="dim") + literal(one_line(name, 32), style="bold")
        if delivery == "forbidden":
            head.append("  refused by the send policy", style="#e06c75")
        box = self.query_one("#announcements", VerticalScroll)
        box.mount(Static(head + Text("\n") + literal(text), classes="announcement"))
        box.scroll_end(animate=False, immediate=False)

    def refresh_runs(self) -> None:
        """Children of the requester with live status and elapsed time (row diffs).

        Nothing is read while the panel is hidden; showing it refreshes it.
        """
        if self.engine is None or not self.requester or not self.display:
            return
        table = self.query_one("#spawn-runs", DataTable)
        now = self.engine.now()
        wanted: dict[str, dict[str, Any]] = {}
        for child in self.engine.subagents.children(self.requester):
            end = child.ended_at or now
            wanted[child.run_id] = {
                "label": literal(child.label or one_line(child.task, 12)),
                "agent": agent_id_of(child.child_key),
                "status": span(f"{STATUS_ICONS.get(child.status, '·')} {STATUS_WORDS.get(child.status, child.status)}",
                               style="bold" if child.status == "running" else ""),
                "elapsed": elapsed(max(0, end - child.started_at)),
                "tokens": short_number(child.total_tokens),
            }
        present = {row_key.value for row_key in table.rows}
        for run_id in present - set(wanted):
            table.remove_row(run_id)
        for run_id, values in wanted.items():
            if run_id not in present:
                table.add_row(*(values[c[0]] for c in RUN_COLUMNS), key=run_id)
                continue
            for column, value in values.items():
                if str(table.get_cell(run_id, column)) != str(value):
                    table.update_cell(run_id, column, value)

    @on(Input.Submitted, "#spawn-task")
    @on(Button.Pressed, "#spawn-button")
    def _submit(self, event: Any) -> None:
        event.stop()
        self.spawn()

    def spawn(self) -> None:
        task = self.query_one("#spawn-task", Input).value.strip()
        if not task:
            self.app.notify("A sub-agent needs a task.", severity="warning")
            return
        params: dict[str, Any] = {"task": task}
        label = self.query_one("#spawn-label", Input).value.strip()
        if label:
            params["label"] = label
        agent = self.query_one("#spawn-agent", Select).value
        if isinstance(agent, str) and agent != agent_id_of(self.requester):
            params["agentId"] = agent
        model = self.query_one("#spawn-model", Input).value.strip()
        if model:
            params["model"] = model
        timeout = self.query_one("#spawn-timeout", Input).value.strip()
        if timeout.isdigit() and int(timeout) > 0:
            params["runTimeoutSeconds"] = int(timeout)
        params["cleanup"] = self.query_one("#spawn-cleanup", Select).value
        self.query_one("#spawn-task", Input).value = ""
        self.query_one("#spawn-label", Input).value = ""
        self._spawn(params)

    @work(exclusive=False, group="spawn", exit_on_error=False)
    async def _spawn(self, params: dict[str, Any]) -> None:
        try:
            result = await invoke(self.call_factory(), "sessions_spawn", params)
        except ToolInputError as exc:
            result = {"status": "error", "error": str(exc)}
        self.post_message(self.Spawned(result))

    def on_spawn_panel_spawned(self, event: Spawned) -> None:
        event.stop()
        result = event.result
        outcome = self.query_one("#spawn-outcome", Static)
        if result.get("status") == "accepted":
            outcome.update(span("accepted · ", style="bold #9ee493") + literal(result["childSessionKey"]))
        else:
            outcome.update(span(f"{result.get('status')} · ", style="bold #e06c75") + literal(result.get("error", "")))
        self.refresh_runs()
