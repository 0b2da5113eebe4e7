"""The transcript pane: the selected session's history as the acting-as session's tools see it.

Roles are styled, thinking is collapsed, images are placeholders with their size, tool calls and
results show only with tools on (`t`), and badges say when the history tool redacted, cut or
capped content. Everything an agent wrote is shown literally.

Opening a session fetches its newest messages first (a small `sessions_history` call, shown at
once), then the page of 200 (its older part goes in above, the flags and counts come from it);
live updates fetch only the newest few; `m` fetches the next older page. Every result is merged
by the messages' sequence numbers, so overlapping fetches never show a message twice. The
fetches are async workers: the history tool, which redacts every string (a while on a page), runs
off the loop in the backend (a local one's store thread).
The view follows the end unless the reader scrolled up (message_scroll.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable, Capability, Requester
from sessions_tui.backend.values.vocabulary import StoreDamaged, ToolInputError
from sessions_tui.counting import plural
from sessions_tui.ui.errors import ReportsWorkerErrors
from sessions_tui.ui.text import clock_time, elide_middle, literal, one_line, span
from sessions_tui.ui.theme import themed
from sessions_tui.ui.widgets.message_scroll import MessageScroll
from sessions_tui.ui.widgets.message_view import MessageView, StreamView, message_seq

if TYPE_CHECKING:  # the cron side loads when a job is shown
    from sessions_tui.backend.values.cron import CronJob

HISTORY_LIMIT = 200
FIRST_BATCH = 30
"""Messages fetched and shown first when a session opens: enough to fill the pane, few enough
to show at once; the rest of the page follows above them."""
TAIL_LIMIT = 50
"""Messages a live update fetches: the new ones are among them unless that many arrived at once
(then the pane reloads)."""
REVEAL_PAGES = 50  # a search hit further back than this many pages of history is left to `m`
FLAGS = ("contentRedacted", "contentTruncated", "hardCapped", "droppedMessages")


MIN_KEY_CELLS = 12  # a key elided below this says nothing: the title wraps instead


def message_count(count: int) -> str:
    return plural(count, "message")


def job_badge(job: CronJob) -> Text:
    """The cron job of a session in a few words: `   job nightly · every 30m · next 07:00 · last ok 06:30`."""
    from sessions_tui.backend.values.cron import describe

    state = job.state
    text = Text("   job ", style="dim")
    text.append_text(literal(one_line(job.name, 40), style="bold"))
    text.append(f" · {describe(job.schedule)}", style="dim")
    if not job.enabled:
        text.append(" · disabled", style=themed("bold $warning"))
    elif state.next_run_at_ms is not None:
        text.append(f" · next {clock_time(state.next_run_at_ms)}", style="dim")
    if state.running_at_ms is not None:
        text.append(" · running", style=themed("bold $accent"))
    elif state.last_run_status is not None:
        style = "bold $success" if state.last_run_status == "ok" else "bold $warning"
        text.append(" · last ", style="dim")
        text.append(one_line(state.last_run_status, 20), style=themed(style))
        text.append(f" {clock_time(state.last_run_at_ms)}", style="dim")
    return text


class TranscriptPane(ReportsWorkerErrors, Vertical):
    """Shows one session; `open`, `reload`, `refresh_tail` and `load_older` fetch through
    `sessions_history`."""

    class JobLoaded(Message):
        """The cron job whose session is shown (None: it is none's)."""

        def __init__(self, key: str, job: CronJob | None, generation: int) -> None:
            super().__init__()
            self.key = key
            self.job = job
            self.generation = generation

    class Loaded(Message):
        def __init__(self, key: str, result: dict[str, Any], kind: str, generation: int) -> None:
            super().__init__()
            self.key = key
            self.result = result
            self.kind = kind  # "first" (replaces what is shown), "page", "tail" or "older"
            self.generation = generation

    def __init__(
        self,
        backend: Backend,
        requester: Callable[[], Requester],
        display_key: Callable[[str], str],
        **kwargs: Any,
    ) -> None:
        """`requester` says whose view of the history is fetched, at the moment of fetching."""
        super().__init__(**kwargs)
        self.backend = backend
        self.requester = requester
        self.display_key = display_key
        self.key: str | None = None
        self.shown_key: str = ""
        self.tools = False
        self.next_offset: int | None = None  # where older history starts (None: all shown)
        self.first_seq = 0  # the oldest and newest message shown (0: none)
        self.last_seq = 0
        self._generation = 0  # bumped by every open/reload: older results are dropped
        self._total: int | None = None  # the history's own count of its messages, when it gives one
        self._flags: dict[str, bool] = {}
        self._page_pending = False
        self._tail_wanted = False
        self._paged_back = False
        self._reveal: tuple[int | None, str | None] | None = None  # (seq, entry id) to bring into view
        self._reveal_pages = 0
        self._job: CronJob | None = None  # the cron job whose session is shown

    def compose(self) -> ComposeResult:
        yield Static(
            span("No session selected. Pick one in the table and press enter.", style="dim"), id="transcript-title"
        )
        yield Static("", id="transcript-badges")
        with MessageScroll(id="messages"):
            yield StreamView(id="stream-preview")

    def on_mount(self) -> None:
        self.query_one(MessageScroll).anchor()

    @property
    def page_loading(self) -> bool:
        """Whether the shown session's page is still coming in (the newest messages show first)."""
        return self._page_pending or self._tail_wanted

    # -- what the screen calls ------------------------------------------------------------------

    def open(self, key: str | None, shown_key: str = "") -> None:
        self.key = key
        self.shown_key = shown_key or (key or "")
        self.reload()
        if key is None:  # nothing to show: no old messages stay; the title says why (`shown_key`)
            self.query_one(MessageScroll).remove_children(MessageView)
            self.first_seq = self.last_seq = 0
            self.next_offset = None
            self.query_one("#transcript-title", Static).update(literal(shown_key, style="dim"))
            self.query_one("#transcript-badges", Static).update("")

    def reload(self) -> None:
        """Show the session afresh (another session, tools toggled, another requester)."""
        self._generation += 1
        self._page_pending = self._tail_wanted = self._paged_back = False
        self._reveal = None
        self.query_one(StreamView).clear()
        self._job = None
        if self.key is not None:
            self._page_pending = True
            self._fetch(self.key, "first", self._generation, limit=FIRST_BATCH)
            self._fetch_job(self.key, self._generation)

    def refresh_tail(self) -> None:
        """Something was written: show the session's new messages (and its cron job's state)."""
        if self.key is None:
            return
        if self._job is not None:
            self._fetch_job(self.key, self._generation)
        if self._page_pending:
            self._tail_wanted = True  # asked again once the page is in
            return
        self._fetch(self.key, "tail", self._generation, limit=TAIL_LIMIT)

    def set_tools(self, on: bool) -> None:
        self.tools = on
        self.reload()

    def load_older(self) -> bool:
        """Page back: the next older messages go on top. Returns whether there were any."""
        if self.key is None or self.next_offset is None:
            return False
        self._fetch(self.key, "older", self._generation, limit=HISTORY_LIMIT, offset=self.next_offset)
        return True

    def reveal(self, seq: int | None, entry_id: str | None = None) -> None:
        """Bring a message of the open session into view and mark it (a search hit): message `seq`,
        or, when its number is not known (an OpenClaw gateway's hits give only the line's id), the
        one whose `__openclaw.id` is `entry_id`. Older pages are fetched until it is shown, at most
        `REVEAL_PAGES` of them."""
        if seq is None and not entry_id:
            return
        self._reveal, self._reveal_pages = (seq, entry_id), 0
        self._try_reveal()

    def _try_reveal(self) -> None:
        if self._reveal is None or self.key is None or self.page_loading:
            return
        seq, entry_id = self._reveal
        scroll = self.query_one(MessageScroll)
        views = list(scroll.query_children(MessageView))
        target = next((v for v in views if (v.seq == seq if seq is not None else v.entry_id == entry_id)), None)
        further_back = self.first_seq and seq < self.first_seq if seq is not None else target is None
        if further_back and self.next_offset is not None and self._reveal_pages < REVEAL_PAGES:
            self._reveal_pages += 1
            self.load_older()
            return
        self._reveal = None
        for view in views:
            view.set_class(view is target, "found")
        if target is None:
            which = f"Message #{seq}" if seq is not None else "The message"
            self.notify(f"{which} is not shown: it is further back (m: older messages).", timeout=4)
            return
        scroll.reveal(target)  # held at the top until laid out: the pages just mounted take frames

    def stream(self, kind: str, delta: str) -> None:
        """A piece of what the running model produces, shown until its message lands."""
        self.query_one(StreamView).add(kind, delta)

    # -- fetching -------------------------------------------------------------------------------

    def _fetch(self, key: str, kind: str, generation: int, limit: int, offset: int = 0) -> None:
        # One worker group per kind: a live update must not cancel the page being fetched. The
        # coroutine is made when the worker starts: one replaced before it runs leaves none unawaited.
        async def fetch() -> None:
            await self._history(key, kind, generation, limit, offset)

        self.run_worker(
            fetch,  # type: ignore[arg-type]  # Textual's `WorkType` takes None for no result
            group=f"transcript-{kind}",
            exclusive=True,
            exit_on_error=False,
        )

    def refresh_job(self) -> None:
        """The shown session changed: its cron job's state again (a run of it ended); a session shown
        without a job is not asked again on each of its changes."""
        if self.key is not None and self._job is not None:
            self._fetch_job(self.key, self._generation)

    def _fetch_job(self, key: str, generation: int) -> None:
        """The cron job of the session, on a backend that runs jobs (`Capability.CRON`)."""
        if Capability.CRON not in self.backend.capabilities:
            return

        async def fetch() -> None:
            try:
                job = await self.backend.cron_job_of(key)
            except (BackendUnavailable, StoreDamaged):
                job = None  # the header goes without it; the transcript says what is wrong
            if not get_current_worker().is_cancelled:
                self.post_message(self.JobLoaded(key, job, generation))

        self.run_worker(fetch, group="transcript-job", exclusive=True, exit_on_error=False)  # type: ignore[arg-type]

    def on_transcript_pane_job_loaded(self, event: JobLoaded) -> None:
        event.stop()
        if event.key == self.key and event.generation == self._generation:
            self._job = event.job
            self._update_header()

    async def _history(self, key: str, kind: str, generation: int, limit: int, offset: int) -> None:
        requester = self.requester()
        params: dict[str, Any] = {"sessionKey": key, "limit": limit, "includeTools": self.tools}
        if offset:
            params["offset"] = offset
        try:
            result = await self.backend.call_tool("sessions_history", params, requester)
        except ToolInputError as exc:
            result = {"status": "error", "error": str(exc)}
        if not get_current_worker().is_cancelled:
            self.post_message(self.Loaded(key, result, kind, generation))

    # -- showing --------------------------------------------------------------------------------

    async def on_transcript_pane_loaded(self, event: Loaded) -> None:
        event.stop()
        if event.key != self.key or event.generation != self._generation:
            return
        result = event.result
        if "status" in result and "messages" not in result:
            self._show_error(result)
            return
        messages: list[dict[str, Any]] = [m for m in result.get("messages", []) if isinstance(m, dict)]
        total = result.get("totalMessages")  # an OpenClaw gateway's HTTP `sessions_history` has none
        self._total = total if isinstance(total, int) and not isinstance(total, bool) else None
        if event.kind == "tail" and self._another_transcript(messages):
            self.reload()  # a new transcript under the key (a reset), shown afresh
            return
        if event.kind == "first" or any(message_seq(m) <= 0 for m in messages):
            await self._replace(event.kind, result, messages)
        else:
            self._merge(event.kind, result, messages)
        self._update_header()
        if event.kind == "page" or (event.kind == "first" and not self._page_pending):
            if self._tail_wanted:
                self._tail_wanted = False
                self.refresh_tail()
        if event.kind in ("first", "page", "older"):
            self._try_reveal()

    def _another_transcript(self, messages: list[dict[str, Any]]) -> bool:
        """Whether the newest messages are another transcript's than the shown one's: the newest is
        older than the shown, or the shown newest's place holds another line (a reset's new
        transcript, as long as the old or longer)."""
        if not messages:
            return False
        if max(message_seq(m) for m in messages) < self.last_seq:
            return True
        shown = next((v.entry_id for v in self.query(MessageView) if v.seq == self.last_seq), None)
        fetched = next((m for m in messages if message_seq(m) == self.last_seq), None)
        meta = fetched.get("__openclaw") if fetched is not None else None
        fetched_id = meta.get("id") if isinstance(meta, dict) else None
        return shown is not None and isinstance(fetched_id, str) and fetched_id != shown

    async def _replace(self, kind: str, result: dict[str, Any], messages: list[dict[str, Any]]) -> None:
        scroll = self.query_one(MessageScroll)
        await scroll.remove_children(MessageView)
        scroll.follow()  # a session opens at its end, following
        await scroll.mount_all(self._views(messages), before=self.query_one(StreamView))
        seqs = [message_seq(m) for m in messages]
        self.first_seq, self.last_seq = min(seqs, default=0), max(seqs, default=0)
        self._flags = {flag: bool(result.get(flag)) for flag in FLAGS}
        self.next_offset = result.get("nextOffset")
        if kind == "first" and result.get("hasMore"):
            # The rest of the page once the newest messages are on screen.
            generation, key = self._generation, self.key
            self.call_after_refresh(self._fetch_page, key, generation)
        else:
            self._page_pending = False

    def _fetch_page(self, key: str, generation: int) -> None:
        if key == self.key and generation == self._generation:
            self._fetch(key, "page", generation, limit=HISTORY_LIMIT)

    def _merge(self, kind: str, result: dict[str, Any], messages: list[dict[str, Any]]) -> None:
        """Older messages than shown go on top (the reader's place kept), newer ones at the end."""
        scroll = self.query_one(MessageScroll)
        shown = self.last_seq > 0
        older = [m for m in messages if shown and message_seq(m) < self.first_seq]
        newer = [m for m in messages if not shown or message_seq(m) > self.last_seq]
        if (
            kind == "tail"
            and newer
            and shown
            and result.get("hasMore")
            and all(message_seq(m) > self.last_seq for m in messages)
        ):
            self.reload()  # more arrived at once than a live update fetches: show the session afresh
            return
        if older:
            scroll.hold_place()
            scroll.mount_all(self._views(older), before=0)
            self.first_seq = message_seq(older[0])
        if newer:
            scroll.mount_all(self._views(newer), before=self.query_one(StreamView))
            self.first_seq = self.first_seq or message_seq(newer[0])
            self.last_seq = message_seq(newer[-1])
            if any(m.get("role") != "user" for m in newer):
                self.query_one(StreamView).clear()  # the run's message landed
        if kind == "page":
            self._page_pending = False
            self._flags = {flag: bool(result.get(flag)) for flag in FLAGS}
            if not self._paged_back:
                self.next_offset = result.get("nextOffset")
        else:
            self._flags = {flag: self._flags.get(flag, False) or bool(result.get(flag)) for flag in FLAGS}
        if kind == "older":
            self._paged_back = True
            self.next_offset = result.get("nextOffset")
        elif kind == "tail" and newer and self.next_offset is not None:
            # Offsets count from the newest message: what arrived moves the older history back.
            self.next_offset += len(newer)

    def _show_error(self, result: dict[str, Any]) -> None:
        self._page_pending = False
        error = literal(f"{result.get('status')}: {result.get('error')}", style="$error")
        self.query_one("#transcript-title", Static).update(Text.assemble((self.shown_key, "bold"), "  ") + error)
        self.query_one("#transcript-badges", Static).update("")
        self.query_one(MessageScroll).remove_children(MessageView)
        self.first_seq = self.last_seq = 0
        self.next_offset = None

    def _views(self, messages: list[dict[str, Any]]) -> list[MessageView]:
        return [MessageView(m, self.tools, self.display_key) for m in messages]

    def on_resize(self) -> None:
        if self.key is not None:
            self._update_header()  # the key is elided to the width

    def _shown_count(self) -> int:
        """The messages the header counts: the history's total, and never fewer than are shown
        (a history that gives no total, or counts 0, still has what it answered)."""
        shown = len(self.query_one(MessageScroll).query_children(MessageView))
        return max(self._total or 0, shown)

    def _update_header(self) -> None:
        rest = Text(f"   {message_count(self._shown_count())}", style="dim")
        if self.next_offset is not None:
            rest.append("   m: older", style="dim")
        # One line: the key gives up its middle (the tooltip has it whole), the count stays.
        room = max(MIN_KEY_CELLS, self.size.width - rest.cell_len) if self.size.width else len(self.shown_key)
        title_widget = self.query_one("#transcript-title", Static)
        title_widget.update(literal(elide_middle(self.shown_key, room), style="bold") + rest)
        title_widget.tooltip = self.shown_key
        badges = Text()
        badges.append("tools: ", style="dim")
        badges.append("on" if self.tools else "off", style="bold" if self.tools else "")
        badges.append(" (t)", style="dim")
        flags = self._flags
        for flag, label in (
            ("contentRedacted", "redacted"),
            ("contentTruncated", "truncated"),
            ("hardCapped", "capped"),
        ):
            if flags.get(flag):
                badges.append(f"   {label} ", style="")
                badges.append("●", style=themed("bold $warning"))
        if flags.get("droppedMessages") and not flags.get("hardCapped"):
            badges.append("   dropped ", style="")
            badges.append("●", style=themed("bold $warning"))
        if self._job is not None:
            badges.append_text(job_badge(self._job))
        self.query_one("#transcript-badges", Static).update(badges)
