"""The Sends view (`l`): every `sessions_send` and what became of it, newest first.

k9s-style: a full screen over the dashboard, `escape` back. It opens on the table (`enter` opens
the highlighted send's thread); `/` goes to the Session field (the requester or the target), `f`
and `F` step the state filter forward and back, and the state chosen shows beside the field. A late
reply or a failed delivery stands out in the table, whose state column is kept whole at every
width (the others shrink, then drop). The highlighted send's life is shown under the table, state
by state with its time. A send the operator made without a session of its own shows as the
operator's. The view follows the ledger live.
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
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Input, Label, Static

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable
from sessions_tui.backend.toolkit.operator import OPERATOR, via_shown
from sessions_tui.backend.values.vocabulary import EngineEvent
from sessions_tui.ui.text import clock_time, literal, one_line, span, visible
from sessions_tui.ui.widgets.field import Field

if TYPE_CHECKING:
    from sessions_tui.backend.values.vocabulary import LedgerEntry

STATES = ("", "replied", "timeout", "late_reply", "error", "forbidden", "aborted", "delivered", "delivery_failed")
"""The state filter's cycle (`f` forward, `F` back); "" is every send."""

OUTCOMES = {"replied", "timeout", "error", "forbidden"}
WARN = {"late_reply", "timeout", "aborted"}
BAD = {"error", "forbidden", "delivery_failed"}
LIMIT = 500
HINT = "esc back   enter thread   / session   f/F state   r refresh"
WIDEST_STATE = "timeout · late_reply · delivery_failed"
"""The longest state cell an entry makes (`outcome`): the state column is at least this wide."""
CELL_PADDING = 1  # the DataTable's padding on each side of a cell
SCROLLBAR = 2  # kept free for the table's vertical scrollbar, shown or not
WHO_WIDTHS = (16, 48)  # the from → to column: the least it shrinks to, the most it grows to
MESSAGE_WIDTHS = (12, 40)
WHEN_WIDTH = 8


def column_widths(width: int, state_width: int) -> dict[str, int]:
    """The Sends table's columns in `width` cells, left to right, and each one's width: the state
    always whole; without room the message drops first, then the time; the rest goes to from → to
    and the message (three parts to two) up to their widest."""
    pad = 2 * CELL_PADDING
    shown = {"when": WHEN_WIDTH, "who": WHO_WIDTHS[0], "message": MESSAGE_WIDTHS[0], "state": state_width}

    def spare() -> int:
        return width - sum(w + pad for w in shown.values())

    for name in ("message", "when"):
        if spare() >= 0:
            break
        del shown[name]
    room = spare()
    if room < 0:  # narrower than the state and a short from → to: the sender's cell gives way
        shown["who"] = max(1, shown["who"] + room)
        return shown
    share = room * 3 // 5 if "message" in shown else room
    shown["who"] += min(WHO_WIDTHS[1] - WHO_WIDTHS[0], share)
    if "message" in shown:
        shown["message"] += min(MESSAGE_WIDTHS[1] - MESSAGE_WIDTHS[0], spare())
    shown["who"] += min(WHO_WIDTHS[1] - shown["who"], max(0, spare()))
    return shown


