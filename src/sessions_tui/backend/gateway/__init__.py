"""A client of OpenClaw's gateway over its own WebSocket protocol (protocol 4).

`frames` (the wire's shapes), `identity` (this install's device key and the deviceTokens gateways
issue it), `refusals` (what a refusal means, one line each), `connection` (the client: handshake,
calls, events, reconnecting). Only the gateway backend loads this package: `websockets` and
`cryptography` load with it.
"""
