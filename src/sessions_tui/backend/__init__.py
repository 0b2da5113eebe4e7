"""The one way the faces (the dashboard, the command line, the server) reach the engine.

It exports nothing itself: a face imports each name from the public module it belongs to.

- protocols.py: `Backend`, the seam, composed of one protocol per capability.
- types.py: the seam's own types (`Capability`, `Requester`, `BackendUnavailable`, …).
- vocabulary.py: the engine's value types the seam carries (events, ledger entries, search hits, …).
- keys.py, inputs.py, matching.py, redaction.py: what a face reads and shows as the engine does.
- export.py, openclaw.py, state_dir.py: export, OpenClaw state, the local state directory.
- local.py, remote.py, openclaw_gateway.py, several.py: the backends (wire.py: a server's words).

Each is loaded when first imported, so a command loads only what it touches: `sessions-tui tool`
never loads the dashboard's reads or the OpenClaw side.
"""
