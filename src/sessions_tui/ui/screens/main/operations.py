"""The operator's hands on the main screen: the keys that change sessions, and the marks for doing
it to several at once.

`n` opens the new-session form; on the highlighted session `R` resets (asks first), `L` renames,
`M` sets the model and thinking level, `A` archives or unarchives, `D` deletes (asks first) and `x`
stops the open session's running turn (asks first). `space` marks the highlighted row (a mark
stays across live changes and pages; `esc` on the table or the next bulk action clears them): with
marks, `A`, `x` and `D` act on every marked session after one question, and say in one line what
came of it. `alt+a` shows or hides the archived sessions.

Each operation goes through the backend seam (`Operating`, `Aborting`), awaited in an async worker,
as the operator unless the user chose a session to act as (`Dashboard.operator`). What it changed
reaches the table as every change does (engine events, row diffs); what came of it is one line: on
the composer's state line when it shows that session, else a toast.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, cast

from textual import work
from textual.actions import SkipAction

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable, OperationRefused, SessionOpOutcome
from sessions_tui.backend.values.vocabulary import StoreDamaged, ToolInputError
from sessions_tui.counting import plural
from sessions_tui.ui.dashboard import Dashboard
from sessions_tui.ui.screens.dialogs.confirm import ConfirmScreen
from sessions_tui.ui.screens.dialogs.new_session import NewSessionScreen
from sessions_tui.ui.screens.dialogs.session_questions import (
    BulkScreen,
    DeleteScreen,
    ModelScreen,
    RenameScreen,
    ResetScreen,
)
from sessions_tui.ui.screens.dialogs.stop import StopScreen, outcome_line
from sessions_tui.ui.screens.main.live_statuses import LiveStatuses
from sessions_tui.ui.text import literal
from sessions_tui.ui.widgets.composer import Composer
from sessions_tui.ui.widgets.session_table import SessionTable
from sessions_tui.ui.widgets.transcript import TranscriptPane

if TYPE_CHECKING:
    from sessions_tui.backend.contract.types import AbortOutcome
    from sessions_tui.backend.values.views import BrowseRow

FAILURES = (ToolInputError, OperationRefused, BackendUnavailable, StoreDamaged)
"""What an operation raises that is said in its line: bad input, a refusal, a backend that cannot,
a damaged store (nothing written)."""

Operation = Callable[[str], Awaitable[SessionOpOutcome]]


def done_line(outcome: SessionOpOutcome, shown: str) -> str:
    """What one operation did, in a line."""
    if outcome.op == "create":
        sent = f"; its first message: {outcome.send.get('status')}" if outcome.send else ""
        return f"created {shown}{sent}"
    if outcome.op == "reset":
        return f"reset {shown}: a new transcript ({outcome.session_id[:8]}…), the old one kept"
    if outcome.op == "rename":
        return f"renamed {shown}: {outcome.label}" if outcome.label else f"{shown}: label cleared"
    if outcome.op == "model":
        return f"{shown}: model {outcome.model or 'the default'}, thinking {outcome.thinking or 'off'}"
    if outcome.op == "delete":
        return f"deleted {shown}; its transcript is kept as a .deleted file"
    return f"{outcome.op}d {shown}"  # archived, unarchived


def bulk_line(verb: str, done: int, refused: list[str]) -> str:
    """What a bulk action came to: how many were done, how many refused and the first reason."""
    line = f"{verb} {plural(done, 'session')}"
    if refused:
        line += f"; refused {len(refused)}: {refused[0]}"
    return line


class SessionOperations(LiveStatuses):
    """The main screen's operations on sessions (it sets `dashboard` and `display_key`)."""

    dashboard: Dashboard
    display_key: Callable[[str], str]

    def __init__(self, backend: Backend, dashboard: Dashboard) -> None:
        super().__init__(backend, dashboard.requester)
        self.cursor_to: str | None = None  # a created session: the cursor goes to its row once listed

    # -- what the keys act on -------------------------------------------------------------------

    def _highlighted_key(self, purpose: str) -> str | None:
        """The key of the table's highlighted row; None after a toast saying so when there is none."""
        key = self.query_one(SessionTable).current_key()
        if key is None:
            self.app.notify(f"Highlight a session first: {purpose}.", timeout=3)
        return key

    def _row(self, key: str) -> BrowseRow:
        """The row of `key` as the table shows it (empty when it is not listed)."""
        row = self.query_one(SessionTable).rows_by_key.get(key)
        return row if row is not None else cast("BrowseRow", {})

    def _marked(self) -> list[str]:
        """The marked keys: the listed ones in the table's order, then the others."""
        table = self.query_one(SessionTable)
        listed = [row.key.value for row in table.ordered_rows if row.key.value in table.marked]
        return [key for key in listed if key] + sorted(table.marked - set(listed))

    def _say(self, title: str, line: str, *, ok: bool, key: str | None = None) -> None:
        """One line on what came of an operation: on the composer's state line when it shows `key`,
        else in a toast."""
        composer = self.query_one(Composer)
        text = literal(line, "bold $success" if ok else "bold $warning")
        if key is not None and composer.key == key and composer.show_status(text):
            return
        self.app.notify(line, title=title, severity="information" if ok else "warning", timeout=6, markup=False)

    # -- the keys -------------------------------------------------------------------------------

    def action_new_session(self) -> None:
        """`n`: the new-session form; the cursor goes to the new row once the table lists it."""

        def created(outcome: SessionOpOutcome | None) -> None:
            if outcome is not None:
                self.cursor_to = outcome.session_key
                self.follow_created()
                self._say("New session", done_line(outcome, self.display_key(outcome.session_key)), ok=True)

        operator = self.dashboard.operator()
        as_whom = "as the operator" if operator is None else f"as {self.backend.display(operator.key or 'main')}"
        self.app.push_screen(NewSessionScreen(self.backend, operator, as_whom), created)

    def follow_created(self) -> None:
        """The cursor on the created session's row, once it is listed (the live rows bring it)."""
        table = self.query_one(SessionTable)
        if self.cursor_to is not None and self.cursor_to in table.rows_by_key:
            table.move_cursor(row=table.get_row_index(self.cursor_to), animate=False)
            self.cursor_to = None

    def action_reset_session(self) -> None:
        """`R`: reset the highlighted session, once confirmed."""
        key = self._highlighted_key("reset starts its new transcript")
        if key is not None:
            operator = self.dashboard.operator()
            reset: Operation = lambda k: self.backend.reset_session(k, requester=operator)  # noqa: E731
            self._ask(ResetScreen(self.display_key(key)), lambda: self._operate("Reset", [key], reset))

    def action_rename_session(self) -> None:
        """`L`: the highlighted session's label, in a small box prefilled with it."""
        key = self._highlighted_key("rename sets its label")
        if key is None:
            return
        row = self._row(key)
        operator = self.dashboard.operator()

        def renamed(label: str | None) -> None:
            if label is not None:  # "" clears it
                self._operate(
                    "Rename", [key], lambda k: self.backend.rename_session(k, label or None, requester=operator)
                )

        self.app.push_screen(RenameScreen(self.display_key(key), row.get("label") or ""), renamed)

    def action_model_session(self) -> None:
        """`M`: the highlighted session's model and thinking level."""
        key = self._highlighted_key("model sets its model and thinking level")
        if key is None:
            return
        row = self._row(key)
        operator = self.dashboard.operator()

        def chosen(answer: tuple[str | None, str | None] | None) -> None:
            if answer is None:
                return
            model, thinking = answer
            if model is None and thinking is None:
                self._say("Model", f"{self.display_key(key)}: nothing changed", ok=True, key=key)
                return
            self._operate(
                "Model", [key], lambda k: self.backend.set_session_model(k, model, thinking, requester=operator)
            )

        shown = ModelScreen(self.display_key(key), row.get("model") or "", row.get("thinkingLevel") or "off")
        self.app.push_screen(shown, chosen)

    def action_archive_session(self) -> None:
        """`A`: archive the highlighted session or unarchive it (no question); with marks, every
        marked one after one question (unarchived when all the listed ones are archived)."""
        marked = self._marked()
        if marked:
            archived = not all(self._row(key).get("archived") for key in marked)
            verb = "archive" if archived else "unarchive"
            detail = (
                "They leave the default list (alt+a shows them); their transcripts stay."
                if archived
                else "They are back in the default list."
            )
            shown = [self.display_key(key) for key in marked]
            self._ask(BulkScreen(verb, shown, detail), lambda: self._archive(marked, archived, bulk=True))
            return
        key = self._highlighted_key("archive acts on it")
        if key is not None:
            self._archive([key], not self._row(key).get("archived"), bulk=False)

    def _archive(self, keys: list[str], archived: bool, *, bulk: bool) -> None:
        operator = self.dashboard.operator()
        title = "Archive" if archived else "Unarchive"
        archive: Operation = lambda k: self.backend.archive_session(k, archived, requester=operator)  # noqa: E731
        self._operate(title, keys, archive, bulk=bulk)

    def action_delete_session(self) -> None:
        """`D`: delete the highlighted session, or every marked one, once confirmed."""
        keys = self._marked()
        bulk = bool(keys)
        if not keys:
            key = self._highlighted_key("delete acts on it")
            keys = [key] if key is not None else []
        if keys:
            operator = self.dashboard.operator()
            delete: Operation = lambda k: self.backend.delete_session(k, requester=operator)  # noqa: E731
            question = DeleteScreen([self.display_key(key) for key in keys])
            self._ask(question, lambda: self._operate("Delete", keys, delete, bulk=bulk))

    def action_toggle_mark(self) -> None:
        """`space` on the table: mark the highlighted row, or unmark it."""
        table = self.query_one(SessionTable)
        if self.focused is not table:
            raise SkipAction()
        key = table.current_key()
        if key is not None:
            table.toggle_mark(key)

    def action_toggle_archived(self) -> None:
        """`alt+a`: the archived sessions shown in the table (dimmed, `ar`) or not."""
        query = self.query_state
        query.include_archived = not query.include_archived
        self.page_offset = 0
        self.reload_table()
        note = "shown (dimmed, ar)" if query.include_archived else "hidden (alt+a shows them again)"
        self.app.notify(f"Archived sessions {note}.", timeout=2, markup=False)

    def reload_table(self) -> None:
        """Read the shown page again (the main screen implements it)."""

    def _ask(self, question: ConfirmScreen, then: Callable[[], object]) -> None:
        """`question`, then `then` once it is answered yes."""

        def answered(yes: bool | None) -> None:
            if yes:
                then()

        self.app.push_screen(question, answered)

    # -- doing it -------------------------------------------------------------------------------

    @work(group="session-ops", exit_on_error=False)
    async def _operate(self, title: str, keys: list[str], operation: Operation, *, bulk: bool = False) -> None:
        """`operation` on each of `keys` in turn, then one line; `bulk`: they were the marked ones
        (the marks are cleared)."""
        done: list[SessionOpOutcome] = []
        refused: list[str] = []
        for key in keys:
            try:
                done.append(await operation(key))
            except FAILURES as exc:
                refused.append(str(exc))
        if bulk:
            self.query_one(SessionTable).clear_marks()
            verb = title.lower() + ("d" if title.endswith("e") else "ed")
            self._say(title, bulk_line(verb, len(done), refused), ok=not refused)
            return
        key = keys[0]
        stays = title in ("Reset", "Rename", "Model")  # the row stays listed: the composer may show it
        if refused:
            self._say(title, refused[0], ok=False, key=key)
        else:
            self._say(title, done_line(done[0], self.display_key(key)), ok=True, key=key if stays else None)

    # -- stop -----------------------------------------------------------------------------------

    def _open_key(self, purpose: str) -> str | None:
        """The key of the session the transcript shows; None after a toast saying "Open a session
        first: `purpose`" when none is open."""
        key = self.query_one(TranscriptPane).key
        if not key:
            self.app.notify(f"Open a session first: {purpose}.", timeout=3)
        return key

    def action_run_cron_job(self) -> None:
        """`J`: run the job of the open cron session now (as `sessions-tui cron run`), whatever its
        schedule; what came of it in one line once the run ended."""
        key = self._open_key("J runs the job whose session is open")
        if key:
            self._run_cron_job(key, self.display_key(key))

    @work(group="cron-run", exit_on_error=False)
    async def _run_cron_job(self, key: str, shown: str) -> None:
        try:
            job = await self.backend.cron_job_of(key)
            if job is None:
                self._say("Run job", f"{shown} is no cron job's session", ok=False, key=key)
                return
            self._say("Run job", f"running job {job.name} now…", ok=True, key=key)
            run = await self.backend.run_cron_job(job.id)
        except FAILURES as exc:
            self._say("Run job", str(exc), ok=False, key=key)
            return
        took = f" in {run.duration_ms / 1000:.1f} s" if run.duration_ms is not None else ""
        line = f"ran job {job.name}: {run.status or 'running'}{took}" + (f" ({run.error})" if run.error else "")
        self._say("Run job", line, ok=run.status == "ok", key=key)

    def action_stop(self) -> None:
        """`x`: stop the open session's running turn, once confirmed (with marks: every marked
        session's, after one question); the outcome on the composer's state line when it shows that
        session, else in a toast."""
        marked = self._marked()
        if marked:
            shown = [self.display_key(key) for key in marked]
            detail = "Each running turn ends as killed, wherever it runs; the messages queued behind it still run."
            self._ask(BulkScreen("stop", shown, detail), lambda: self._stop_many(marked))
            return
        key = self._open_key("stop asks the open session's running turn")
        if key:
            shown_key = self.display_key(key)
            self._ask(StopScreen(shown_key), lambda: self._stop(key, shown_key))

    @work(group="stop", exit_on_error=False)
    async def _stop(self, key: str, shown: str) -> None:
        try:
            outcome = await self.backend.abort_run(key, requester=self.dashboard.operator())
        except FAILURES as exc:  # damaged: the stop is not written
            self.app.notify(str(exc), title="Not stopped", severity="warning", markup=False)
            return
        line = outcome_line(outcome, shown)
        composer = self.query_one(Composer)
        style = "bold $success" if outcome.aborted else ("bold $warning" if outcome.run_id else "dim")
        if composer.key != key or not composer.show_status(literal(line, style)):
            self.app.notify(line, title="Stop", timeout=6, markup=False)

    @work(group="stop", exit_on_error=False)
    async def _stop_many(self, keys: list[str]) -> None:
        outcomes: list[AbortOutcome] = []
        refused: list[str] = []
        for key in keys:
            try:
                outcomes.append(await self.backend.abort_run(key, requester=self.dashboard.operator()))
            except FAILURES as exc:
                refused.append(str(exc))
        self.query_one(SessionTable).clear_marks()
        stopped = sum(1 for outcome in outcomes if outcome.aborted)
        line = bulk_line("stopped the running turn of", stopped, refused)
        idle = len(outcomes) - stopped
        if idle:
            line += f"; nothing running in {plural(idle, 'session')}"
        self._say("Stop", line, ok=not refused)
