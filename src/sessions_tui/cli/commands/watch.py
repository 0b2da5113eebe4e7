"""`sessions-tui watch`: what happens in the sessions, one line each as it happens, until Ctrl+C.

Session changes (new, status, tokens, label), messages, streamed text (word by word, only what its
redaction so far shows), runs starting and ending, sends' progress and announces, from any backend:
its events as they come and, where another process's writes show only as the store moving (a local
state directory: `pushes_events` false), the store's `data_version` polled four times a second off
the loop and what changed read (watching/changes.py). `--openclaw DIR` follows that OpenClaw as
the dashboard does. `--json`: one JSON object a line (watching/lines.py). Lines are flushed one by
one; Ctrl+C and SIGTERM end it with exit 0, and so does a reader that closes the pipe. `--notify`:
only the notices the dashboard would give, one line each (watching/notices.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path
from typing import TextIO

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable, Requester
from sessions_tui.backend.toolkit.keys import looks_like_session_id, looks_like_session_key
from sessions_tui.backend.toolkit.openclaw import FollowTick
from sessions_tui.backend.toolkit.status_board import StatusBoard
from sessions_tui.backend.values.vocabulary import (
    Announced,
    DeliveryChanged,
    EngineEvent,
    FollowStatus,
    MessageAppended,
    RunStreamed,
    SendProgress,
    SessionChanged,
    StoreChanged,
    StoreError,
)
from sessions_tui.cli.arguments import requester_of
from sessions_tui.cli.backends import face_backend
from sessions_tui.cli.errors import UsageError
from sessions_tui.cli.watching.changes import StoreChanges
from sessions_tui.cli.watching.lines import SAID_EVENTS, Record, event_record
from sessions_tui.cli.watching.notices import NoticeLines, status_board
from sessions_tui.terminal_text import visible_line

POLL_SECONDS = 0.25
"""How often a local state directory's `data_version` is read (as the dashboard does)."""


class OutputClosed(Exception):
    """The reader of standard output went away (`watch | head`)."""


async def session_target(backend: Backend, value: str | None) -> str | None:
    """`--session` as the events name it (canonical): a key in any spelling, `main`, or a sessionId."""
    if value is None:
        return None
    text = value.strip()
    if not text or text == "current" or not (looks_like_session_key(text) or looks_like_session_id(text)):
        raise UsageError(f"--session: not a session key or sessionId: {value!r}")
    key = await backend.owner_key(text)
    if key is not None:
        return key
    if looks_like_session_key(text):
        return backend.canonical(text)  # a session still to come
    raise UsageError(f"--session: no session has the sessionId {value!r}")


def event_keys(event: EngineEvent) -> tuple[str | None, ...]:
    """The sessions an event is about (for `--session`)."""
    if isinstance(event, SendProgress):
        return (event.target_key,)
    if isinstance(event, Announced):
        return (event.session_key, event.child_session_key)
    if isinstance(event, DeliveryChanged):
        return (event.session_key,)
    return (getattr(event, "session_key", None),)


