"""OpenClaw's gateway as a backend: over its own WebSocket protocol (protocol 4), live (`live`:
`GatewaySocketBackend`, with its `roster`, `runs` and open `transcripts`), or, as a fallback for a
gateway that refuses WebSocket clients, over its HTTP tool API, polled (`http`:
`OpenClawGatewayBackend`); both read their rows through `listing` (sorted as the table sorts:
`row_sort`).

The client beneath: `frames` (the wire's shapes), `identity` (this install's device key and the
deviceTokens gateways issue it), `refusals` (what a refusal means, one line each), `connection`
(handshake, calls, events, reconnecting). Only a face on a gateway loads this package; `websockets`
and `cryptography` load with `connection` and `identity` alone.
"""
