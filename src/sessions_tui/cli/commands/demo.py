"""`sessions-tui demo`: write the demo into its own state directory (once) and list its sessions."""

from __future__ import annotations

import argparse
import asyncio

from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.values.rows import display_name
from sessions_tui.cli.backends import open_backend
from sessions_tui.cli.errors import EXIT_OK
from sessions_tui.terminal_text import visible_line


def run(opts: argparse.Namespace) -> int:
    opts.demo = True
    backend = open_backend(opts)
    try:
        result = asyncio.run(backend.call_tool("sessions_list", {}, Requester()))
    finally:
        backend.close()
    print(f"state: {visible_line(backend.location)}")
    for row in result["sessions"]:
        label = display_name(row)
        print(visible_line(f"{row['key']:<48} {row['kind']:<6} {row['channel']:<9} {label}"))
    return EXIT_OK
