"""OpenClaw's gateway as a backend: over its own WebSocket protocol (protocol 4), live (`live`:
`GatewaySocketBackend`), or, as a fallback for a gateway that refuses WebSocket clients, over its
HTTP tool API, polled (`http`: `OpenClawGatewayBackend`).

Beneath them, by concept: `link` (the client of the WebSocket protocol: `frames`, the wire's shapes;
`identity`, this install's device key and the deviceTokens gateways issue it; `refusals`, what a
refusal means, one line each; `connection`, handshake, calls, events, reconnecting), `reading` (what a
face reads: the `roster`, `runs` and open `transcripts`, the rows through `listing`, sorted as the
table sorts by `backend.row_sort`, live status, usage) and `acting` (what the operator does: send,
steer, stop, the session operations, the engine's sender). Only a face on a gateway loads this
package; `websockets` and `cryptography` load with `link.connection` and `link.identity` alone.
"""
