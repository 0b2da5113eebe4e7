"""The Sends view (`l`): every `sessions_send` and what became of it, newest first.

k9s-style: a full screen over the dashboard, `escape` back. Filter by session (the requester or
the target) and by state (`f` cycles); a late reply or a failed delivery stands out in the table.
The highlighted send's life is shown under the table, state by state with its time; `enter` opens
the thread between its two sessions. The view follows the ledger live.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.coordinate import Coordinate
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Input, Label, Static

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable
from sessions_tui.backend.values.vocabulary import EngineEvent
from sessions_tui.ui.text import clock_time, literal, one_line, span, visible
from sessions_tui.ui.widgets.field import Field

if TYPE_CHECKING:
    from sessions_tui.backend.values.vocabulary import LedgerEntry

STATES = ("", "replied", "timeout", "late_reply", "error", "forbidden", "delivered", "delivery_failed")
"""The state filter's cycle (`f`); "" is every send."""

OUTCOMES = {"replied", "timeout", "error", "forbidden"}
WARN = {"late_reply", "timeout"}
BAD = {"error", "forbidden", "delivery_failed"}
LIMIT = 500
HINT = "esc back   f state filter   enter thread   r refresh   session: type a key, enter"


def outcome(entry: LedgerEntry) -> str:
    """The send's outcome so far and what stands out after it (a late reply, a failed delivery)."""
    states = [s.state for s in entry.states]
    first = next((s for s in states if s in OUTCOMES), states[-1] if states else "")
    extra = [s for s in ("late_reply", "delivered", "delivery_failed") if s in states]
    return " · ".join([first, *extra])


def style_of(entry: LedgerEntry) -> str:
    states = {s.state for s in entry.states}
    if states & BAD:
        return "$error"
    if states & WARN:
        return "$warning"
    return ""


def detail_text(detail: dict[str, Any] | None) -> str:
    if not detail:
        return ""
    if "turn" in detail:
        who = detail.get("speaker") or ""
        return f"turn {detail['turn']} {who}: {detail.get('text', '')}"
    for name in ("text", "error", "reason"):
        if isinstance(detail.get(name), str):
            return str(detail[name])
    if "outboxId" in detail:
        return f"outbox #{detail['outboxId']}"
    return ", ".join(f"{k}={v}" for k, v in detail.items())


