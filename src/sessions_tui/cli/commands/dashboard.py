"""`sessions-tui` with no command: the dashboard, on the backend the options choose. The one module
of the command line that imports the Textual app, and only when it runs, and only on a terminal."""

from __future__ import annotations

import argparse
import sys
import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING

from sessions_tui.backend.toolkit.keys import looks_like_session_key
from sessions_tui.cli.backends import face_backend, warn_left_pending
from sessions_tui.cli.errors import EXIT_OK, UsageError
from sessions_tui.cli.options import remote_urls
from sessions_tui.cli.remote import open_remote_unwaited

if TYPE_CHECKING:
    from sessions_tui.backend.contract.protocols import Backend


def connecting(opts: argparse.Namespace) -> Future[Backend]:
    """The servers of `--remote` connected on a thread of their own (a daemon: Ctrl+C while a
    gateway waits for its owner's approval is not held up by it), so the dashboard's code loads
    while they answer: most of connecting is waiting on the network."""
    future: Future[Backend] = Future()

    def connect() -> None:
        try:
            future.set_result(face_backend(opts))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, which raises it
            future.set_exception(exc)

    threading.Thread(target=connect, name="connecting", daemon=True).start()
    return future


NO_TERMINAL = (
    "the dashboard needs a terminal (stdin and stdout): use `tool`, `watch` or `serve` instead "
    "(sessions-tui --help lists every command)"
)


def on_a_terminal() -> bool:
    """Whether both stdin and stdout are a terminal: the dashboard reads keys from one and draws on
    the other. Without (`sessions-tui </dev/null >out`, a pipe, cron) Textual would write its escape
    codes elsewhere and wait for keys that never come."""
    return all(stream is not None and stream.isatty() for stream in (sys.stdin, sys.stdout))


def run(opts: argparse.Namespace) -> int:
    if not on_a_terminal():  # before Textual loads or a server is asked anything
        raise UsageError(NO_TERMINAL)
    unwaited = open_remote_unwaited(opts) if remote_urls(opts) else None
    pending = connecting(opts) if remote_urls(opts) and unwaited is None else None
    from sessions_tui.ui.app import SessionsApp

    if unwaited is not None:
        backend = unwaited
        opts.openclaw_root = None  # the servers' sessions: nothing followed here (as face_backend says)
    else:
        backend = pending.result() if pending is not None else face_backend(opts)
    as_key = opts.as_key or "main"
    if not looks_like_session_key(as_key):
        raise UsageError(f"--as: not a session key: {as_key!r}")
    chosen = opts.as_key is not None or opts.sandboxed  # the operations are the operator's without either
    app = SessionsApp(backend, acting_as=as_key, sandboxed=opts.sandboxed, chosen=chosen, openclaw=opts.openclaw_root)
    app.run()
    if app.start_refused is not None:  # a gateway connecting meanwhile refused: one line, as before the screens
        backend.close()
        raise UsageError(app.start_refused)
    warn_left_pending(backend)  # once the terminal is the shell's again
    return EXIT_OK