class Watcher:
    """One watch: the backend's events and the store's changes, as records written to `out`."""

    def __init__(
        self,
        backend: Backend,
        requester: Requester,
        target: str | None,
        out: TextIO,
        *,
        as_json: bool,
        notify: bool = False,
    ) -> None:
        self.backend = backend
        self.target = target
        self.out = out
        self.as_json = as_json
        self.changes = StoreChanges(backend, requester, backend.now(), self.wanted)
        self.streamed = backend.stream_redaction()
        self.stop = asyncio.Event()
        self.closed = False  # the reader went away
        self._queue: asyncio.Queue[EngineEvent] = asyncio.Queue()
        self._look_pending = False
        self._follow_failure: str | None = None
        self._warned: set[str] = set()
        self.notices = NoticeLines(backend, self.wanted) if notify else None
        self._board: StatusBoard | None = None  # with --notify: the statuses its notices follow

    def wanted(self, key: str | None) -> bool:
        return self.target is None or key == self.target

    # -- what comes in --------------------------------------------------------------------------

    async def run(self, openclaw: Path | None) -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, self.stop.set)
        polled = not self.backend.pushes_events
        version = await self.backend.data_version() if polled else 0
        await self.changes.baseline()

        def deliver(event: EngineEvent) -> None:  # from any thread
            loop.call_soon_threadsafe(self._queue.put_nowait, event)

        if self.notices is not None:
            await self.notices.baseline()
            self._board = status_board(self.backend, deliver)
            await self._board.start()  # its seed is no news (previous None): only what changes after

        unsubscribe = self.backend.subscribe(deliver)
        follow_stop = asyncio.Event()
        tasks = [asyncio.create_task(self._consume())]
        if polled:
            tasks.append(asyncio.create_task(self._poll(version)))
        following = None
        if openclaw is not None:
            following = asyncio.create_task(self._follow(openclaw, follow_stop))
        print(f"watching {visible_line(self.backend.location)} (Ctrl+C stops)", file=sys.stderr, flush=True)
        try:
            await self.stop.wait()
        finally:
            unsubscribe()
            follow_stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if following is not None:
                await asyncio.gather(following, return_exceptions=True)
            if self._board is not None:
                self._board.close()
            if self.notices is not None:
                await self.notices.desktop.wait()
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(signum)

    async def _poll(self, version: int) -> None:
        """Another process's commits: the store's `data_version`, read off the loop by the backend."""
        while True:
            await asyncio.sleep(POLL_SECONDS)
            try:
                now = await self.backend.data_version()
            except Exception as exc:  # noqa: BLE001 - tried again at the next tick
                self._warn("poll", f"reading the state failed: {exc}")
                continue
            if now != version:
                version = now
                if not self._look_pending:
                    self._look_pending = True
                    self._queue.put_nowait(StoreChanged(ts=self.backend.now()))
                if self._board is not None:
                    self._board.on_event(StoreChanged(ts=self.backend.now()))  # its seed read again

    async def _follow(self, root: Path, stop: asyncio.Event) -> None:
        """Follow an OpenClaw as the dashboard does: through a store connection of its own, so its
        writes show as another process's; how it goes, as `follow_status` records."""
        loop = asyncio.get_running_loop()

        def ticked(tick: FollowTick) -> None:
            loop.call_soon_threadsafe(self._followed, root, tick)

        try:
            await self.backend.follow_openclaw(root, stop, ticked, own_connection=True)
        except (BackendUnavailable, StoreError) as exc:
            self._warn("follow", f"following {root} failed: {exc}")

    def _followed(self, root: Path, tick: FollowTick) -> None:
        failure = "stopped: the state database is damaged" if tick.stopped else "; ".join(tick.failures) or None
        now = self.backend.now()
        if tick.first or failure != self._follow_failure:
            self._follow_failure = failure
            self._queue.put_nowait(FollowStatus(ts=now, root=str(root), failure=failure))
        if tick.first:
            return  # every session is looked at once: the import just before brought them up to date
        for key, lines in tick.report.changed.items():  # a transcript may grow with its entry unchanged
            self._queue.put_nowait(SessionChanged(ts=now, session_key=key))
            if lines:
                self._queue.put_nowait(MessageAppended(ts=now, session_key=key))

    # -- what goes out --------------------------------------------------------------------------

    async def _consume(self) -> None:
        while True:
            event = await self._queue.get()
            try:
                records = await self.records_of(event)
            except Exception as exc:  # noqa: BLE001 - a read that failed (a server gone): said once, and on
                self._warn(type(exc).__name__, f"reading what changed failed: {exc}")
                continue
            try:
                for record in records:
                    self.emit(record)
            except OutputClosed:
                self.closed = True
                self.stop.set()
                return

    async def records_of(self, event: EngineEvent) -> list[Record]:
        if self.notices is not None:
            if isinstance(event, StoreChanged):
                self._look_pending = False
            return await self.notices.records_of(event)
        if isinstance(event, StoreChanged):
            self._look_pending = False
            return await self.changes.look()
        if isinstance(event, SessionChanged):
            return await self.changes.session(event.session_key)
        if isinstance(event, MessageAppended):
            if event.text is not None and event.seq is not None:  # the event brought it: said at once
                return self.changes.carried(event.session_key, event.ts, event.role, event.seq, event.text)
            return await self.changes.tail(event.session_key)
        wanted = any(self.wanted(key) for key in event_keys(event) if key) or isinstance(event, FollowStatus)
        delta = ""
        if self.streamed is not None:
            delta = self.streamed.observe(event, shown=wanted)
        elif isinstance(event, RunStreamed):
            delta = event.delta  # the server passed on only what may be shown
        if not wanted or not isinstance(event, SAID_EVENTS) or (isinstance(event, RunStreamed) and not delta):
            return []
        return [event_record(event, shown=self._shown, redact=self.backend.redact, now=self.backend.now(), delta=delta)]

    def _shown(self, key: str) -> str:
        return self.backend.display(key)

    def emit(self, record: Record) -> None:
        line = record.json_line() if self.as_json else record.text_line()
        try:
            self.out.write(line + "\n")
            self.out.flush()
        except BrokenPipeError as exc:
            raise OutputClosed from exc

    def _warn(self, what: str, line: str) -> None:
        if what not in self._warned:
            self._warned.add(what)
            print(f"warning: {visible_line(line)}", file=sys.stderr, flush=True)


async def _watch(opts: argparse.Namespace) -> int:
    backend = face_backend(opts)
    watcher = None
    try:
        openclaw = opts.openclaw_root
        if openclaw is not None:  # brought up to date first: the follow then says only what changes
            for problem in (await backend.import_openclaw(openclaw)).problems:
                print(f"warning: {visible_line(problem)}", file=sys.stderr)
        await backend.start()
        requester = requester_of(backend, opts.as_key, opts.sandboxed)
        target = await session_target(backend, opts.session)
        watcher = Watcher(backend, requester, target, sys.stdout, as_json=opts.json, notify=opts.notify)
        await watcher.run(openclaw)
    finally:
        await backend.aclose()
    if watcher is not None and watcher.closed:
        _quiet_stdout()
    return 0


def _quiet_stdout() -> None:
    """The reader went away: what is left in stdout's buffer goes nowhere, not into an error at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def run(opts: argparse.Namespace) -> int:
    return asyncio.run(_watch(opts))