class SendsScreen(Screen[None]):
    """Sends, filtered by `session` (a key in any spelling) when given. The session is shown as
    every key is (`display`: redacted, its invisible characters as code points), in the title and
    in the field; the field's text left as shown still names it, and a key typed there is passed
    on as typed (a redacted one names its session: `Engine.canonical`)."""

    BINDINGS = [
        Binding("escape", "close", "back", id="sends_back", tooltip="back to the sessions"),
        Binding("f", "cycle_state", "state", id="sends_state", tooltip="filter by state (cycles)"),
        Binding("enter", "thread", "thread", id="sends_thread", tooltip="the thread between the send's two sessions"),
        Binding("r", "reload", "refresh", id="sends_refresh", tooltip="read the ledger again"),
    ]

    class Loaded(Message):
        def __init__(self, entries: list[LedgerEntry], generation: int, problem: str | None = None) -> None:
            super().__init__()
            self.entries = entries
            self.generation = generation
            self.problem = problem  # why there is no ledger to show (an OpenClaw gateway keeps none)

    class Changed(Message):
        """The ledger moved (an engine event, from any thread)."""

    def __init__(
        self, backend: Backend, display: Callable[[str], str], session: str | None = None, run_id: str | None = None
    ) -> None:
        super().__init__()
        self.backend = backend
        self.display_key = display
        self.session = session
        self.shown_session = self._shown_field(session)  # what the field holds for `session`
        self.focus_run = run_id
        self.state = ""
        self.entries: dict[str, LedgerEntry] = {}
        self.problem: str | None = None
        self.generation = 0
        self._unsubscribe: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="sends-view"):
            yield Static(id="sends-title")
            with Horizontal(id="sends-filters"):
                yield Label("Session ", id="sends-session-label")
                yield Field(self.shown_session, placeholder="any session (enter to apply)", id="sends-session")
            yield DataTable(id="sends-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="sends-detail-box"):
                yield Static(id="sends-detail")
            yield Static(HINT, id="sends-hint")

    def on_mount(self) -> None:
        table = self.query_one("#sends-table", DataTable)
        # Fixed widths: the view reloads as the ledger moves, and widths fitted to each load would jump.
        for title, width in (("when", 8), ("from → to", 48), ("message", 40), ("state", 28)):
            table.add_column(title, width=width)
        self._unsubscribe = self.backend.subscribe(self._on_event)
        self._title()
        table.focus()
        self.reload()

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()

    def _on_event(self, event: EngineEvent) -> None:
        if event.type == "send_ledger_changed":
            self.post_message(self.Changed())

    def on_sends_screen_changed(self, _: Changed) -> None:
        self.reload()

    def _title(self) -> None:
        parts = ["Sends"]
        if self.session:
            parts.append(f"of {self.shown_session}")
        if self.state:
            parts.append(f"· state {self.state}")
        self.query_one("#sends-title", Static).update(literal(" ".join(parts), "bold"))

    # -- reading --------------------------------------------------------------------------------

    def reload(self) -> None:
        self.generation += 1
        self._load(self.generation, self.session or None, self.state or None)

    @work(exclusive=True, group="sends", exit_on_error=False)
    async def _load(self, generation: int, session: str | None, state: str | None) -> None:
        key = await self.backend.owner_key(session) if session else None
        if session and key is None:
            self.post_message(self.Loaded([], generation))
            return
        try:
            entries = await self.backend.sends(key, state, LIMIT)
        except BackendUnavailable as exc:
            self.post_message(self.Loaded([], generation, str(exc)))
            return
        self.post_message(self.Loaded(entries, generation))

    def on_sends_screen_loaded(self, event: Loaded) -> None:
        if event.generation != self.generation:
            return
        table = self.query_one("#sends-table", DataTable)
        shown = table.cursor_row
        current = self.focus_run or (self._row_key(shown) if table.row_count else None)
        table.clear()
        self.entries = {e.run_id: e for e in event.entries}
        for entry in event.entries:
            who = f"{self._shown(entry.requester)} → {self._shown(entry.target)}"
            table.add_row(
                span(clock_time(entry.created_at, seconds=True)),
                literal(one_line(who, 48)),
                literal(one_line(entry.message, 40)),
                span(outcome(entry), style_of(entry)),
                key=entry.run_id,
            )
        if current in self.entries:
            table.move_cursor(row=table.get_row_index(current))
            self.focus_run = None
        self.problem = event.problem
        self._show_detail()

    def _row_key(self, row: int) -> str | None:
        table = self.query_one("#sends-table", DataTable)
        try:
            return str(table.coordinate_to_cell_key(Coordinate(row, 0)).row_key.value)
        except Exception:  # noqa: BLE001 - no such row (an empty table)
            return None

    def _shown(self, key: str | None) -> str:
        return "owner" if key is None else str(self.display_key(key))

    # -- the highlighted send -------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#sends-table")
    def _highlighted(self, _: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def highlighted(self) -> LedgerEntry | None:
        table = self.query_one("#sends-table", DataTable)
        key = self._row_key(table.cursor_row) if table.row_count else None
        return self.entries.get(key) if key else None

    def _show_detail(self) -> None:
        entry = self.highlighted()
        box = self.query_one("#sends-detail", Static)
        if entry is None:
            box.update(literal(self.problem or ("No sends." if not self.entries else "")))
            return
        text = Text()
        text.append_text(literal(f"{self._shown(entry.requester)} → {self._shown(entry.target)}", "bold"))
        text.append_text(literal(f"   run {entry.run_id}   via {entry.via}\n", "dim"))
        if len(entry.chain) > 1:
            text.append_text(span("chain ", "dim"))
            text.append_text(literal(" → ".join(self._shown(k) for k in entry.chain) + "\n"))
        text.append_text(span("message ", "dim"))
        text.append_text(literal(one_line(entry.message, 400) + "\n"))
        for step in entry.states:
            style = "$error" if step.state in BAD else "$warning" if step.state in WARN else "bold"
            text.append_text(span(f"{clock_time(step.at, seconds=True)}  ", "dim"))
            text.append_text(span(f"{step.state:<16}", style))
            text.append_text(literal(one_line(detail_text(step.detail), 300) + "\n"))
        box.update(text)

    # -- actions --------------------------------------------------------------------------------

    def _shown_field(self, session: str | None) -> str:
        """The session as the field and the title show it: its key as shown, never as stored."""
        return visible(self._shown(session)) if session else ""

    @on(Input.Submitted, "#sends-session")
    def _session_chosen(self, event: Input.Submitted) -> None:
        typed = event.value.strip()
        if typed != self.shown_session:  # left as shown: still the session it showed
            self.session = typed or None
            self.shown_session = visible(self.backend.redact(typed))
        self._title()
        self.query_one("#sends-table", DataTable).focus()
        self.reload()

    def action_cycle_state(self) -> None:
        self.state = STATES[(STATES.index(self.state) + 1) % len(STATES)]
        self._title()
        self.reload()

    def action_reload(self) -> None:
        self.reload()

    def action_close(self) -> None:
        if isinstance(self.focused, Input):
            self.query_one("#sends-table", DataTable).focus()
            return
        self.dismiss(None)

    def action_thread(self) -> None:
        from sessions_tui.ui.screens.thread import ThreadScreen

        entry = self.highlighted()
        if entry is None or entry.requester is None:
            self.notify("This send has no requester session: no thread.", timeout=3)
            return
        self.app.push_screen(ThreadScreen(self.backend, self.display_key, entry.requester, entry.target))
