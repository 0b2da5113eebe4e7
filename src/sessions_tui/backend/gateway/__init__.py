"""OpenClaw's gateway as a backend: today over its HTTP tool API (`http`: `OpenClawGatewayBackend`,
its rows sorted as the table sorts them: `row_sort`); and a client of its own WebSocket protocol
(protocol 4), on which the next backend stands:

`frames` (the wire's shapes), `identity` (this install's device key and the deviceTokens gateways
issue it), `refusals` (what a refusal means, one line each), `connection` (the client: handshake,
calls, events, reconnecting). Only a face on a gateway loads this package; `websockets` and `cryptography`
load with `connection` and `identity` alone.
"""