def outcome(entry: LedgerEntry) -> str:
    """The send's outcome so far and what stands out after it (a late reply, a failed delivery)."""
    states = [s.state for s in entry.states]
    first = next((s for s in states if s in OUTCOMES), states[-1] if states else "")
    extra = [s for s in ("late_reply", "aborted", "delivered", "delivery_failed") if s in states and s != first]
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

    AUTO_FOCUS = "#sends-table"  # `enter` opens a thread from the first key on; `/` goes to the field
    BINDINGS = [
        Binding("escape", "close", "back", id="sends_back", tooltip="back to the sessions"),
        Binding("f", "cycle_state(1)", "state", id="sends_state", tooltip="filter by state: the next one"),
        Binding("F", "cycle_state(-1)", "state back", id="sends_state_back", tooltip="filter by state: the one before"),
        Binding("enter", "thread", "thread", id="sends_thread", tooltip="the thread between the send's two sessions"),
        Binding("slash", "session_field", "session", id="sends_session", tooltip="type a session to keep its sends"),
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
        self.listed: list[LedgerEntry] = []  # the table's entries, in its order
        self.widths: dict[str, int] = {}  # the table's columns and their widths (`column_widths`)
        self.problem: str | None = None
        self.generation = 0
        self._unsubscribe: Callable[[], None] | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="sends-view"):
            yield Static(id="sends-title")
            with Horizontal(id="sends-filters"):
                yield Label("Session ", id="sends-session-label")
                yield Field(self.shown_session, placeholder="any session (enter to apply)", id="sends-session")
                yield Static(id="sends-state")
            yield DataTable(id="sends-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="sends-detail-box"):
                yield Static(id="sends-detail")
            yield Static(HINT, id="sends-hint")

    def on_mount(self) -> None:
        self._fit_columns(self.size.width)
        self._unsubscribe = self.backend.subscribe(self._on_event)
        self._title()
        self.query_one("#sends-table", DataTable).focus()
        self.reload()

    def on_resize(self, event: Resize) -> None:
        self._fit_columns(event.size.width)

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
        shown = span("State ", "dim") + span(self.state or "any", "bold" if self.state else "")
        self.query_one("#sends-state", Static).update(shown + span("  f/F", "dim"))

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
        self.entries = {e.run_id: e for e in event.entries}
        self.listed = event.entries
        self.problem = event.problem
        if self._state_width() > self.widths.get("state", 0):  # a state cell wider than thought: kept whole
            self._fit_columns(self.size.width)
        else:
            self._fill()

    def _state_width(self) -> int:
        return max([len(WIDEST_STATE), *(len(outcome(e)) for e in self.listed)])

    def _fit_columns(self, width: int) -> None:
        """The columns for a screen `width` cells wide (the view's padding and the scrollbar's room
        taken off), the rows drawn again in them when they change."""
        widths = column_widths(max(0, width - 2 - SCROLLBAR), self._state_width())
        if widths == self.widths:
            return
        self.widths = widths
        table = self.query_one("#sends-table", DataTable)
        current = self._row_key(table.cursor_row) if table.row_count else None
        table.clear(columns=True)
        titles = {"when": "when", "who": "from → to", "message": "message", "state": "state"}
        for name, cells in widths.items():
            table.add_column(titles[name], width=cells, key=name)
        self._fill(current)

    def _fill(self, current: str | None = None) -> None:
        """The table's rows from the entries, the cursor kept on its send (or the one asked for)."""
        table = self.query_one("#sends-table", DataTable)
        if current is None and table.row_count:
            current = self._row_key(table.cursor_row)
        current = self.focus_run or current
        table.clear()
        for entry in self.listed:
            who = f"{self._shown(entry.requester)} → {self._shown(entry.target)}"
            cells = {
                "when": span(clock_time(entry.created_at, seconds=True)),
                "who": literal(one_line(who, self.widths["who"])),
                "message": literal(one_line(entry.message, self.widths.get("message", 0))),
                "state": span(outcome(entry), style_of(entry)),
            }
            table.add_row(*(cells[name] for name in self.widths), key=entry.run_id)
        if current in self.entries:
            table.move_cursor(row=table.get_row_index(current))
            self.focus_run = None
        self._show_detail()

    def _row_key(self, row: int) -> str | None:
        table = self.query_one("#sends-table", DataTable)
        try:
            return str(table.coordinate_to_cell_key(Coordinate(row, 0)).row_key.value)
        except Exception:  # noqa: BLE001 - no such row (an empty table)
            return None

    def _shown(self, key: str | None) -> str:
        return OPERATOR if key is None else str(self.display_key(key))

    # -- the highlighted send -------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#sends-table")
    def _highlighted(self, _: DataTable.RowHighlighted) -> None:
        self._show_detail()

    @on(DataTable.RowSelected, "#sends-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        """`enter` on the table (the table's own key): the highlighted send's thread."""
        event.stop()
        self.action_thread()

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
        text.append_text(literal(f"   run {entry.run_id}   via {via_shown(entry.via)}\n", "dim"))
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

    def action_cycle_state(self, step: int = 1) -> None:
        """`f` the next state to keep, `F` the one before (after the last, every send again)."""
        self.state = STATES[(STATES.index(self.state) + step) % len(STATES)]
        self._title()
        self.reload()

    def action_session_field(self) -> None:
        self.query_one("#sends-session", Input).focus()

    def action_reload(self) -> None:
        self.reload()

    def action_close(self) -> None:
        if isinstance(self.focused, Input):
            self.query_one("#sends-table", DataTable).focus()
            return
        self.dismiss(None)

    def action_thread(self) -> None:
        from sessions_tui.ui.screens.ledger.thread import ThreadScreen

        entry = self.highlighted()
        if entry is None or entry.requester is None:
            self.notify("This send has no requester session: no thread.", timeout=3)
            return
        self.app.push_screen(ThreadScreen(self.backend, self.display_key, entry.requester, entry.target))
