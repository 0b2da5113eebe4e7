"""The client of an OpenClaw gateway's WebSocket protocol: its frames, the handshake and staying connected,
this install's device identity, and what a refusal means."""
