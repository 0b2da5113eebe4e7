"""`sessions-tui send KEY [MESSAGE]`: a person's send, as the owner (docs/decisions.md D15), told
as it happens.

The send is `sessions_send` (same gating, same results); a standalone `/send on|off|inherit`
is the owner's command instead. Then it follows the background work — ping-pong turns, the
announce and its delivery — until it is over. Agent text is redacted (the engine's redactor)
before it is cut to a line, and every line is printed with its control characters made visible,
so a reply carrying an escape sequence cannot retitle the terminal or write the clipboard.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import stat
import sys
import time
from pathlib import Path
from typing import IO, Any

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Capability, Requester
from sessions_tui.backend.toolkit.commands import is_send_command
from sessions_tui.backend.toolkit.inputs import kind_of
from sessions_tui.backend.values.vocabulary import (
    Announced,
    DeliveryChanged,
    EngineEvent,
    PolicyRefused,
    SendProgress,
    ToolInputError,
)
from sessions_tui.cli.arguments import requester_of
from sessions_tui.cli.backends import face_backend, warn_left_pending
from sessions_tui.cli.errors import EXIT_OK, EXIT_REFUSED, UsageError, require
from sessions_tui.terminal_text import visible, visible_line

_DELIVERY_WORDS = {
    "recorded": "recorded in the outbox",
    "pending": "queued for its webhook",
    "forbidden": "blocked by the send policy",
    "none": "no channel to post to",
}
# The largest transcript line OpenClaw's store admits: a longer message could not be kept there.
MESSAGE_FILE_MAX_BYTES = 4 * 1024 * 1024


def _read_limited(handle: IO[bytes], name: str) -> bytes:
    data = handle.read(MESSAGE_FILE_MAX_BYTES + 1)
    if len(data) > MESSAGE_FILE_MAX_BYTES:
        raise UsageError(f"--message-file {name}: longer than {MESSAGE_FILE_MAX_BYTES // (1024 * 1024)} MiB")
    return data


def read_message_file(name: str) -> str:
    """A message too long for a command line, from a file, a pipe or stdin (`-`): strict UTF-8
    (invalid bytes are an error, never silently replaced), one trailing newline dropped; `UsageError`
    naming `--message-file` when it cannot be read as that."""
    if name == "-":
        data = _read_limited(sys.stdin.buffer, name)
    else:
        path = Path(name).expanduser()
        try:
            mode = os.stat(path).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
                raise UsageError(f"--message-file {name}: is {kind_of(mode)}, not a file or a pipe")
            with open(path, "rb") as handle:
                data = _read_limited(handle, name)
        except OSError as exc:
            raise UsageError(f"--message-file {name}: cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"--message-file {name}: not UTF-8 text (byte {exc.start})") from None
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
            require(self.backend, Capability.CONTROL)
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


def message_of(opts: argparse.Namespace) -> str:
    """MESSAGE or `--message-file`, exactly one of them."""
    if opts.message_file is None:
        if opts.message is None:
            raise UsageError("send: no message: give MESSAGE or --message-file FILE")
        return str(opts.message)  # checked to be text by check_text_arguments
    if opts.message is not None:
        raise UsageError("send: MESSAGE and --message-file do not go together: give one")
    return read_message_file(opts.message_file)


# JavaScript's largest exact integer: the largest `timeoutSeconds` the tool takes (it clamps it).
_MAX_TIMEOUT = 2**53 - 1


def timeout_of(value: float) -> int:
    """`--timeout`, as `sessions_send` takes `timeoutSeconds`: a whole number of seconds, 0 or more,
    at most `_MAX_TIMEOUT`."""
    if not (math.isfinite(value) and value >= 0 and value == math.floor(value)):
        raise UsageError(f"--timeout: must be a whole number of seconds, 0 or more, not {value:g}")
    if value > _MAX_TIMEOUT:
        raise UsageError(f"--timeout: at most {_MAX_TIMEOUT} seconds (the largest the tool takes), not {value:g}")
    return int(value)


async def _run_send(opts: argparse.Namespace) -> int:
    timeout = timeout_of(opts.timeout)
    message = message_of(opts)
    backend = face_backend(opts)
    try:
        openclaw = getattr(opts, "openclaw_root", None)
        if openclaw is not None:  # its sessions as they are now, as `tool` does; the send goes to its gateway
            for problem in (await backend.import_openclaw(openclaw)).problems:
                print(f"warning: {visible_line(problem)}", file=sys.stderr)
        await backend.start()
        reporter = SendReporter(backend, sys.stdout)
        as_requester = requester_of(backend, opts.as_key, False)
        code = await reporter.send(opts.key, message, timeout=timeout, requester=as_requester)
    finally:
        await backend.aclose()
    warn_left_pending(backend)
    return code


def run(opts: argparse.Namespace) -> int:
    return asyncio.run(_run_send(opts))
