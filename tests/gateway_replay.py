"""A stand-in for the OpenClaw gateway's WebSocket on loopback, answering with the real gateway's
recorded frames (fixtures/openclaw-2026.9.6/ws), for the client's and the socket backend's tests.

`FakeGateway` plays the handshake: it sends the recorded `connect.challenge`, checks the client's
`connect` as the gateway does (the device id from the public key, the v3 signature over the
challenge), and answers with the recorded `hello-ok`, `PAIRING_REQUIRED` or `AUTH_TOKEN_MISMATCH`.
`ReplayGateway` goes on as the gateway does after the hello: it answers each method from the
recordings (the roster a page of 3 at a time, as the recorded `limitApplied` was), counts the calls
by method, and sends the events a test pushes to every live socket.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import hashlib
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from websockets.asyncio.server import ServerConnection, serve

from sessions_tui.backend.gateway.link.identity import device_auth_payload

WS = Path(__file__).resolve().parent / "fixtures" / "openclaw-2026.9.6" / "ws"


def recorded(step: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (WS / f"{step}.jsonl").read_text(encoding="utf-8").splitlines()]


def received(step: str) -> Iterator[dict[str, Any]]:
    return (line["frame"] for line in recorded(step) if line["dir"] == "<")


CHALLENGE = next(f for f in received("handshake") if f.get("event") == "connect.challenge")
HELLO = next(f for f in received("handshake") if f["type"] == "res")
PAIRING = next(f for f in received("pairing_required") if f["type"] == "res")
MISMATCH = next(f for f in received("token_mismatch") if f["type"] == "res")
SUBSCRIBED = next(f for f in received("sessions_subscribe") if f["type"] == "res")
CHANGED = [f for f in received("sessions_subscribe") if f.get("event") == "sessions.changed"]


def _raw(b64: str) -> bytes:
    return base64.urlsafe_b64decode(b64 + "=" * (-len(b64) % 4))


def verify_device_proof(params: dict[str, Any], nonce: str, ts: int) -> None:
    """What the gateway checks of `connect.params.device` (it raises when the proof is wrong)."""
    device, client, auth = params["device"], params["client"], params.get("auth") or {}
    public = _raw(device["publicKey"])
    assert device["id"] == hashlib.sha256(public).hexdigest()
    assert (device["nonce"], device["signedAt"]) == (nonce, ts)
    payload = device_auth_payload(
        device_id=device["id"],
        client_id=client["id"],
        client_mode=client["mode"],
        role=params["role"],
        scopes=params["scopes"],
        signed_at_ms=ts,
        token=auth.get("token") or auth.get("deviceToken"),
        nonce=nonce,
        platform=client.get("platform"),
        device_family=client.get("deviceFamily"),
    )
    Ed25519PublicKey.from_public_bytes(public).verify(_raw(device["signature"]), payload.encode())


@dataclass
class FakeGateway:
    """Answers each connect with the next of `outcomes` (the last one repeats)."""

    outcomes: list[str] = field(default_factory=lambda: ["hello"])
    device_token: str = "dt-1"
    tick_interval_ms: int | None = None
    """Replaces the recorded hello's `policy.tickIntervalMs` (this fake never ticks)."""
    connects: list[dict[str, Any]] = field(default_factory=list)
    sockets: list[ServerConnection] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    async def handler(self, ws: ServerConnection) -> None:
        challenge = copy.deepcopy(CHALLENGE)
        challenge["payload"]["nonce"] = f"nonce-{len(self.connects)}"
        await ws.send(json.dumps(challenge))
        request = json.loads(await ws.recv())
        params = request["params"]
        self.connects.append(params)
        verify_device_proof(params, challenge["payload"]["nonce"], challenge["payload"]["ts"])
        outcome = self.outcomes[min(len(self.connects) - 1, len(self.outcomes) - 1)]
        if outcome != "hello":
            answer = copy.deepcopy(PAIRING if outcome == "pairing" else MISMATCH)
            answer["id"] = request["id"]
            await ws.send(json.dumps(answer))
            await ws.close(1008, outcome)
            return
        hello = copy.deepcopy(HELLO)
        hello["id"] = request["id"]
        hello["payload"]["auth"]["deviceToken"] = self.device_token
        if self.tick_interval_ms is not None:
            hello["payload"]["policy"]["tickIntervalMs"] = self.tick_interval_ms
        await ws.send(json.dumps(hello))
        self.sockets.append(ws)
        await self.serve_calls(ws)

    async def serve_calls(self, ws: ServerConnection) -> None:
        """After the hello: every call answered with the recorded roster, then its changes sent."""
        async for message in ws:
            call = json.loads(message)
            answer = copy.deepcopy(SUBSCRIBED)
            answer["id"] = call["id"]
            await ws.send(json.dumps(answer))
            for event in CHANGED:
                await ws.send(json.dumps(event))


