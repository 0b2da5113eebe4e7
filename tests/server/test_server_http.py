"""`serve` over real loopback HTTP: slow and partial requests end, bad requests change nothing,
`details` are what `sessions-tui tool` prints, the event stream carries the engine's events."""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import FAST_DEMO, add_session
from server_support import TOKEN, local_backend, served

AUTH = {"authorization": f"Bearer {TOKEN}"}
SECRET = "sk-1234567890abcdef1234"
GROUP = "agent:main:discord:group:dev"


def _host_port(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def _raw(url: str) -> socket.socket:
    conn = socket.create_connection(_host_port(url), timeout=20)
    return conn


def _read_all(conn: socket.socket) -> bytes:
    chunks = []
    while chunk := conn.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def test_a_request_head_that_never_completes_is_cut_off(tmp_path):
    with served(local_backend(tmp_path / "s"), header_timeout_s=0.3) as url, _raw(url) as conn:
        conn.sendall(b"POST /tools/invoke HTTP/1.1\r\nHost: x\r\n")  # and nothing more
        assert _read_all(conn) == b""  # the server closed the connection


@pytest.mark.parametrize("method", [b"FOO", b"BREW"])
def test_a_made_up_method_is_a_bad_request_as_the_gateways_parser_answers_it(tmp_path, method):
    """The gateway (Node's llhttp, which httptools is) answers `FOO /tools/invoke` 400 and closes."""
    with served(local_backend(tmp_path / "s")) as url, _raw(url) as conn:
        conn.sendall(method + b" /tools/invoke HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        assert _read_all(conn).startswith(b"HTTP/1.1 400 ")


def test_a_request_head_past_16_kb_gets_431_and_one_under_it_is_served(tmp_path):
    with served(local_backend(tmp_path / "s")) as url:
        with _raw(url) as conn:
            conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            filler = b"X-Filler: " + b"a" * 1000 + b"\r\n"
            for _ in range(17):  # a header at a time, as a slow client sends them
                conn.sendall(filler)
            assert _read_all(conn).startswith(b"HTTP/1.1 431 ")
        with _raw(url) as conn:
            conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + filler * 14 + b"\r\n")
            assert _read_all(conn).startswith(b"HTTP/1.1 200 ")


def test_a_body_in_the_same_read_as_its_head_is_not_counted_as_head(tmp_path):
    body = json.dumps({"tool": "sessions_list", "args": {}, "pad": "p" * 100_000}).encode()
    with served(local_backend(tmp_path / "s")) as url, _raw(url) as conn:
        head = f"POST /tools/invoke HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        conn.sendall(head.encode() + body)
        assert _read_all(conn).startswith(b"HTTP/1.1 200 ")


def test_pipelined_requests_are_each_answered_in_order(tmp_path):
    health = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
    ready = b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    with served(local_backend(tmp_path / "s")) as url, _raw(url) as conn:
        conn.sendall(health * 2 + ready)  # one write: three heads in one read
        answers = _read_all(conn)
    assert answers.count(b"HTTP/1.1 200 ") == 3
    assert answers.rindex(b'"status":"live"') < answers.index(b'"ready":true')


def test_an_idle_connection_is_cut_off_too(tmp_path):
    with served(local_backend(tmp_path / "s"), header_timeout_s=0.3) as url, _raw(url) as conn:
        assert _read_all(conn) == b""


def test_a_body_that_stalls_gets_408(tmp_path):
    with served(local_backend(tmp_path / "s"), body_timeout_s=0.3) as url, _raw(url) as conn:
        conn.sendall(
            b"POST /tools/invoke HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN.encode() + b"\r\n"
            b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"tool":'
        )
        head = _read_all(conn).split(b"\r\n\r\n")
        assert head[0].startswith(b"HTTP/1.1 408")
        assert json.loads(head[1]) == {"error": {"message": "Request timeout", "type": "invalid_request_error"}}


def test_a_chunked_body_over_the_limit_gets_413(tmp_path):
    def chunks():
        for _ in range(3 * 16):
            yield b"a" * 65536

    with served(local_backend(tmp_path / "s")) as url:
        answer = httpx.post(f"{url}/tools/invoke", content=chunks(), headers=AUTH, timeout=30)
    assert answer.status_code == 413
    assert answer.json()["error"]["type"] == "invalid_request_error"


def _stored(state: Path) -> Any:
    conn = sqlite3.connect(f"file:{state / 'sessions.sqlite3'}?mode=ro", uri=True)
    try:
        tables = [
            (r[0], "" if "WITHOUT ROWID" in r[1].upper() else " ORDER BY rowid")  # those read in key order
            for r in conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'sessions_search%' "
                "AND name NOT IN ('transcript_text_data', 'transcript_text_idx', 'transcript_text_content', "
                "'transcript_text_docsize', 'transcript_text_config')"  # FTS5's own tables; their table is read
            )
        ]
        return {t: conn.execute(f"SELECT * FROM {t}{order}").fetchall() for t, order in tables}
    finally:
        conn.close()


