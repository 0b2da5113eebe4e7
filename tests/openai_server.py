"""A small, real OpenAI-compatible chat-completions server for tests (loopback, scripted).

    server = ScriptedOpenAIServer()
    server.start()                       # http://127.0.0.1:<port>/v1 in server.url
    server.script(Reply(text="hi"), Reply(status=429, error_message="slow down"))
    server.on(lambda req: Reply(text="REPLY_SKIP") if "Turn 2 of" in system_text(req) else None)
    ...
    server.stop()

Each request to `POST /v1/chat/completions` is answered by the first rule (`server.on`) that
returns a `Reply`, else by the next scripted reply, else by `server.default`. Every request body
is recorded in `server.requests` and its headers (lower-cased names) in `server.headers`.
A request with `"stream": true` gets server-sent events (text and arguments split into pieces, a
usage chunk, `data: [DONE]`), otherwise one JSON completion.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Reply", "ScriptedOpenAIServer", "Rule", "system_text"]


@dataclass
class Reply:
    """One scripted answer."""

    text: str = ""
    thinking: str | None = None
    # (name, arguments): a dict is sent as JSON, a string verbatim (to send broken arguments).
    tool_calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)
    delay: float = 0.0  # seconds before the response starts
    hold: threading.Event | None = None  # the response starts once this is set (a test's own moment)
    chunk_delay: float = 0.0  # seconds between streamed chunks
    status: int = 200
    error_message: str | None = None  # status >= 400: {"error": {"message": …}}
    usage: tuple[int, int] | None = (10, 5)  # (prompt, completion) tokens; None = no usage
    drop_connection: bool = False  # close the connection without any response
    # Extras
    pieces: int = 3  # how many pieces the text (and each tool call's arguments) is split into
    cached_tokens: int | None = None  # usage.prompt_tokens_details.cached_tokens
    cost: float | None = None  # usage.cost, as OpenRouter sends it
    finish_reason: str | None = None  # default: "tool_calls" with tool calls, else "stop"
    headers: dict[str, str] = field(default_factory=dict)  # extra response headers
    raw_body: str | None = None  # sent verbatim instead of the JSON body (any status)
    raw_events: list[str] | None = None  # streamed verbatim as `data: <item>` events
    drop_after: int | None = None  # streaming: cut the connection after this many events


class _Drop(Exception):
    """Cut the connection mid-stream."""


Rule = Callable[[dict[str, Any]], "Reply | None"]


def system_text(request_json: dict[str, Any]) -> str:
    """The text of every system message of a request, joined by newlines."""
    out = []
    for message in request_json.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "system":
            content = message.get("content")
            if isinstance(content, str):
                out.append(content)
            elif isinstance(content, list):
                out.extend(p.get("text", "") for p in content if isinstance(p, dict))
    return "\n".join(out)


def _split(text: str, pieces: int) -> list[str]:
    if not text:
        return []
    pieces = max(1, min(pieces, len(text)))
    size, extra = divmod(len(text), pieces)
    out, start = [], 0
    for i in range(pieces):
        end = start + size + (1 if i < extra else 0)
        out.append(text[start:end])
        start = end
    return out


def _arguments(args: dict[str, Any] | str) -> str:
    return args if isinstance(args, str) else json.dumps(args)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: ScriptedOpenAIServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that resets an idle keep-alive connection is normal; anything else is shown.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # small writes go out at once (no 40 ms delayed-ACK stalls)
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    # -- plumbing -----------------------------------------------------------------------------

    def _send_body(self, status: int, body: bytes, content_type: str, reply: Reply) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def do_GET(self) -> None:  # noqa: N802
        if self.path.rstrip("/").endswith("/models"):
            body = json.dumps({"object": "list", "data": [{"id": "test-model"}]}).encode()
            self._send_body(200, body, "application/json", Reply())
        else:
            self._send_body(404, b'{"error": {"message": "not found"}}', "application/json", Reply())

    def do_POST(self) -> None:  # noqa: N802
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_invalid": raw.decode("utf-8", "replace")}
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_body(404, b'{"error": {"message": "not found"}}', "application/json", Reply())
            return
        owner._record(body, {k.lower(): v for k, v in self.headers.items()}, self.path)
        reply = owner._choose(body)
        if reply.delay and owner._stopping.wait(reply.delay):
            self.close_connection = True
            return
        while reply.hold is not None and not reply.hold.wait(0.05):
            if owner._stopping.is_set():
                self.close_connection = True
                return
        if reply.drop_connection:
            self.close_connection = True
            return
        try:
            self._answer(body, reply)
        except _Drop:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.close_connection = True
            owner._note_disconnect()

    # -- answers ------------------------------------------------------------------------------

    def _answer(self, body: dict[str, Any], reply: Reply) -> None:
        if reply.raw_body is not None:
            is_json = reply.raw_body.lstrip().startswith(("{", "["))
            content_type = "application/json" if is_json else "text/plain"
            self._send_body(reply.status, reply.raw_body.encode(), content_type, reply)
            return
        if reply.status >= 400:
            error = {"error": {"message": reply.error_message or "error", "type": "server_error"}}
            self._send_body(reply.status, json.dumps(error).encode(), "application/json", reply)
            return
        model = body.get("model") or "test-model"
        if body.get("stream"):
            self._stream(model, reply)
        else:
            self._send_body(
                reply.status, json.dumps(self._completion(model, reply)).encode(), "application/json", reply
            )

    @staticmethod
    def _usage(reply: Reply) -> dict[str, Any] | None:
        if reply.usage is None:
            return None
        prompt, completion = reply.usage
        usage: dict[str, Any] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        if reply.cached_tokens is not None:
            usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
        if reply.cost is not None:
            usage["cost"] = reply.cost
        return usage

    @staticmethod
    def _finish(reply: Reply) -> str:
        return reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")

    def _completion(self, model: str, reply: Reply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.thinking is not None:
            message["reasoning_content"] = reply.thinking
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": _arguments(args)},
                }
                for i, (name, args) in enumerate(reply.tool_calls)
            ]
        out: dict[str, Any] = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": self._finish(reply)}],
        }
        usage = self._usage(reply)
        if usage is not None:
            out["usage"] = usage
        return out

    def _stream(self, model: str, reply: Reply) -> None:
        owner = self.server.owner
        self.send_response(reply.status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.flush()

        sent = 0

        def send(data: str) -> None:
            nonlocal sent
            if reply.drop_after is not None and sent >= reply.drop_after:
                raise _Drop
            if sent and reply.chunk_delay and owner._stopping.wait(reply.chunk_delay):
                raise ConnectionAbortedError("server stopping")
            sent += 1
            self._chunk(f"data: {data}\n\n".encode())

        if reply.raw_events is not None:
            for item in reply.raw_events:
                send(item)
            self._chunk(b"")
            return

        cid = f"chatcmpl-{uuid.uuid4().hex[:12]}"
        created = int(time.time())

        def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
            data = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                **extra,
            }
            return json.dumps(data)

        send(chunk({"role": "assistant", "content": ""}))
        for piece in _split(reply.thinking or "", reply.pieces):
            send(chunk({"reasoning_content": piece}))
        for piece in _split(reply.text, reply.pieces):
            send(chunk({"content": piece}))
        for index, (name, args) in enumerate(reply.tool_calls):
            send(
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": index,
                                "id": f"call_{index}",
                                "type": "function",
                                "function": {"name": name, "arguments": ""},
                            }
                        ]
                    }
                )
            )
            for piece in _split(_arguments(args), reply.pieces):
                send(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
        send(chunk({}, self._finish(reply)))
        usage = self._usage(reply)
        if usage is not None:
            data = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [],
                "usage": usage,
            }
            send(json.dumps(data))
        send("[DONE]")
        self._chunk(b"")
        owner._note_completed()


class ScriptedOpenAIServer:
    """A loopback chat-completions server whose answers each test scripts."""

    def __init__(self, default: Reply | None = None) -> None:
        self.default = default or Reply(text="ok")
        self.requests: list[dict[str, Any]] = []  # every request body, in order
        self.headers: list[dict[str, str]] = []  # their headers, names lower-cased
        self.paths: list[str] = []
        self.disconnects = 0  # streams the client went away from
        self.completed = 0  # streams sent to the end
        self._replies: deque[Reply] = deque()
        self._rules: list[Rule] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> ScriptedOpenAIServer:
        self._stopping.clear()
        httpd = _Server(("127.0.0.1", 0), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            daemon=True,
            name="scripted-openai-server",
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting ----------------------------------------------------------------------------

    def script(self, *replies: Reply) -> None:
        """Queue replies, consumed one per request (after the rules, before the default)."""
        with self._lock:
            self._replies.extend(replies)

    enqueue = script

    def on(self, rule: Rule) -> Rule:
        """Add a rule: `rule(request_json)` → a `Reply`, or None to pass. Usable as decorator."""
        with self._lock:
            self._rules.append(rule)
        return rule

    @property
    def pending(self) -> int:
        """Scripted replies not yet consumed."""
        with self._lock:
            return len(self._replies)

    @property
    def last_request(self) -> dict[str, Any]:
        return self.requests[-1]

    @property
    def last_headers(self) -> dict[str, str]:
        return self.headers[-1]

    # -- used by the handler ------------------------------------------------------------------

    def _record(self, body: dict[str, Any], headers: dict[str, str], path: str) -> None:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            self.paths.append(path)

    def _choose(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            rules = list(self._rules)
        for rule in rules:
            reply = rule(body)
            if reply is not None:
                return reply
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        return self.default

    def _note_disconnect(self) -> None:
        with self._lock:
            self.disconnects += 1

    def _note_completed(self) -> None:
        with self._lock:
            self.completed += 1
