"""`sessions-tui` with no command: the dashboard, on the backend the options choose. The one module
of the command line that imports the Textual app, and only when it runs."""

from __future__ import annotations

import argparse

from sessions_tui.backend.toolkit.keys import looks_like_session_key
from sessions_tui.cli.backends import face_backend, warn_left_pending
from sessions_tui.cli.errors import EXIT_OK, UsageError


def run(opts: argparse.Namespace) -> int:
    from sessions_tui.ui.app import SessionsApp

    backend = face_backend(opts)
    as_key = opts.as_key or "main"
    if not looks_like_session_key(as_key):
        raise UsageError(f"--as: not a session key: {as_key!r}")
    SessionsApp(backend, acting_as=as_key, sandboxed=opts.sandboxed, openclaw=opts.openclaw_root).run()
    warn_left_pending(backend)  # once the terminal is the shell's again
    return EXIT_OK
