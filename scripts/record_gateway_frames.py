"""Record the real OpenClaw gateway's WebSocket frames, as sessions-tui's own client exchanges them.

    PYTHONPATH=src python scripts/record_gateway_frames.py [--out DIR] [--port P]

Starts the gateway (`scripts/openclaw-gateway.sh start`, seeded from
tests/fixtures/openclaw-2026.9.6/legacy-state, with `gateway.trustedProxies: ["127.0.0.1"]` so a
client sending `X-Forwarded-For` counts as remote), connects with `backend.gateway.link.connection`'s
client and writes one JSON-lines file per step into DIR (default
tests/fixtures/openclaw-2026.9.6/ws/): each line `{"dir": ">" sent | "<" received, "frame": …}`.

Steps: `handshake` (challenge, connect, hello-ok, the first events), `sessions_subscribe` (and a
`sessions.changed` for a `sessions.send` made through OpenClaw's own CLI), `messages_subscribe`
(`sessions.messages.subscribe` on the group session), `chat_send` (our `chat.send` and the
`chat`/`agent`/`session.message` events of its run, which fails for lack of a model provider),
`chat_history`, `sessions_abort`, `device_token` (a second connect with the stored deviceToken
alone), `token_mismatch` (a wrong token), `pairing_required` (a new device seen as remote).

Secrets are scrubbed before writing: the shared token, deviceTokens, public keys, signatures,
device ids, `recoveryScope`, and the temporary directories' paths. The gateway is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sessions_tui.backend.gateway.link.connection import GatewayClient, GatewayOptions
from sessions_tui.backend.gateway.link.frames import EventFrame, HelloOk
from sessions_tui.backend.gateway.link.identity import DeviceTokens, load_or_create_identity
from sessions_tui.backend.gateway.link.refusals import GatewayRefused, PairingRequired, RequestFailed

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "openclaw-gateway.sh"
FIXTURE = ROOT / "tests" / "fixtures" / "openclaw-2026.9.6"
GROUP = "agent:main:discord:group:123"
MAIN = "agent:main:main"
SECRET_KEYS = {"token", "deviceToken", "password", "signature", "publicKey", "recoveryScope", "bootstrapToken"}
WAIT = 30.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _script(*args: str, timeout: float = 300) -> str:
    done = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise SystemExit(f"openclaw-gateway.sh {args[0]} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


class Recorder:
    """Frames by step, scrubbed of every secret it has been told of."""

    def __init__(self) -> None:
        self.step = "handshake"
        self.frames: dict[str, list[dict[str, Any]]] = {}
        self.replace: dict[str, str] = {}

    def tap(self, direction: str, text: str) -> None:
        self.frames.setdefault(self.step, []).append({"dir": direction, "text": text})

    def secret(self, value: str | None, name: str) -> None:
        if value:
            self.replace[value] = name

    def _scrub(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: self._scrub(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self._scrub(v, key) for v in value]
        if isinstance(value, str):
            if key in SECRET_KEYS and value:
                return f"<{key}>"
            for secret, name in sorted(self.replace.items(), key=lambda kv: -len(kv[0])):
                value = value.replace(secret, name)
            return value
        return value

    def write(self, out: Path) -> None:
        out.mkdir(parents=True, exist_ok=True)
        for step, lines in self.frames.items():
            with (out / f"{step}.jsonl").open("w", encoding="utf-8") as handle:
                for line in lines:
                    frame = self._scrub(json.loads(line["text"]))
                    handle.write(json.dumps({"dir": line["dir"], "frame": frame}, ensure_ascii=False) + "\n")
            print(f"{step}: {len(lines)} frames", file=sys.stderr)


ADMIN = ("operator.read", "operator.write", "operator.admin")
"""The scopes of an operator client that may also reset, compact and delete."""


async def call(client: GatewayClient, method: str, params: dict[str, Any], timeout: float | None = None) -> Any:
    """The answer, or None after printing the gateway's refusal (recorded all the same)."""
    try:
        return await client.request(method, params, timeout=timeout)
    except RequestFailed as failed:
        print(f"{method}: {failed.line}", file=sys.stderr)
        return None


async def connect(port: int, token: str, ids: Path, rec: Recorder, scopes: tuple[str, ...]) -> GatewayClient:
    """An operator client with `scopes` and its own device identity under `ids`, its frames recorded and its
    secrets (the device token, id and key) scrubbed from the recording."""
    client = GatewayClient(
        GatewayOptions(url=f"ws://127.0.0.1:{port}", token=token, identity_dir=ids, scopes=scopes), tap=rec.tap
    )
    hello = await client.start()
    rec.secret(hello.auth.deviceToken, "<deviceToken>")
    rec.secret(client.identity.device_id, "<device-id>")
    rec.secret(client.identity.public_key, "<public-key>")
    return client


async def _until(client: GatewayClient, test: Callable[[EventFrame], bool], what: str) -> EventFrame:
    """The first event `test` accepts, within WAIT seconds."""
    seen: asyncio.Future[EventFrame] = asyncio.get_running_loop().create_future()

    def check(frame: EventFrame) -> None:
        if not seen.done() and test(frame):
            seen.set_result(frame)

    undo = client.subscribe(None, check)
    try:
        async with asyncio.timeout(WAIT):
            return await seen
    except TimeoutError:
        raise SystemExit(f"no {what} within {WAIT} s") from None
    finally:
        undo()