BAD = [
    (b'{"tool":', {}),
    (b'{"tool": ["sessions_list"]}', {}),
    (b'{"tool": "sessions_history", "args": {"sessionKey": 5}}', {}),
    (b'{"tool": "sessions_send", "args": {"sessionKey": "' + GROUP.encode() + b'", "message": "x"}}', {}),
    (b'{"tool": "sessions_spawn", "args": {"task": "x"}}', {}),
    (b'{"tool": "sessions_list", "args": {"limit": "many"}}', {"authorization": "Bearer wrong"}),
    (b"\xff\xfe\x00garbage", {}),
    (b"[" * 100_000 + b"]" * 100_000, {}),
    (b'{"tool": "sessions_list", "args": {"limit": ' + b"9" * 5000 + b"}}", {}),
    (b'{"tool": "agents_list", "args": {"pad": "' + b"a" * (3 * 1024 * 1024) + b'"}}', {}),
]


def test_bad_requests_get_their_status_and_change_nothing_stored(tmp_path):
    state = tmp_path / "s"
    backend = local_backend(state, FAST_DEMO)
    add_session(backend.engine, GROUP, [{"role": "user", "content": "hello"}])
    before = _stored(state)
    with served(backend) as url, httpx.Client(base_url=url, timeout=30) as client:
        statuses = [
            client.post("/tools/invoke", content=body, headers={**AUTH, **extra}).status_code for body, extra in BAD
        ]
        assert client.get("/health").status_code == 200  # still up
    assert statuses == [400, 400, 400, 404, 404, 401, 400, 400, 400, 413]
    assert _stored(state) == before


