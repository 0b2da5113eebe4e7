"""`python -m sessions_tui` runs the command line."""

from sessions_tui.cli import entry

raise SystemExit(entry())