ANSWERS = WS.parent / "answers"
HISTORY = next(f for f in received("chat_history") if f["type"] == "res")
PAGE_APPLIED = 3
SENT_OK = [f for f in received("sending/send_ok") if f["type"] == "res"]
"""The recorded answers of a reply that worked: `chat.send`'s, `agent.wait`'s (with the reply)."""
ABORTED = next(f for f in received("sessions_abort") if f["type"] == "res")
"""The gateway's page, whatever limit is asked (the recorded answer applied 3)."""


def recorded_answers(step: str) -> list[tuple[str, Any, bool, Any]]:
    """A recorded step's calls, in order: (method, params, ok, payload or error)."""
    lines = recorded(step)
    sent = {line["frame"]["id"]: line["frame"] for line in lines if line["dir"] == ">"}
    return [
        (sent[f["id"]]["method"], sent[f["id"]].get("params"), f["ok"], f.get("payload" if f["ok"] else "error"))
        for f in (line["frame"] for line in lines if line["dir"] == "<")
        if f.get("type") == "res" and f["id"] in sent
    ]


def session_op(step: str, method: str, nth: int = 0) -> tuple[bool, Any]:
    """The `nth` recorded answer to `method` in `session_ops/<step>` (record_session_ops_frames.py):
    (ok, payload or error), for `ReplayGateway.queue`."""
    found = [(ok, body) for m, _params, ok, body in recorded_answers(f"session_ops/{step}") if m == method]
    return found[nth]


def roster_rows() -> list[dict[str, Any]]:
    """The recorded roster: the subscribe answer's rows, then the other sessions the recorded
    `sessions_list` answer names (ten in all), newest first."""
    first = SUBSCRIBED["payload"]["list"]["sessions"]
    keys = {r["key"] for r in first}
    listed = json.loads((ANSWERS / "list_all.json").read_text())["result"]["details"]["sessions"]
    rows = copy.deepcopy(first) + [copy.deepcopy(r) for r in listed if r["key"] not in keys]
    return sorted(rows, key=lambda r: -r["updatedAt"])


def event(name: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"type": "event", "event": name, "payload": payload}