def _run_ended(frame: EventFrame) -> bool:
    payload = frame.payload if isinstance(frame.payload, dict) else {}
    if frame.event == "chat":
        return payload.get("state") in ("final", "error", "aborted")
    if frame.event == "agent":
        data = payload.get("data") if isinstance(payload.get("data"), dict) else {}
        return payload.get("stream") == "lifecycle" and data.get("phase") in ("end", "error")
    return False


async def record(state: Path, port: int, token: str, ids: Path, rec: Recorder) -> None:
    url = f"ws://127.0.0.1:{port}"
    rec.secret(token, "<token>")
    rec.secret(str(state), "/home/agent/.openclaw")
    identity = load_or_create_identity(ids / "a")
    rec.secret(identity.device_id, "<device-id>")
    rec.secret(identity.public_key, "<public-key>")
    options = GatewayOptions(url=url, token=token, identity_dir=ids / "a")
    client = GatewayClient(options, identity=identity, tap=rec.tap)

    rec.step = "handshake"
    health = asyncio.ensure_future(_until(client, lambda f: f.event == "health", "health event"))
    hello = await client.start()
    rec.secret(hello.auth.deviceToken, "<deviceToken>")
    await health

    rec.step = "sessions_subscribe"
    await client.request("sessions.subscribe", {"limit": 3, "sortBy": "activity"})
    changed = asyncio.ensure_future(_until(client, lambda f: f.event == "sessions.changed", "sessions.changed"))
    cli_send = {"key": MAIN, "message": "hello from openclaw's own CLI", "idempotencyKey": secrets.token_hex(8)}
    await asyncio.to_thread(_script, "call", "--state", str(state), "sessions.send", json.dumps(cli_send))
    await changed

    rec.step = "messages_subscribe"
    await client.request("sessions.messages.subscribe", {"key": GROUP})

    rec.step = "chat_send"
    ended = asyncio.ensure_future(_until(client, _run_ended, "the end of the run"))
    message = asyncio.ensure_future(_until(client, lambda f: f.event == "session.message", "session.message"))
    await client.request(
        "chat.send", {"sessionKey": GROUP, "message": "hello from sessions-tui", "idempotencyKey": secrets.token_hex(8)}
    )
    await asyncio.gather(ended, message)

    rec.step = "chat_history"
    await client.request("chat.history", {"sessionKey": GROUP, "limit": 4})

    rec.step = "sessions_abort"
    await client.request("sessions.abort", {"key": GROUP})
    await client.close()

    rec.step = "device_token"  # no shared token: the deviceToken stored above alone
    again = GatewayClient(GatewayOptions(url=url, identity_dir=ids / "a"), identity=identity, tap=rec.tap)
    outcome = await again.connect()
    if not isinstance(outcome, HelloOk):
        raise SystemExit(f"the stored deviceToken did not connect: {outcome}")
    await again.close()

    rec.step = "token_mismatch"
    wrong = GatewayClient(GatewayOptions(url=url, token="not-the-token", identity_dir=ids / "b"), tap=rec.tap)
    rec.secret(wrong.identity.device_id, "<device-id-b>")
    rec.secret(wrong.identity.public_key, "<public-key-b>")
    try:
        await wrong.connect()
        raise SystemExit("a wrong token connected")
    except GatewayRefused as refused:
        print(refused.line, file=sys.stderr)

    rec.step = "pairing_required"
    remote = GatewayClient(
        GatewayOptions(url=url, token=token, identity_dir=ids / "c", headers={"X-Forwarded-For": "203.0.113.7"}),
        tap=rec.tap,
    )
    rec.secret(remote.identity.device_id, "<device-id-c>")
    rec.secret(remote.identity.public_key, "<public-key-c>")
    pairing = await remote.connect()
    if not isinstance(pairing, PairingRequired):
        raise SystemExit(f"a remote device connected without pairing: {pairing}")
    print(pairing.line, file=sys.stderr)
    # Tokens the gateway issued on the way are secrets too, wherever they turn up.
    for sub in ("a", "b", "c"):
        stored = DeviceTokens(ids / sub).get(url, device_id=identity.device_id, role="operator")
        if stored is not None:
            rec.secret(stored.token, "<deviceToken>")


@contextmanager
def seeded_gateway(port: int, token: str, config: dict[str, Any]) -> Iterator[Path]:
    """The real gateway on `port`, seeded from the fixture, `config` its openclaw.json, in a
    temporary directory (its state in `state/`) that is yielded; stopped and removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="record-gw-") as tmp:
        base = Path(tmp)
        state = base / "state"
        (base / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
        _script(
            "start",
            "--state",
            str(state),
            "--port",
            str(port),
            "--token",
            token,
            "--seed-from",
            str(FIXTURE / "legacy-state"),
            "--config",
            str(base / "openclaw.json"),
        )
        try:
            yield base
        finally:
            _script("stop", "--state", str(state), timeout=60)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=FIXTURE / "ws")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    port = args.port or _free_port()
    token = secrets.token_urlsafe(24)
    with seeded_gateway(port, token, {"gateway": {"mode": "local", "trustedProxies": ["127.0.0.1"]}}) as base:
        rec = Recorder()
        rec.secret(str(base), "/tmp/record")
        asyncio.run(record(base / "state", port, token, base / "ids", rec))
        rec.write(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
