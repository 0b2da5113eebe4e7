"""`sessions-tui send`: a person's send, as the owner (docs/decisions.md D15), told as it happens.

The send is `sessions_send` (same gating, same results); a standalone `/send on|off|inherit`
is the owner's command instead. Then it follows the background work — ping-pong turns, the
announce and its delivery — until it is over. Agent text is redacted (the engine's redactor)
before it is cut to a line, and every line is printed with its control characters made visible,
so a reply carrying an escape sequence cannot retitle the terminal or write the clipboard.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path
from typing import IO, Any

from sessions_tui.backend import (
    Announced,
    Backend,
    DeliveryChanged,
    EngineEvent,
    PolicyRefused,
    Requester,
    SendProgress,
    ToolInputError,
    is_send_command,
    kind_of,
)
from sessions_tui.terminal_text import visible

_DELIVERY_WORDS = {
    "recorded": "recorded in the outbox",
    "pending": "queued for its webhook",
    "forbidden": "blocked by the send policy",
    "none": "no channel to post to",
}
EXIT_OK = 0
EXIT_REFUSED = 1
# The largest transcript line OpenClaw's store admits: a longer message could not be kept there.
MESSAGE_FILE_MAX_BYTES = 4 * 1024 * 1024


class MessageFileError(Exception):
    """`--message-file` cannot be used; the message starts with the name given."""


def _read_limited(handle: IO[bytes], name: str) -> bytes:
    data = handle.read(MESSAGE_FILE_MAX_BYTES + 1)
    if len(data) > MESSAGE_FILE_MAX_BYTES:
        raise MessageFileError(f"{name}: longer than {MESSAGE_FILE_MAX_BYTES // (1024 * 1024)} MiB")
    return data


def read_message_file(name: str) -> str:
    """A message too long for a command line, from a file, a pipe or stdin (`-`): strict UTF-8
    (invalid bytes are an error, never silently replaced), one trailing newline dropped."""
    if name == "-":
        data = _read_limited(sys.stdin.buffer, name)
    else:
        path = Path(name).expanduser()
        try:
            mode = os.stat(path).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
                raise MessageFileError(f"{name}: is {kind_of(mode)}, not a file or a pipe")
            with open(path, "rb") as handle:
                data = _read_limited(handle, name)
        except OSError as exc:
            raise MessageFileError(f"{name}: cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MessageFileError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    text = text.removeprefix("\ufeff")
    return text[:-2] if text.endswith("\r\n") else text[:-1] if text.endswith("\n") else text


def _one_line(text: str | None, limit: int = 200) -> str:
    """Controls made visible first, so a control that is also whitespace to `split` shows too."""
    flat = " ".join(visible(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class SendReporter:
    def __init__(self, backend: Backend, out: IO[str]) -> None:
        self.backend = backend
        self.out = out
        self.run_id: str | None = None
        self.status: str | None = None
        self._early: list[EngineEvent] = []

    def say(self, line: str) -> None:
        self.out.write(visible(line) + "\n")
        self.out.flush()

    def agent_text(self, text: str | None, limit: int = 200) -> str:
        """Agent text for one line: redacted whole (a secret cut in two would slip through), then cut."""
        return _one_line(self.backend.redact(text or ""), limit)

    async def send(self, key: str, message: str, *, timeout: float, requester: Requester) -> int:
        if is_send_command(message):
            target = await self.backend.owner_key(key)  # a key in any spelling, `main`, or a sessionId
            if target is None:
                self.say(f"error · No session found: {self.backend.redact(key)}")
                return EXIT_REFUSED
            self.say(await self.backend.owner_command(target, message) or "")
            return EXIT_OK
        unsubscribe = self.backend.subscribe(self._on_event)
        try:
            waiting = f" · waiting up to {timeout:g} s" if timeout > 0 else ""
            self.say(f"→ {self.backend.redact(key)}{waiting}")  # as typed (a sessionId too), redacted
            started = time.monotonic()
            params: dict[str, Any] = {"sessionKey": key, "message": message, "timeoutSeconds": timeout}
            try:
                result = await self.backend.call_tool("sessions_send", params, requester)
            except ToolInputError as exc:
                self.say(f"error · {self.backend.redact(str(exc))}")
                return EXIT_REFUSED
            self.run_id = result.get("runId")
            self._outcome(result, time.monotonic() - started)
            self.status = result.get("status")
            for event in self._early:
                if not isinstance(event, PolicyRefused):  # already told by the outcome
                    self._on_event(event)
            self._early.clear()
            await self.backend.drain()
        finally:
            unsubscribe()
        return EXIT_OK if result.get("status") in ("ok", "accepted", "timeout") else EXIT_REFUSED

    def _show(self, key: str) -> str:
        return self.backend.display(key) if key else key

    def _outcome(self, result: dict[str, Any], elapsed: float) -> None:
        status = result.get("status")
        run = (result.get("runId") or "")[:8]
        if status == "ok":
            self.say(f"ok · replied in {elapsed:.1f} s · run {run}")
            self.say("  " + self.agent_text(result.get("reply"), 2000) if result.get("reply") else "  (no new reply)")
        elif status == "accepted":
            self.say(f"accepted · the run goes on · run {run}")
        elif status == "timeout":
            self.say(f"timeout · the run goes on, see its transcript · run {run}")
        else:
            self.say(f"{status} · {_one_line(self.backend.redact(str(result.get('error'))), 2000)}")

    def _on_event(self, event: EngineEvent) -> None:
        if self.run_id is None:
            self._early.append(event)
            return
        if isinstance(event, SendProgress) and event.run_id == self.run_id:
            if event.phase == "ping_pong":
                stop = " (stops the ping-pong)" if event.detail.get("stopped") else ""
                speaker = self._show(event.speaker or "")
                self.say(f"↔ turn {event.turn} of {event.max_turns} · {speaker}: {self.agent_text(event.text)}{stop}")
            elif event.phase == "reply" and self.status != "ok":
                self.say(f"reply · {self.agent_text(event.text, 2000)}")
            elif event.phase == "announce" and event.detail.get("skipped"):
                self.say(f"announce · {self._show(event.speaker or '')} stays silent (ANNOUNCE_SKIP)")
        elif isinstance(event, Announced) and event.run_id == self.run_id:
            where = _DELIVERY_WORDS.get(event.delivery or "", event.delivery or "")
            self.say(f"announce · {self._show(event.session_key)} ({where}): {self.agent_text(event.text)}")
        elif isinstance(event, PolicyRefused):
            shown = self._show(event.session_key)
            self.say(f"forbidden · {shown}: send blocked by session policy: {self.backend.redact(event.reason)}")
        elif isinstance(event, DeliveryChanged) and event.state in ("delivered", "failed"):
            detail = f" ({event.error})" if event.error else ""
            self.say(f"delivery #{event.outbox_id} {event.state}{detail}")
