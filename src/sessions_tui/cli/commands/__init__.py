"""The subcommands of `sessions-tui`, one module each, named in `sessions_tui.cli.HANDLERS`; each
module's `run(opts)` runs its command and returns the exit status."""
