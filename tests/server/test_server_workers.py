"""`serve --workers 2` as real processes on loopback: both workers serve the tool and operator API on
one port, a write through one reaches the other's event stream, a stop ends every process with 0,
and a worker that dies stops the others.

Which worker holds a connection is read from the system (the connection's socket among the
worker's open files), not from anything the server says about itself.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from cli_support import GUARD
from conftest import FAST_DEMO, add_session
from server_support import TOKEN, local_backend

GROUP = "agent:main:discord:group:dev"


class Served:
    """A `serve --workers N` process: its parent, its port and its workers' pids."""

    def __init__(self, proc: subprocess.Popen[str], port: int) -> None:
        self.proc = proc
        self.port = port
        self.workers = [int(pid) for pid in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()]

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=GUARD)

    def owner(self, conn: socket.socket) -> int:
        """The worker holding the server's end of `conn` (a connection it has answered on)."""
        client_port = conn.getsockname()[1]
        inode = None
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            local, remote = fields[1], fields[2]
            if int(local.rsplit(":", 1)[1], 16) == self.port and int(remote.rsplit(":", 1)[1], 16) == client_port:
                inode = fields[9]
        assert inode is not None, "no server end for this connection"
        for pid in self.workers:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}") == f"socket:[{inode}]":
                        return pid
                except FileNotFoundError:
                    continue
        raise AssertionError("no worker holds this connection")


@contextmanager
def serving(state: Path, *args: str) -> Iterator[Served]:
    """`sessions-tui serve --workers 2` on `state`, once it has said it is ready; stopped at the end."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    env["SESSIONS_TUI_TOKEN"] = TOKEN
    argv = [sys.executable, "-m", "sessions_tui", "--state", str(state), "serve", "--port", "0", *args]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    guard = threading.Timer(GUARD, proc.kill)  # only there so a regression fails instead of hanging
    guard.start()
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("sessions-tui serve: http://127.0.0.1:"), (line, proc.stderr and proc.stderr.read())
        port = int(line.split()[2].rsplit(":", 1)[1])
        yield Served(proc, port)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.wait(GUARD)
        guard.cancel()


def request(conn: socket.socket, method: str, path: str, body: dict[str, object] | None = None) -> tuple[int, bytes]:
    """One request on a keep-alive connection, its status and body (the server sends a length)."""
    payload = json.dumps(body).encode() if body is not None else b""
    conn.sendall(
        f"{method} {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n".encode()
        + payload
    )
    with conn.makefile("rb") as reader:  # nothing comes after the answer until the next request
        status = int(reader.readline().split()[1])
        length = 0
        while (header := reader.readline()) not in (b"\r\n", b""):
            name, _, value = header.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return status, reader.read(length)


def hang_up(conn: socket.socket) -> None:
    """End the connection now (a file made from it would keep it open past `close`)."""
    conn.shutdown(socket.SHUT_RDWR)
    conn.close()


def events(conn: socket.socket) -> Iterator[dict[str, object]]:
    """The events of a `GET /events` stream opened on `conn`."""
    conn.sendall(f"GET /events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n\r\n".encode())
    reader = conn.makefile("rb")
    assert reader.readline().split()[1] == b"200"
    for line in reader:
        if line.startswith(b"data: "):
            yield json.loads(line.removeprefix(b"data: "))


def one_on_each(served: Served) -> dict[int, socket.socket]:
    """A connection answered by each worker: connections are opened, each asked once, until every
    worker has answered one (the kernel hands each to whichever worker accepts first)."""
    held: dict[int, socket.socket] = {}
    spare: list[socket.socket] = []
    for _ in range(500):
        conn = served.connect()
        assert request(conn, "GET", "/health")[0] == 200
        pid = served.owner(conn)
        if pid in held:
            spare.append(conn)
        else:
            held[pid] = conn
        if len(held) == len(served.workers):
            break
    for conn in spare:
        hang_up(conn)
    assert len(held) == len(served.workers), "a worker answered no connection"
    return held


def test_two_workers_serve_the_api_and_a_write_through_one_reaches_the_others_readers(tmp_path):
    state = tmp_path / "s"
    backend = local_backend(state, FAST_DEMO)
    add_session(backend.engine, GROUP, [{"role": "user", "content": "hello"}])
    backend.close()
    with serving(state, "--workers", "2") as served:
        assert len(served.workers) == 2 and served.proc.pid not in served.workers
        first, second = one_on_each(served).values()
        for conn in (first, second):  # the tool endpoint and the operator API, on each worker
            status, body = request(conn, "POST", "/tools/invoke", {"tool": "sessions_list", "args": {}})
            assert status == 200 and [row["key"] for row in json.loads(body)["result"]["details"]["sessions"]] == [
                GROUP
            ]
            status, body = request(conn, "POST", "/sessions-tui/v1/state_is_empty", {})
            assert status == 200 and json.loads(body) == {"value": False}
        reader = served.connect()
        stream = events(reader)
        assert next(stream)["type"] == "hello"
        reading = served.owner(reader)
        writer = first if served.owner(first) != reading else second
        status, body = request(writer, "POST", "/sessions-tui/v1/owner_command", {"key": GROUP, "text": "/send off"})
        assert status == 200 and json.loads(body)["value"]
        assert "store_changed" in (event["type"] for event in stream)  # another process's commit, as the other sees it
        for conn in (reader, first, second):
            hang_up(conn)
    assert served.proc.returncode == 0
    assert served.proc.stderr is not None and served.proc.stderr.read() == ""
    for pid in served.workers:
        assert not Path(f"/proc/{pid}").exists(), f"worker {pid} is still there"


def test_a_worker_that_dies_stops_the_others_and_the_parent_names_it(tmp_path):
    state = tmp_path / "s"
    local_backend(state).close()
    with serving(state, "--workers", "2") as served:
        killed, other = served.workers
        os.kill(killed, signal.SIGKILL)
        assert served.proc.wait(GUARD) == 1
    assert served.proc.stderr is not None
    said = served.proc.stderr.read()
    assert said.startswith("sessions-tui: serve: worker ") and said.count("\n") == 1
    assert f"(pid {killed}) ended while serving (killed by SIGKILL); the others were stopped" in said
    assert not Path(f"/proc/{other}").exists()


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_stop_ends_the_server_while_an_event_reader_is_connected(tmp_path, workers):
    """SIGTERM with a `/events` reader connected: its stream ends and every process exits (it
    waited for the stream for ever)."""
    local_backend(tmp_path / "s", FAST_DEMO).close()
    with serving(tmp_path / "s", "--workers", workers) as served:
        conn = served.connect()
        stream = events(conn)
        assert next(stream)["type"] == "hello"  # the reader is connected
        served.proc.send_signal(signal.SIGTERM)
        assert list(stream) == []  # the stream ends, no event after
        served.proc.wait(GUARD)
        assert served.proc.returncode in (0, -signal.SIGTERM, 128 + signal.SIGTERM)
        hang_up(conn)
