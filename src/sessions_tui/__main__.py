"""`python -m sessions_tui` runs the command line."""

from sessions_tui.cli import main

raise SystemExit(main())
