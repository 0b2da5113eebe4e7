"""The spawn panel: a form for `sessions_spawn`, the children with live status, their announcements.

The form's fields stand one per row in a side panel, two or three to a row when the panel spans
the screen (app.tcss). While shown, the panel marks its screen `-spawn-open`, and `-spawn-short`
on a terminal of fewer than `SHORT_ROWS` rows: the narrow layout, and any short one (no room for
the form beside the table), give it the whole body.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Hide, Resize, Show
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Capability, Requester
from sessions_tui.backend.toolkit.keys import agent_id_of
from sessions_tui.backend.values.views import AnnouncementView, ChildView
from sessions_tui.backend.values.vocabulary import Announced, StoreDamaged, ToolInputError
from sessions_tui.ui.errors import ReportsWorkerErrors
from sessions_tui.ui.messages import StoreDamageFound
from sessions_tui.ui.text import (
    clock_time,
    elapsed,
    literal,
    one_line,
    short_number,
    span,
)
from sessions_tui.ui.theme import themed
from sessions_tui.ui.widgets.field import Field
from sessions_tui.ui.widgets.spawn_control import ShownRun, SpawnControl
from sessions_tui.ui.widgets.spawn_runs import RunsTable, cost_text, status_cell, tree_label, waiting_on

FORM_TEXT_FIELDS = ("#spawn-task", "#spawn-label", "#spawn-model", "#spawn-timeout")
SHORT_ROWS = 30  # below this the form, runs and announcements do not fit a side panel's height


def form_field(label: str, widget: Widget, field_id: str) -> Horizontal:
    """A label and its input on one line (a row of the form holds one or more)."""
    return Horizontal(Label(label, classes="form-label"), widget, classes="form-field", id=field_id)


class SpawnPanel(SpawnControl, ReportsWorkerErrors, Vertical):
    class AgentsLoaded(Message):
        def __init__(self, result: dict[str, Any]) -> None:
            super().__init__()
            self.result = result

    class Spawned(Message):
        def __init__(self, result: dict[str, Any], requester: str, task: str, label: str) -> None:
            super().__init__()
            self.result = result
            self.requester = requester
            self.task = task
            self.label = label

    class ChildChosen(Message):
        """A child in the runs list was chosen (enter or click): the screen opens its transcript."""

        def __init__(self, session_key: str) -> None:
            super().__init__()
            self.session_key = session_key

    class RunsRead(Message):
        """The requester's children, read off the UI loop (in the backend)."""

        def __init__(self, requester: str, children: list[ChildView], asked: int) -> None:
            super().__init__()
            self.requester = requester
            self.children = children
            self.asked = asked  # which read it answers: an older one never overwrites a newer

    class AnnouncementsRead(Message):
        def __init__(self, requester: str, items: list[AnnouncementView]) -> None:
            super().__init__()
            self.requester = requester
            self.items = items

    class AnnouncementLabelled(Message):
        """An announce that just arrived, with its run's label read off the UI loop (in the backend)."""

        def __init__(self, requester: str, event: Announced, label: str | None) -> None:
            super().__init__()
            self.requester = requester
            self.event = event
            self.label = label

    def __init__(self, backend: Backend, requester: Callable[[], Requester], **kwargs: Any) -> None:
        """`requester` says who spawns, at the moment of spawning."""
        super().__init__(**kwargs)
        self.backend = backend
        self.call_as = requester
        self.requester: str = ""
        self._announced: set[str] = set()
        self._runs: dict[str, ShownRun] = {}
        self._runs_asked = 0
        self._runs_shown = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="spawn-form"):
            yield Static(span("Spawn a sub-agent", style="bold"), classes="panel-title")
            with Horizontal(classes="form-row"):
                yield form_field(
                    "Task", Field(placeholder="what the sub-agent should do", id="spawn-task"), "spawn-task-field"
                )
            with Horizontal(classes="form-row"):
                yield form_field("Label", Field(placeholder="optional", id="spawn-label"), "spawn-label-field")
                yield form_field(
                    "Agent",
                    Select([("main", "main")], value="main", allow_blank=False, id="spawn-agent", compact=True),
                    "spawn-agent-field",
                )
            with Horizontal(classes="form-row"):
                yield form_field("Model", Field(placeholder="default", id="spawn-model"), "spawn-model-field")
                yield form_field(
                    "Timeout", Field("0", id="spawn-timeout", type="integer", max_length=5), "spawn-timeout-field"
                )
                yield form_field(
                    "Cleanup",
                    Select(
                        [("keep", "keep"), ("delete", "delete")],
                        value="keep",
                        allow_blank=False,
                        id="spawn-cleanup",
                        compact=True,
                    ),
                    "spawn-cleanup-field",
                )
            with Horizontal(classes="form-actions"):
                yield Button("Spawn", id="spawn-button", variant="primary", compact=True)
                yield Static("", id="spawn-outcome")
        yield Static(span("Runs", style="bold") + span("  enter: transcript", style="dim"), classes="panel-title")
        yield RunsTable(id="spawn-runs")
        yield Static(span("Announcements", style="bold"), classes="panel-title")
        yield VerticalScroll(id="announcements")

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh_runs)

    def on_show(self, _: Show) -> None:
        self.screen.add_class("-spawn-open")
        self._fit_height()

    def on_resize(self, _: Resize) -> None:
        self._fit_height()

    def _fit_height(self) -> None:
        """The terminal's height decides (a vertical breakpoint, kept by the panel while it shows)."""
        if self.display:
            self.screen.set_class(self.app.size.height < SHORT_ROWS, "-spawn-short")

    def on_hide(self, _: Hide) -> None:
        self.screen.remove_class("-spawn-open", "-spawn-short")

    def configure(self, requester: str) -> None:
        """A new requester (acting as someone else): their agents, children and announcements, and
        nothing left of the last requester's spawn."""
        self.requester = requester
        self.query_one("#spawn-outcome", Static).update("")
        self.query_one("#spawn-runs", RunsTable).show({})
        self._runs = {}
        self._load_agents()
        self.refresh_runs()
        self._load_announcements()

    @work(exclusive=True, group="spawn-agents", exit_on_error=False)
    async def _load_agents(self) -> None:
        self.post_message(self.AgentsLoaded(await self.backend.call_tool("agents_list", {}, self.call_as())))

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
        if self.requester and Capability.ANNOUNCES in self.backend.capabilities:
            self._read_announcements(self.requester)

    @work(exclusive=True, group="spawn-announcements", exit_on_error=False)
    async def _read_announcements(self, requester: str) -> None:
        """Read off the UI loop (in the backend: the local store is SQLite); shown by the message handler."""
        self.post_message(self.AnnouncementsRead(requester, await self.backend.announcements(requester)))

    def on_spawn_panel_announcements_read(self, event: AnnouncementsRead) -> None:
        event.stop()
        if event.requester != self.requester:
            return
        box = self.query_one("#announcements", VerticalScroll)
        items = [
            self._announcement(item.text, item.child_key, item.ts, item.run_id, label=item.label)
            for item in event.items
        ]
        box.mount_all([item for item in reversed(items) if item is not None])
        box.scroll_home(animate=False)

    def announced(self, event: Announced) -> None:
        """A sub-agent's announce reached the requester: shown once its run's label is read."""
        self._label_announcement(self.requester, event)

    @work(group="spawn-announced", exit_on_error=False)
    async def _label_announcement(self, requester: str, event: Announced) -> None:
        label = await self.backend.run_label(event.run_id) if event.run_id else None
        self.post_message(self.AnnouncementLabelled(requester, event, label))

    def on_spawn_panel_announcement_labelled(self, message: AnnouncementLabelled) -> None:
        message.stop()
        if message.requester != self.requester:
            return  # another requester's: the new requester's announcements are being read
        event = message.event
        self.add_announcement(
            self.backend.redact(event.text),  # an engine event's text is as the agent wrote it
            event.child_session_key or "",
            event.ts,
            event.run_id or "",
            delivery=event.delivery,
            label=message.label,
        )

    def add_announcement(
        self,
        text: str,
        child_key: str,
        ts: Any,
        run_id: str = "",
        delivery: str | None = None,
        label: str | None = None,
    ) -> None:
        item = self._announcement(text, child_key, ts, run_id, delivery, label)
        if item is None:
            return
        box = self.query_one("#announcements", VerticalScroll)
        # Newest first, so the newest shows from its head (who, status, result) at the top of the
        # list however tall it is; scrolling to a widget after a refresh raced the layout.
        box.mount(item, before=0 if box.children else None)
        box.scroll_home(animate=False)

    def _announcement(
        self,
        text: str,
        child_key: str,
        ts: Any,
        run_id: str = "",
        delivery: str | None = None,
        label: str | None = None,
    ) -> Static | None:
        """The announcement's widget, or None when this run's was shown already."""
        if run_id and run_id in self._announced:
            return None
        self._announced.add(run_id)
        name = label or one_line(child_key, 40)
        head = span(f"{clock_time(ts)} ", style="dim") + literal(one_line(name, 32), style="bold")
        if delivery == "forbidden":
            head.append("  refused by the send policy", style=themed("$error"))
        return Static(head + Text("\n") + literal(text), classes="announcement")

    def refresh_runs(self) -> None:
        """Children of the requester with live status and elapsed time (row diffs), read off the
        loop (in the backend) and shown by `on_spawn_panel_runs_read`.

        Nothing is read while the panel is hidden; showing it refreshes it.
        """
        if not self.requester or not self.display:
            return
        self._runs_asked += 1
        self._read_runs(self.requester, self._runs_asked)

    @work(group="spawn-runs", exit_on_error=False)
    async def _read_runs(self, requester: str, asked: int) -> None:
        children = await self.backend.children(requester)
        self.post_message(self.RunsRead(requester, children, asked))

    def on_spawn_panel_runs_read(self, event: RunsRead) -> None:
        """Show the children read, unless a later read was shown already or the requester changed."""
        event.stop()
        if event.requester != self.requester or event.asked < self._runs_shown:
            return
        self._runs_shown = event.asked
        now = self.backend.now()
        wanted: dict[str, dict[str, Text]] = {}
        self._runs = {}
        waiting = waiting_on(event.children)
        for child in event.children:
            end = child.ended_at or now
            below = waiting.get(child.child_key, 0)
            name = one_line(child.label or child.task, 40)
            self._runs[child.run_id] = ShownRun(child.child_key, name, child.status == "running", below)
            tokens = child.tree_tokens if child.tree_tokens is not None else child.total_tokens
            wanted[child.run_id] = {
                "label": literal(tree_label(one_line(child.label or child.task, 60), child.depth)),
                "agent": Text(agent_id_of(child.child_key)),
                "status": status_cell(child.status, below),
                "elapsed": Text(elapsed(max(0, end - child.started_at))),
                "tokens": Text(short_number(tokens)),
                "cost": Text(cost_text(child.tree_cost_usd)),
            }
        self.query_one("#spawn-runs", RunsTable).show(wanted)

    @on(RunsTable.Chosen)
    def _chosen(self, event: RunsTable.Chosen) -> None:
        event.stop()
        run = self._runs.get(event.run_id)
        if run is not None:
            self.post_message(self.ChildChosen(run.child_key))

    @on(Input.Submitted, ", ".join(FORM_TEXT_FIELDS))
    @on(Button.Pressed, "#spawn-button")
    def _submit(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
        self.submit()

    @property
    def form_has_focus(self) -> bool:
        """Whether a field of the form (or its button) has the focus: ctrl+s then spawns (`submit`)."""
        return self.query_one("#spawn-form").has_focus_within

    def submit(self) -> None:
        """Spawn with what the form says (the Spawn button, enter in a field, ctrl+s in the form)."""
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
        self.query_one("#spawn-outcome", Static).update(span("spawning…", style="dim"))
        self._spawn(params, self.requester)

    @work(exclusive=False, group="spawn", exit_on_error=False)
    async def _spawn(self, params: dict[str, Any], requester: str) -> None:
        try:
            result = await self.backend.call_tool("sessions_spawn", params, self.call_as())
        except ToolInputError as exc:
            result = {"status": "error", "error": str(exc)}
        except StoreDamaged as exc:  # nothing was written: the outcome says so, and the app why
            result = {"status": "error", "error": "not written: the state database is damaged"}
            self.app.post_message(StoreDamageFound(str(exc), refused=True))
        self.post_message(self.Spawned(result, requester, params["task"], params.get("label", "")))
        if result.get("status") == "forbidden":
            self.why_refused(requester, params.get("agentId"))

    def on_spawn_panel_spawned(self, event: Spawned) -> None:
        """The outcome; an accepted spawn empties the task and label (unless already edited again),
        a refused one keeps them to be corrected. A result for an earlier requester is dropped."""
        event.stop()
        if event.requester != self.requester:
            return
        result = event.result
        outcome = self.query_one("#spawn-outcome", Static)
        if result.get("status") == "accepted":
            outcome.update(span("accepted · ", style="bold $success") + literal(result["childSessionKey"]))
            for field_id, sent in (("#spawn-task", event.task), ("#spawn-label", event.label)):
                box = self.query_one(field_id, Input)
                if box.value.strip() == sent:
                    box.value = ""
        else:
            outcome.update(span(f"{result.get('status')} · ", style="bold $error") + literal(result.get("error", "")))
        self.refresh_runs()
