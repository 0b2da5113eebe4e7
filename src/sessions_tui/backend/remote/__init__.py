"""The remote backend: an HTTP client of a `sessions-tui serve` (`backend`), its event stream
(`events`), its I/O thread (`io_thread`), and the operator API's bodies it shares with the server
(`wire`)."""
