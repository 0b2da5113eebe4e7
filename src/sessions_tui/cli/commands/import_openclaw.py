"""`sessions-tui import-openclaw DIR [--follow | --adopt] [--json]`: import an OpenClaw state directory (its
problems on stderr, the files read and a summary line on stdout), follow it, told as it goes, one line per
change, or adopt it (its sessions become the engine's: `adopted N sessions (M lines) from DIR`, and a line
per adopted session changed both here and in OpenClaw since, kept as the engine has it).

Adopting an OpenClaw this state directory follows is a refusal (exit 1): the input is sound, the state
forbids it, as the session operations refuse a session an OpenClaw owns; `--adopt` with `--follow`, or
on the state directory of `--openclaw` (the one that follows it), is bad input (exit 2).

With `--follow`, the first tick is the import (its summary line, as without `--follow`); after that, each session
that changed gets a line with the time and the lines it gained. A failure is said once when it
starts and once when it is over; problems with the data go to stderr, each once. A state database
found damaged ends the follow: one line naming it and what to do, exit 2. Keys, paths
and problems come from the followed files, so each line is printed with its controls made visible.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import OperationRefused
from sessions_tui.backend.toolkit.openclaw import FollowTick
from sessions_tui.cli.backends import open_backend
from sessions_tui.cli.errors import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, UsageError, redacted_line
from sessions_tui.counting import plural
from sessions_tui.terminal_text import visible_line


class FollowPrinter:
    def __init__(self, out: IO[str], err: IO[str], *, show_key: Callable[[str], str]) -> None:
        """`show_key`: how a key is shown (`Backend.display`: redacted, a key may hold a secret)."""
        self.out = out
        self.err = err
        self.show_key = show_key
        self.failing: list[str] = []
        self.stopped: str | None = None

    def tick(self, tick: FollowTick) -> None:
        if tick.stopped is not None:
            self.stopped = tick.stopped
            self.say(self.err, f"sessions-tui: {tick.stopped}")
            return
        report = tick.report
        for problem in report.problems:
            self.say(self.err, problem)
        for source in report.sources:
            self.say(self.out, f"read {source}")
        if tick.failures != self.failing:
            if tick.failures:
                for failure in tick.failures:
                    self.say(self.err, f"{_now()} follow failed: {failure} (retrying)")
            else:
                self.say(self.err, f"{_now()} following again")
            self.failing = tick.failures
        if tick.first and not tick.failures:
            self.say(self.out, report.summary())
            return
        for key, lines in report.changed.items():
            self.say(
                self.out, f"{_now()}  {self.show_key(key)}  " + (f"+{plural(lines, 'line')}" if lines else "changed")
            )

    @staticmethod
    def say(stream: IO[str], text: str) -> None:
        stream.write(visible_line(text) + "\n")
        stream.flush()


def _now() -> str:
    return time.strftime("%H:%M:%S")


async def follow_until_stopped(backend: Backend, root: Path, out: IO[str], err: IO[str]) -> bool:
    """Follow until Ctrl+C or SIGTERM, the tick in progress finishing first (True), or until the
    state database is found damaged (False, said on `err`)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    printer = FollowPrinter(out, err, show_key=backend.display)
    printer.say(out, f"following OpenClaw at {root} (Ctrl+C to stop)")
    try:
        await backend.follow_openclaw(root, stop, printer.tick, own_connection=False)
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
    if printer.stopped is not None:
        return False
    printer.say(out, "stopped")
    return True


def run(opts: argparse.Namespace) -> int:
    from sessions_tui.backend.toolkit.openclaw import NoOpenClawState, require_agents

    if opts.follow and (opts.adopt or opts.json):
        raise UsageError(f"--follow and {'--adopt' if opts.adopt else '--json'} do not go together")
    if opts.adopt and getattr(opts, "openclaw", None):
        raise UsageError("--adopt: the state directory of --openclaw follows that OpenClaw; adopt without --openclaw")
    root = Path(opts.source).expanduser()
    backend = open_backend(opts)
    try:
        if opts.follow:
            require_agents(root)
            return EXIT_OK if asyncio.run(follow_until_stopped(backend, root, sys.stdout, sys.stderr)) else EXIT_USAGE
        report = asyncio.run(backend.import_openclaw(root, adopt=opts.adopt))
    except NoOpenClawState as exc:
        raise UsageError(str(exc)) from exc
    except OperationRefused as exc:
        print(f"sessions-tui: {visible_line(str(exc))}", file=sys.stderr)
        return EXIT_REFUSED
    finally:
        backend.close()
    if report.adopted is not None:  # a key is shown as every face shows one (`display`: redacted)
        shown = [k.model_copy(update={"key": backend.display(k.key)}) for k in report.adopted.kept]
        report = report.model_copy(update={"adopted": report.adopted.model_copy(update={"kept": shown})})
    if opts.json:
        print(json.dumps(report.model_dump(exclude_none=True), ensure_ascii=False))
        return EXIT_OK
    for problem in report.problems:
        print(visible_line(problem), file=sys.stderr)
    for source in report.sources:
        print(f"read {visible_line(source)}")
    print(report.summary)
    if report.adopted is not None:
        adopted = report.adopted
        lines = plural(adopted.lines, "line")
        print(f"adopted {plural(adopted.sessions, 'session')} ({lines}) from {redacted_line(str(root))}")
        for session in adopted.kept:
            print(
                f"{visible_line(session.key)}: changed here and in OpenClaw since it was adopted; kept "
                f"as it is here ({plural(session.openclaw_lines, 'line')} from OpenClaw not taken)"
            )
    return EXIT_OK