@dataclass
class ReplayGateway(FakeGateway):
    """The gateway after its hello, from the recordings (see the module's docstring)."""

    rows: list[dict[str, Any]] = field(default_factory=roster_rows)
    calls: list[tuple[str, Any]] = field(default_factory=list)
    queued: dict[str, list[tuple[bool, Any] | None]] = field(default_factory=dict)
    """Answers a test queued by method, each given once before the default one (None: the socket
    is closed instead of answering)."""

    def queue(self, method: str, ok: bool, body: Any) -> None:
        """Answer the next call of `method` with `body` (a payload, or an error when not `ok`)."""
        self.queued.setdefault(method, []).append((ok, copy.deepcopy(body)))

    def drop_on(self, method: str) -> None:
        """Close the socket at the next call of `method`, unanswered."""
        self.queued.setdefault(method, []).append(None)

    def methods(self, name: str) -> list[Any]:
        """The params of every call of `name` so far."""
        return [params for method, params in self.calls if method == name]

    def _page(self, params: dict[str, Any]) -> dict[str, Any]:
        listing = copy.deepcopy(SUBSCRIBED["payload"]["list"])
        offset = int(params.get("offset") or 0)
        limit = min(int(params.get("limit") or PAGE_APPLIED), PAGE_APPLIED)
        page = self.rows[offset : offset + limit]
        more = offset + len(page) < len(self.rows)
        listing.update(sessions=page, count=len(page), totalCount=len(self.rows), hasMore=more, limitApplied=limit)
        listing["nextOffset"] = offset + len(page) if more else None
        return listing

    def answer(self, method: str, params: Any) -> tuple[bool, Any]:
        params = params if isinstance(params, dict) else {}
        if self.queued.get(method):
            answer = self.queued[method].pop(0)
            assert answer is not None  # serve_calls closes the socket for None
            return answer
        if method == "sessions.subscribe":
            return True, {"subscribed": True, "list": self._page(params)}
        if method == "sessions.list":
            return True, self._page(params)
        if method in ("sessions.messages.subscribe", "sessions.messages.unsubscribe"):
            return True, {"subscribed": method.endswith(".subscribe"), "key": params.get("key")}
        if method == "chat.history":
            return True, copy.deepcopy(HISTORY["payload"])
        if method == "chat.send":  # the run id is the idempotency key, as the gateway makes it
            return True, {**SENT_OK[0]["payload"], "runId": params.get("idempotencyKey")}
        if method == "agent.wait":
            return True, {**copy.deepcopy(SENT_OK[1]["payload"]), "runId": params.get("runId")}
        if method == "sessions.abort":
            return True, copy.deepcopy(ABORTED["payload"])
        if method == "sessions.describe":  # a roster row, as `sessions.describe` gives one, or none
            row = next((r for r in self.rows if r["key"] == params.get("key")), None)
            return True, {"session": copy.deepcopy(row)}
        if method == "agents.list":
            return True, {"defaultId": "main", "mainKey": "main", "scope": "per-sender", "agents": [{"id": "main"}]}
        if method == "sessions.search":
            hit = {
                "sessionKey": "agent:main:discord:group:123",
                "sessionId": "22222222-2222-4222-8222-222222222222",
                "messageId": "22220004",
                "role": "assistant",
                "timestamp": 1795302166875,
                "snippet": "I can't check the weather right now.",
                "score": 1.5,
            }
            return True, {"results": [hit]}
        return False, {"code": "INVALID_REQUEST", "message": f"unknown method: {method}"}

    async def serve_calls(self, ws: ServerConnection) -> None:
        async for message in ws:
            call = json.loads(message)
            self.calls.append((call["method"], call.get("params")))
            if self.queued.get(call["method"]) and self.queued[call["method"]][0] is None:
                self.queued[call["method"]].pop(0)
                await ws.close()
                return
            ok, body = self.answer(call["method"], call.get("params"))
            frame = {"type": "res", "id": call["id"], "ok": ok, ("payload" if ok else "error"): body}
            await ws.send(json.dumps(frame))

    async def push(self, *frames: dict[str, Any]) -> None:
        """Send events to every live socket."""
        for ws in list(self.sockets):
            for frame in frames:
                try:
                    await ws.send(json.dumps(frame))
                except Exception:  # noqa: BLE001 - a socket closed meanwhile
                    break


@asynccontextmanager
async def replaying(gateway: FakeGateway) -> AsyncIterator[FakeGateway]:
    """The stand-in listening on a free loopback port while the block runs."""
    async with serve(gateway.handler, "127.0.0.1", 0) as server:
        gateway.port = next(iter(server.sockets)).getsockname()[1]
        yield gateway


@asynccontextmanager
async def with_http(gateway: FakeGateway) -> AsyncIterator[int]:
    """A port in front of the stand-in that answers plain HTTP as the gateway does (a `POST` gets a
    404: no sessions-tui operator API there) and hands an upgrade on to the stand-in."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def front(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"GET "):
            writer.write(b"HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\ncontent-length: 9\r\n\r\nNot Found")
            await writer.drain()
            writer.close()
            return
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", gateway.port)
        up_writer.write(head)
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    server = await asyncio.start_server(front, "127.0.0.1", 0)
    async with server:
        yield server.sockets[0].getsockname()[1]
