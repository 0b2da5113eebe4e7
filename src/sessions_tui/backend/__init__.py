"""The one way the faces (the dashboard, the command line, the server) reach the engine.

It exports nothing itself: a face imports each name from the public module it belongs to.

- contract/: `Backend`, the seam, composed of one protocol per capability (`protocols`), and the
  seam's own types (`types`: `Capability`, `Requester`, `BackendUnavailable`, …).
- values/: the engine's value types the seam carries (`vocabulary`: events, ledger entries, …;
  `views`: what the reads answer; `rows`: the rows' accessors).
- toolkit/: what a face reads and shows as the engine does (keys, inputs, matching, redaction,
  export, OpenClaw state, the state directory).
- local/, remote/, gateway/, several.py: the backends (remote/wire.py: a server's words).

Each is loaded when first imported, so a command loads only what it touches: `sessions-tui tool`
never loads the dashboard's reads or the OpenClaw side.
"""