def test_details_are_what_the_tool_command_prints(tmp_path):
    state = tmp_path / "s"
    backend = local_backend(state, FAST_DEMO)
    add_session(
        backend.engine,
        GROUP,
        [{"role": "user", "content": f"the key is {SECRET}"}, {"role": "assistant", "content": "noted"}],
    )
    args = {"sessionKey": GROUP, "includeTools": True}
    with served(backend) as url:
        answer = httpx.post(f"{url}/tools/invoke", json={"tool": "sessions_history", "args": args}, headers=AUTH).json()
    printed = subprocess.run(
        [
            sys.executable,
            "-m",
            "sessions_tui",
            "--state",
            str(state),
            "--config",
            str(state / "config.json5"),
            "tool",
            "sessions_history",
            json.dumps(args),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert answer["ok"] is True
    assert answer["result"]["details"] == json.loads(printed)
    assert json.loads(answer["result"]["content"][0]["text"]) == json.loads(printed)
    assert SECRET not in json.dumps(answer)


def _events(lines, wanted: set[str], limit: int = 200) -> list[dict[str, Any]]:
    """Server-sent events read until one of each `wanted` type has come."""
    seen: list[dict[str, Any]] = []
    for line in lines:
        if line.startswith("data: "):
            seen.append(json.loads(line.removeprefix("data: ")))
            if wanted <= {e["type"] for e in seen} or len(seen) >= limit:
                return seen
    return seen


def test_the_event_stream_carries_a_send_with_its_secret_masked(tmp_path, monkeypatch):
    """The run's events, its streamed reply word by word (every delta redacted at once here) as far
    as the whole reply's redaction shows it, and never the secret the reply repeats."""
    monkeypatch.setattr("sessions_tui.engine.redaction.stream.EVERY_S", 0.0)
    state = tmp_path / "s"
    backend = local_backend(state, {**FAST_DEMO, "gateway": {"tools": {"allow": ["sessions_send"]}}})
    add_session(backend.engine, GROUP, [{"role": "user", "content": "hello"}])
    with served(backend, allow=("sessions_send",)) as url, httpx.Client(base_url=url, timeout=30) as client:
        with client.stream("GET", "/events", headers=AUTH) as stream:
            lines = stream.iter_lines()
            assert _events(lines, {"hello"})[0] == {"type": "hello"}
            sent = client.post(
                "/tools/invoke",
                json={
                    "tool": "sessions_send",
                    "args": {"sessionKey": GROUP, "message": f"repeat {SECRET}", "timeoutSeconds": 20},
                },
                headers=AUTH,
            ).json()
            assert sent["ok"] is True and sent["result"]["details"]["status"] == "ok"
            events = _events(lines, {"run_started", "run_ended", "message_appended", "run_streamed"})
    kinds = {e["type"] for e in events}
    assert {"run_started", "run_ended", "message_appended"} <= kinds
    reply = sent["result"]["details"]["reply"]
    streamed = "".join(e["delta"] for e in events if e["type"] == "run_streamed" and e["kind"] == "text")
    assert SECRET[:6] + "…" in reply and streamed and reply.startswith(streamed)
    assert SECRET not in json.dumps(events)
    assert SECRET not in json.dumps(sent)


def test_several_readers_each_get_the_events(tmp_path):
    state = tmp_path / "s"
    backend = local_backend(state, FAST_DEMO)
    add_session(backend.engine, GROUP, [{"role": "user", "content": "hello"}])
    with (
        served(backend) as url,
        httpx.Client(base_url=url, timeout=30) as one,
        httpx.Client(base_url=url, timeout=30) as two,
    ):
        with one.stream("GET", "/events", headers=AUTH) as a, two.stream("GET", "/events", headers=AUTH) as b:
            lines_a, lines_b = a.iter_lines(), b.iter_lines()
            _events(lines_a, {"hello"})
            _events(lines_b, {"hello"})
            reply = one.post("/sessions-tui/v1/owner_command", json={"key": GROUP, "text": "/send off"}, headers=AUTH)
            assert reply.status_code == 200 and reply.json()["value"]
            assert "session_changed" in {e["type"] for e in _events(lines_a, {"session_changed"})}
            assert "session_changed" in {e["type"] for e in _events(lines_b, {"session_changed"})}


def test_the_operator_api_pages_sessions_and_shows_no_secret_config(tmp_path):
    state = tmp_path / "s"
    config = {
        **FAST_DEMO,
        "models": {"providers": {"acme": {"baseUrl": "http://models.example/v1", "apiKey": "acme-key-123456"}}},
        "gateway": {"auth": {"token": "config-token-abc"}},
        "channels": {"discord": {"webhookUrl": "http://hooks.example/secret-path"}},
    }
    backend = local_backend(state, config)
    for i in range(3):
        add_session(backend.engine, f"agent:main:cron:job{i}", updatedAt=1000 + i)
    with served(backend) as url, httpx.Client(base_url=url, timeout=30, headers=AUTH) as client:
        info = client.post("/sessions-tui/v1/info", json={})
        page = client.post(
            "/sessions-tui/v1/browse",
            json={"requester": {"key": None}, "query": {"kinds": ["cron"]}, "limit": 2},
        )
        bad = client.post("/sessions-tui/v1/browse", json={"requester": {}, "query": {}, "limit": "x"})
        unknown = client.post("/sessions-tui/v1/nope", json={})
    assert info.status_code == 200
    text = info.text
    assert "acme-key-123456" not in text and "config-token-abc" not in text and "hooks.example" not in text
    assert set(info.json()["config"]) == {"session", "tools", "agents", "logging", "ui"}
    body = page.json()
    assert [r["key"] for r in body["rows"]] == ["cron:job2", "cron:job1"] and body["total"] == 3
    assert bad.status_code == 400 and bad.json()["error"]["message"].startswith("browse: limit:")
    assert unknown.status_code == 404


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
def test_the_operator_api_takes_post_only(tmp_path, method):
    with served(local_backend(tmp_path / "s")) as url:
        answer = httpx.request(method, f"{url}/sessions-tui/v1/info", headers=AUTH)
    assert answer.status_code == 405 and answer.headers["allow"] == "POST"
