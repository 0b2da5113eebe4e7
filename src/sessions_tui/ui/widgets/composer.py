"""The composer: `sessions_send` into the selected session, with a live countdown and the outcome.

A standalone `/send on|off|inherit` is the operator's command instead. After the send returns, the
ping-pong turns and the announce are added as they happen.

The message is one line: `enter` sends it, as `ctrl+s` does anywhere in the composer (a chat
line, not an editor). `tab` goes message → wait → Send, then out of the composer; the wait is
the send's own (`timeoutSeconds`), never a spawn's (the spawn panel has its run timeout). A wait
changed is for the sends into that session: opening another session puts back the default
(`ui.sendWait`, else 30 s).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import on, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Button, Input, Label, ProgressBar, Static

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Capability, Requester
from sessions_tui.backend.toolkit.commands import is_send_command
from sessions_tui.backend.values.vocabulary import (
    Announced,
    EngineEvent,
    PolicyRefused,
    RunEnded,
    RunStarted,
    SendProgress,
    StoreDamaged,
    ToolInputError,
)
from sessions_tui.ui.errors import ReportsWorkerErrors
from sessions_tui.ui.messages import StoreDamageFound
from sessions_tui.ui.text import literal, one_line, span
from sessions_tui.ui.theme import themed
from sessions_tui.ui.widgets.field import Field

DEFAULT_TIMEOUT = 30  # the countdown bar's length until a send sets it
TAB_ORDER = ("#message", "#timeout", "#send-button")
PLACEHOLDER = "Message · enter sends (one line) · /send on|off|inherit sets the send policy"
WAIT_TOOLTIP = (
    "How long the send waits for the reply (sessions_send timeoutSeconds; 0: do not wait); back to "
    "the default (ui.sendWait) when another session opens. A spawn's run timeout is set in the spawn panel."
)
LOG_LINES = 6
ENDED_KEPT = 32
_DELIVERY = {
    "recorded": "recorded in the outbox",
    "pending": "queued for its webhook",
    "forbidden": "blocked by the send policy",
    "none": "no channel to post to",
}
SELF_SEND = "cannot target the calling session"
"""OpenClaw's `sessions_send` refusing a send from a session into itself: the hint says how to reply."""


