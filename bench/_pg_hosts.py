"""`sessions-tui serve` hosts on a PostgreSQL store, for pg_hosts_bench.py (not a benchmark itself): each
started as a child process and called over loopback (`http.client`), its CPU and the server's read
from /proc; a fresh database per part; the webhook sink and the event-stream reader the parts use."""

from __future__ import annotations

import http.client
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psycopg
from _common import ROOT, check
from _gateway import free_port

from pg_cluster import Cluster

TOKEN = "pg-hosts-bench-token"
HOOK_TOKEN = "pg-hosts-bench-hook-token"
RETRY_AFTER_S = 5
"""What the sink's 503 asks a delivery to wait before its next attempt."""


def cpu_s(pid: int) -> float:
    """A process's CPU time so far (user + system, all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_cpu_s(cluster: Cluster) -> float:
    """The PostgreSQL server's CPU time so far: the postmaster and its live children (a backend that
    ended took its own time with it: read while the hosts' connections stand)."""
    postmaster = int((cluster.data / "postmaster.pid").read_text().split()[0])
    total = cpu_s(postmaster)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == postmaster:
                    total += cpu_s(int(entry.name))
            except (OSError, ValueError):
                continue
    return total


@dataclass
class Host:
    """One `serve` process on the store."""

    name: str
    proc: subprocess.Popen[bytes]
    url: str
    state: Path
    cpu: float = 0.0
    conns: dict[int, http.client.HTTPConnection] = field(default_factory=dict)

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def post(self, path: str, body: dict[str, Any], token: str = TOKEN) -> tuple[int, dict[str, Any]]:
        """One POST over this thread's keep-alive connection: (status, JSON answer)."""
        conn = self.conns.get(threading.get_ident())
        if conn is None:
            conn = self.conns[threading.get_ident()] = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        conn.request("POST", path, json.dumps(body), headers)
        response = conn.getresponse()
        raw = response.read()
        try:
            answer = json.loads(raw) if raw else {}
        except ValueError:
            answer = {"raw": raw[:300].decode(errors="replace")}
        return response.status, answer

    def tool(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        status, answer = self.post("/tools/invoke", {"tool": name, "args": args})
        check(status == 200, f"{name} on {self.name} answered 200 ({status} {str(answer)[:300]})")
        details: dict[str, Any] = answer["result"]["details"]
        return details

    def create_session(self, key: str) -> None:
        status, answer = self.post("/sessions-tui/v1/create_session", {"session": {"key": key}})
        check(status == 200, f"create_session {key} on {self.name} ({status} {str(answer)[:300]})")

    def send(self, key: str, message: str) -> str:
        details = self.tool("sessions_send", {"sessionKey": key, "message": message, "timeoutSeconds": 0})
        check(details.get("status") == "accepted", f"send into {key} accepted ({details})")
        return str(details["runId"])

    def stop(self) -> None:
        for conn in self.conns.values():
            conn.close()
        if self.proc.poll() is None:
            self.cpu = cpu_s(self.proc.pid)
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_host(tmp: Path, name: str, store: str, config: dict[str, Any], lease_s: int) -> Host:
    """`serve` on `store` with `config` (over the bench's own: sessions_send allowed over HTTP, the
    lease), its state directory `tmp/name`, once `GET /readyz` answers 200."""
    state = tmp / name
    state.mkdir(parents=True)
    base = {"gateway": {"tools": {"allow": ["sessions_send"]}}, "store": {"leaseSeconds": lease_s}}
    (state / "config.json5").write_text(json.dumps(base | config))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    env |= {"PYTHONPATH": str(ROOT / "src"), "SESSIONS_TUI_TOKEN": TOKEN}
    port = free_port()
    argv = [sys.executable, "-m", "sessions_tui", "serve", "--store", store, "--state", str(state),
            "--config", str(state / "config.json5"), "--port", str(port)]  # fmt: skip
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            said = proc.stderr.read().decode(errors="replace").strip() if proc.stderr else ""
            print(f"FAIL: serve {name} exited ({proc.returncode}): {said[-600:]}")
            raise SystemExit(1)
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/readyz")
            if conn.getresponse().status == 200:
                conn.close()
                if proc.stderr:  # nobody reads it from here on: a full pipe would block the host
                    threading.Thread(target=proc.stderr.read, daemon=True).start()
                return Host(name, proc, url, state)
            conn.close()
        except OSError:
            pass
        time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"FAIL: serve {name} not ready within 60 s")


@contextmanager
def database(cluster: Cluster) -> Iterator[tuple[str, psycopg.Connection[Any]]]:
    """A fresh database: its URL and a connection of this script's (autocommit, to read)."""
    url = cluster.create_database(f"hosts_{uuid.uuid4().hex[:12]}")
    with psycopg.connect(url, autocommit=True) as conn:
        yield url, conn


def host_names(db: psycopg.Connection[Any]) -> dict[int, str]:
    try:
        return {int(i): str(n) for i, n in db.execute("SELECT id, name FROM hosts").fetchall()}
    except psycopg.Error:
        return {}


class Sink:
    """The webhook the deliveries of part 2 go to: 503 with `Retry-After` while `accepting` is clear,
    then 200; counts each delivery's attempts and acceptances by its `Idempotency-Key`."""

    def __init__(self) -> None:
        self.accepting = threading.Event()
        self.attempts: Counter[str] = Counter()
        self.accepted: Counter[str] = Counter()
        self.lock = threading.Lock()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the standard library's name
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                key = self.headers.get("Idempotency-Key") or "?"
                with sink.lock:
                    sink.attempts[key] += 1
                    ok = sink.accepting.is_set()
                    if ok:
                        sink.accepted[key] += 1
                self.send_response(200 if ok else 503)
                if not ok:
                    self.send_header("Retry-After", str(RETRY_AFTER_S))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def wait_for(what: str, test: Any, limit_s: float = 60, every_s: float = 0.02) -> float:
    """Poll `test()` until true: the moment (perf_counter) it was; FAIL after `limit_s`."""
    deadline = time.perf_counter() + limit_s
    while not test():
        check(time.perf_counter() < deadline, f"{what} within {limit_s:g} s")
        time.sleep(every_s)
    return time.perf_counter()


class EventsReader:
    """A reader of a host's `GET /events` (server-sent events) in a thread: each event's arrival
    (perf_counter), type and data into `seen`."""

    def __init__(self, host: Host) -> None:
        self.seen: queue.Queue[tuple[float, str, dict[str, Any]]] = queue.Queue()
        self.conn = http.client.HTTPConnection("127.0.0.1", host.port, timeout=600)
        self.conn.request("GET", "/events", headers={"Authorization": f"Bearer {TOKEN}", "Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        check(self.response.status == 200, f"GET /events on {host.name} answered 200 ({self.response.status})")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        kind, data = "", ""
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\r\n")
                if line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("data:"):
                    data += line[5:].strip()
                elif not line and (kind or data):
                    at = time.perf_counter()
                    try:
                        parsed = json.loads(data) if data else {}
                    except ValueError:
                        parsed = {}
                    self.seen.put((at, kind or str(parsed.get("type", "")), parsed if isinstance(parsed, dict) else {}))
                    kind, data = "", ""
        except (OSError, ValueError, AttributeError):  # closed under the reader (http.client drops its file)
            return

    def quiet(self, for_s: float = 0.15) -> None:
        """Until nothing has come for `for_s`: what the last change brought, read and dropped."""
        while True:
            try:
                self.seen.get(timeout=for_s)
            except queue.Empty:
                return

    def close(self) -> None:
        self.conn.close()