class Composer(ReportsWorkerErrors, Vertical):
    BINDINGS = [
        Binding("tab", "step_field(1)", show=False),
        Binding("shift+tab", "step_field(-1)", show=False),
    ]

    class OwnerReplied(Message):
        """The operator's `/send` command was carried out; `reply` says what it did."""

        def __init__(self, reply: str) -> None:
            super().__init__()
            self.reply = reply

    class Refused(Message):
        """A send was refused: the dashboard says why (the deciding rule)."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    class Sent(Message):
        """`sessions_send` returned."""

        def __init__(self, result: dict[str, Any], generation: int, shown_key: str) -> None:
            super().__init__()
            self.result = result
            self.generation = generation  # which of the composer's views it belongs to
            self.shown_key = shown_key

    class SentTo(Message):
        """The operator's send reached `key` (its canonical key; not refused): the screen watches it
        under the `sends` default on every backend, a ledger or none (an OpenClaw gateway keeps none here)."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    def __init__(
        self,
        backend: Backend,
        requester: Callable[[], Requester],
        display_key: Callable[[str], str],
        **kwargs: Any,
    ) -> None:
        """`requester` says who sends at the moment of sending; `display_key` names a key for the viewer."""
        super().__init__(**kwargs)
        self.backend = backend
        self.requester = requester
        self.display_key = display_key
        self.key: str | None = None
        self.shown_key = ""
        self.run_id: str | None = None
        self.last_status: str | None = None
        self.waiting_run: str | None = None
        self.deadline_ms = 0
        self.timeout_s = 0
        self._timer: Timer | None = None
        self._started = 0.0
        self._in_flight = False
        self._early: list[EngineEvent] = []
        self._log: list[Text] = []
        self._generation = 0  # moves when the target or the requester changes: old results are not shown
        self._late: dict[str, str] = {}  # run id -> session shown, of sends that timed out: replies may follow
        self._ended: dict[str, RunEnded] = {}  # the latest runs that ended (one may end before its Sent lands)

    def compose(self) -> ComposeResult:
        with Horizontal(id="composer-head"):
            yield Label("Send to", classes="dim-label")
            yield Static(span("(no session)", style="dim"), id="composer-target")
            yield Label("wait", classes="dim-label")
            yield Field(str(self.backend.send_wait), id="timeout", type="integer", max_length=4)
            yield Label("s", classes="dim-label")
            yield Button("Send ^s", id="send-button", compact=True)
        yield Field(placeholder=PLACEHOLDER, id="message")
        with Horizontal(id="composer-status"):
            yield ProgressBar(total=DEFAULT_TIMEOUT, show_eta=False, show_percentage=False, id="countdown")
            yield Static("", id="outcome")
        yield Static("", id="send-log")

    def on_mount(self) -> None:
        self.query_one("#countdown", ProgressBar).display = False
        self.query_one("#composer-status").display = False  # no empty rows until there is news
        self.query_one("#send-log").display = False
        self.query_one("#timeout").tooltip = WAIT_TOOLTIP

    def action_step_field(self, step: int) -> None:
        """tab / shift+tab in reading order (message, wait, Send), then on out of the composer."""
        fields = [self.query_one(selector) for selector in TAB_ORDER]
        focused = self.app.focused
        if focused not in fields:
            raise SkipAction()
        index = fields.index(focused) + step
        # Focused at once (not `focus()`, deferred behind the keys already queued: ui/focus_keys.py).
        if 0 <= index < len(fields):
            self.screen.set_focus(fields[index])
            return
        chain = self.screen.focus_chain
        mine = [chain.index(field) for field in fields if field in chain]
        outside = chain[(max(mine) + 1) % len(chain)] if step > 0 else chain[min(mine) - 1]
        self.screen.set_focus(outside)

    def set_target(self, key: str | None, shown: str) -> None:
        """Send to `key` from now on; another session's outcome and lines go, and its wait: the wait
        goes back to the default (a long wait set for one slow session is not every send's)."""
        if key != self.key:
            self.clear_results()
            self.query_one("#timeout", Input).value = str(self.backend.send_wait)
        self.key, self.shown_key = key, shown
        target = self.query_one("#composer-target", Static)
        target.update(literal(shown, style="bold") if key else span("(no session)", style="dim"))

    def timeout_value(self) -> int:
        raw = self.query_one("#timeout", Input).value.strip()
        try:
            return max(0, int(raw))
        except ValueError:
            return self.backend.send_wait

    @on(Input.Submitted, "#message")
    @on(Input.Submitted, "#timeout")  # enter in the wait sends too: the message is typed, the wait set
    @on(Button.Pressed, "#send-button")
    def _submit(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
        self.send()

    def send(self) -> None:
        box = self.query_one("#message", Input)
        text = box.value.strip()
        if not text:
            self.app.notify("Type a message first.", severity="warning")
            return
        if self.key is None:
            self.app.notify("Pick a session in the table first.", severity="warning")
            return
        if is_send_command(text) and Capability.CONTROL not in self.backend.capabilities:
            self._outcome(literal(self.backend.not_offered(Capability.CONTROL)))  # the typed text is kept
            return
        box.value = ""
        if is_send_command(text):
            self._owner_command(self.key, text)
            return
        self._begin(self.timeout_value())
        self._send(self.key, text, self.timeout_value(), self._generation, self.shown_key)

    def clear_results(self) -> None:
        """Forget the last send's countdown, outcome and lines (a new target or requester): they
        were about another session. A send still on its way reports in a toast instead."""
        self._generation += 1
        self._stop_countdown()
        self._log = []
        self._show_log(Text())
        self._outcome(Text())
        self.run_id = self.waiting_run = self.last_status = None
        self._in_flight = False
        self._early = []

    def _begin(self, timeout: int) -> None:
        """A new send: clear the last one's lines, start the countdown."""
        self._log = []
        self._show_log(Text())
        self.run_id = None
        self.waiting_run = None
        self._in_flight = True
        self._early = []
        self._started = time.monotonic()
        if timeout > 0:
            self._start_countdown(timeout)

    @work(group="owner-command", exit_on_error=False)
    async def _owner_command(self, key: str, text: str) -> None:
        """The operator's `/send on|off|inherit` (it writes the store, off the loop in the backend): its
        reply is the outcome."""
        reply = await self.backend.owner_command(key, text)
        self.post_message(self.OwnerReplied(reply or ""))

    def on_composer_owner_replied(self, event: OwnerReplied) -> None:
        self._outcome(literal(event.reply))

    @work(exclusive=True, group="send", exit_on_error=False)
    async def _send(self, key: str, text: str, timeout: int, generation: int, shown_key: str) -> None:
        requester = self.requester()
        try:
            result = await self.backend.call_tool(
                "sessions_send", {"sessionKey": key, "message": text, "timeoutSeconds": timeout}, requester
            )
        except ToolInputError as exc:
            result = {"status": "error", "error": str(exc)}
        except StoreDamaged as exc:  # nothing was written: the outcome says so, and the app why
            result = {"status": "error", "error": "not written: the state database is damaged"}
            self.app.post_message(StoreDamageFound(str(exc), refused=True))
        if result.get("status") in ("ok", "accepted", "timeout"):
            self.post_message(self.SentTo(key))  # a send made here, whoever it was made as
        self.post_message(self.Sent(result, generation, shown_key))

    def on_composer_sent(self, event: Sent) -> None:
        event.stop()
        if event.result.get("status") == "forbidden" and self.key:
            self.post_message(self.Refused(self.key))

        run_id = event.result.get("runId")
        late_id = run_id if event.result.get("status") == "timeout" and isinstance(run_id, str) else None
        if late_id:
            self._late[late_id] = event.shown_key
        if event.generation != self._generation:  # the composer moved on: say it where it is seen
            self.app.notify(
                f"Send to {event.shown_key}: {event.result.get('status')}",
                title="sessions_send",
                timeout=6,
                markup=False,
            )
        else:
            self._stop_countdown()
            self.run_id = run_id
            self.last_status = event.result.get("status")
            self._in_flight = False
            self._show_result(event.result, time.monotonic() - self._started)
            early, self._early = self._early, []
            for engine_event in early:  # what the send's background work said before the result arrived
                self.on_engine_event(engine_event)
        if late_id and late_id in self._ended:  # it ended while the result was on its way
            self._late_reply(self._ended[late_id])

    def _start_countdown(self, timeout: int) -> None:
        self.timeout_s = timeout
        self.deadline_ms = self.backend.now() + timeout * 1000
        bar = self.query_one("#countdown", ProgressBar)
        bar.update(total=timeout, progress=0)
        bar.display = True
        self._tick()
        self._timer = self.set_interval(0.2, self._tick)

    def _stop_countdown(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.query_one("#countdown", ProgressBar).display = False

    def _tick(self) -> None:
        left_ms = max(0, self.deadline_ms - self.backend.now())
        left = (left_ms + 999) // 1000
        self.query_one("#countdown", ProgressBar).update(progress=self.timeout_s - left_ms / 1000)
        text = span("waiting ", style="bold")
        text.append(f"{left} s left", style=themed("bold $warning"))
        if self.waiting_run:
            text.append(f"   ·   run {self.waiting_run[:8]}… running", style="dim")
        self._outcome(text)

    def show_status(self, text: Text) -> bool:
        """Another action's outcome on the state line (the stop's), unless a send is counting down
        there; returns whether it is shown."""
        if self._timer is not None:
            return False
        self._outcome(text)
        return True

    def _outcome(self, text: Text) -> None:
        """The send's state line (with the countdown while it waits); its row is gone when empty."""
        self.query_one("#outcome", Static).update(text)
        self.query_one("#composer-status").display = bool(text.plain) or self.query_one("#countdown").display

    def _show_result(self, result: dict[str, Any], seconds: float) -> None:
        status = result.get("status")
        if status == "ok":
            text = span("ok", style="bold $success") + span(f" · replied in {seconds:.1f} s", style="")
            reply = result.get("reply")
            text.append("\n")
            text.append_text(literal(one_line(reply, 300)) if reply else span("(no new reply)", style="dim"))
        elif status == "accepted":
            text = span("accepted", style="bold $text-primary") + Text(" · run goes on")
        elif status == "timeout":
            text = span("timeout", style="bold $warning") + Text(" · run goes on, see transcript")
        elif status == "forbidden":
            text = span("forbidden", style="bold $error") + Text(" · ") + literal(result.get("error", ""))

        else:
            text = Text(str(status), style=themed("bold $error")) + Text(" · ") + literal(result.get("error", ""))
        if SELF_SEND in str(result.get("error", "")):
            text.append("\n")
            text.append_text(span(self._self_send_hint(), style="dim"))
        self._outcome(text)

    def _self_send_hint(self) -> str:
        """How to reply into the session the tools run as: as another session (the acting-as key)."""
        key = next(
            (
                self.app.get_key_display(active.binding)
                for active in self.screen.active_bindings.values()
                if active.binding.action == "acting_as"
            ),
            "a",
        )
        return (
            f"To reply there, act as another session ({key}) and send from it, or reach the gateway "
            "over its WebSocket (--remote ws://…), where a send goes in as its operator."
        )

    def on_engine_event(self, event: EngineEvent) -> None:
        """Engine events about this composer's send: its run, ping-pong turns, the announce."""
        if (
            isinstance(event, RunStarted)
            and self._timer is not None
            and event.session_key == self.key
            and event.lane == "nested"
            and self.waiting_run is None
        ):
            self.waiting_run = event.run_id
            return
        if isinstance(event, RunEnded):
            self._ended = {**dict(list(self._ended.items())[-(ENDED_KEPT - 1) :]), event.run_id: event}
            if event.run_id in self._late:
                self._late_reply(event)
                return
        if self.run_id is None:
            if self._in_flight and isinstance(event, (SendProgress, Announced)):
                self._early.append(event)
            return
        if isinstance(event, SendProgress) and event.run_id == self.run_id:
            if event.phase == "ping_pong":
                speaker = self.display_key(event.speaker or "")
                line = span(f"↔ turn {event.turn} of {event.max_turns} · ", style="dim")
                line.append_text(literal(speaker, style="bold"))
                line.append(": ")
                line.append_text(literal(one_line(self.backend.redact(event.text or ""), 160)))
                if event.detail.get("stopped"):
                    line.append("  (stops)", style="dim")
                self._add_log(line)
            elif event.phase == "reply" and event.text and self.last_status != "ok":
                self._add_log(span("reply · ", style="dim") + literal(one_line(self.backend.redact(event.text), 200)))
            elif event.phase == "announce" and event.detail.get("skipped"):
                self._add_log(span("announce · stays silent (ANNOUNCE_SKIP)", style="dim"))
        elif isinstance(event, Announced) and event.run_id == self.run_id:
            where = _DELIVERY.get(event.delivery or "", event.delivery or "")
            self._add_log(
                span(f"announce ({where}) · ", style="bold $accent")
                + literal(one_line(self.backend.redact(event.text), 200))
            )
        elif isinstance(event, PolicyRefused) and event.session_key in (self.key,):
            self._add_log(span("forbidden · ", style="bold $error") + literal(event.reason))

    def _late_reply(self, event: RunEnded) -> None:
        """The run of a send that timed out ended: in the outcome while it shows that send, else a
        toast. Its reply is in the transcript (read there, through sessions_history's redaction)."""
        shown = self._late.pop(event.run_id)
        run = f"run {event.run_id[:8]}"
        if event.status == "ok":
            said = f"reply arrived after the timeout · {run} · see the transcript"
        else:
            error = self.backend.redact(event.error) if event.error else ""  # a run's error may quote a secret
            said = f"{run} ended after the timeout: {event.status}" + (f" · {error}" if error else "")
        if event.run_id == self.run_id:
            self._outcome(literal(said, style="bold $success" if event.status == "ok" else "bold $error"))
        else:
            self.app.notify(f"{shown}: {said}", title="sessions_send", timeout=10, markup=False)

    def _add_log(self, line: Text) -> None:
        self._log = (self._log + [line])[-LOG_LINES:]
        self._show_log(Text("\n").join(self._log))

    def _show_log(self, text: Text) -> None:
        log = self.query_one("#send-log", Static)
        log.update(text)
        log.display = bool(text.plain)
