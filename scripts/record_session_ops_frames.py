"""Record the real OpenClaw gateway's answers to the operator's operations on a session.

    PYTHONPATH=src python scripts/record_session_ops_frames.py [--out DIR] [--port P]

Starts the gateway with a model, as `record_sending_frames.py` does (a provider `local` at the tests'
scripted OpenAI-compatible server), and connects twice: with the scopes sessions-tui asks for by
default (`operator.read`, `operator.write`) and with `operator.admin` besides, which
`sessions.reset`, `sessions.compact` and an unguarded `sessions.delete` need. Keeps requests and
responses only, one JSON-lines file per step in DIR (default
tests/fixtures/openclaw-2026.9.6/ws/session_ops/), each line `{"dir": ">" | "<", "frame": …}`:

`create` (a key and a label: `runStarted: false`), `create_message` (a first message: `runStarted:
true` with its runId; its `agent.wait`), `create_adopts` (an existing key: the gateway adopts it,
no refusal), `create_invalid` (an unknown agent, a thinking level the model has not: INVALID_REQUEST),
`describe` (a session; a key of none), `rename` (`sessions.patch {label}`), `rename_in_use`,
`rename_invalid` (an empty label), `model` (model + thinkingLevel set, then cleared with null),
`archive` (`sessions.patch {archived, expectedSessionId}` and back), `archive_main`, `reset_scope`
(`sessions.reset` without operator.admin: MISSING_SCOPE), `reset` (of a session with a transcript),
`compact` (one with a transcript; one too small), `delete_main`, `delete` (archived, then
`sessions.delete {archivedOnly}`). Secrets scrubbed as in record_gateway_frames. The gateway is
stopped at the end.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from record_gateway_frames import FIXTURE, MAIN, Recorder  # noqa: E402
from record_sending_frames import record_answers  # noqa: E402

from sessions_tui.backend.gateway.connection import GatewayClient, GatewayOptions  # noqa: E402
from sessions_tui.backend.gateway.refusals import RequestFailed  # noqa: E402

OPS = "agent:main:discord:group:ops"
HI = "agent:main:discord:group:hi"
ADMIN = ("operator.read", "operator.write", "operator.admin")


async def _call(client: GatewayClient, method: str, params: dict[str, Any], timeout: float | None = None) -> Any:
    """The answer, or None after printing the gateway's refusal (recorded all the same)."""
    try:
        return await client.request(method, params, timeout=timeout)
    except RequestFailed as failed:
        print(f"{method}: {failed.line}", file=sys.stderr)
        return None


async def _connect(port: int, token: str, ids: Path, rec: Recorder, scopes: tuple[str, ...]) -> GatewayClient:
    client = GatewayClient(
        GatewayOptions(url=f"ws://127.0.0.1:{port}", token=token, identity_dir=ids, scopes=scopes), tap=rec.tap
    )
    hello = await client.start()
    rec.secret(hello.auth.deviceToken, "<deviceToken>")
    rec.secret(client.identity.device_id, "<device-id>")
    rec.secret(client.identity.public_key, "<public-key>")
    return client


async def record(port: int, token: str, ids: Path, rec: Recorder) -> None:
    rec.secret(token, "<token>")
    rec.step = "handshake_ops"
    plain = await _connect(port, token, ids / "plain", rec, ("operator.read", "operator.write"))
    admin = await _connect(port, token, ids / "admin", rec, ADMIN)
    try:
        rec.step = "create"
        await _call(plain, "sessions.create", {"key": OPS, "label": "ops"})
        rec.step = "create_message"
        first = {"key": HI, "label": "hi", "message": "hello from sessions-tui"}
        started = await _call(plain, "sessions.create", first)
        await _call(plain, "agent.wait", {"runId": started["runId"], "timeoutMs": 30000}, timeout=40)
        rec.step = "create_adopts"
        await _call(plain, "sessions.create", {"key": OPS})
        rec.step = "create_invalid"
        await _call(plain, "sessions.create", {"key": "agent:nobody:discord:group:x"})
        await _call(plain, "sessions.create", {"key": "agent:main:discord:group:think", "thinkingLevel": "ultra"})
        rec.step = "describe"
        await _call(plain, "sessions.describe", {"key": OPS})
        await _call(plain, "sessions.describe", {"key": "agent:main:discord:group:none"})
        rec.step = "rename"
        await _call(plain, "sessions.patch", {"key": OPS, "label": "ops renamed"})
        rec.step = "rename_in_use"
        await _call(plain, "sessions.patch", {"key": OPS, "label": "hi"})
        rec.step = "rename_invalid"
        await _call(plain, "sessions.patch", {"key": OPS, "label": ""})
        rec.step = "model"
        await _call(plain, "sessions.patch", {"key": OPS, "model": "local/demo", "thinkingLevel": "off"})
        await _call(plain, "sessions.patch", {"key": OPS, "model": None, "thinkingLevel": None})
        await _call(plain, "sessions.patch", {"key": OPS, "thinkingLevel": "ultra"})
        rec.step = "archive"
        described = await _call(plain, "sessions.describe", {"key": OPS})
        session_id = described["session"]["sessionId"]
        await _call(plain, "sessions.patch", {"key": OPS, "archived": True, "expectedSessionId": session_id})
        await _call(plain, "sessions.describe", {"key": OPS})
        await _call(plain, "sessions.patch", {"key": OPS, "archived": False, "expectedSessionId": session_id})
        rec.step = "archive_main"
        described = await _call(plain, "sessions.describe", {"key": MAIN})
        main_id = described["session"]["sessionId"]
        await _call(plain, "sessions.patch", {"key": MAIN, "archived": True, "expectedSessionId": main_id})
        rec.step = "reset_scope"
        await _call(plain, "sessions.reset", {"key": HI, "reason": "reset"})
        rec.step = "reset"
        await _call(admin, "sessions.describe", {"key": HI})
        await _call(admin, "sessions.reset", {"key": HI, "reason": "reset"})
        await _call(admin, "sessions.describe", {"key": HI})
        rec.step = "compact"
        started = await _call(admin, "chat.send", {"sessionKey": HI, "message": "one more", "idempotencyKey": "k1"})
        await _call(admin, "agent.wait", {"runId": started["runId"], "timeoutMs": 30000}, timeout=40)
        await _call(admin, "sessions.compact", {"key": HI})
        await _call(admin, "sessions.compact", {"key": OPS})
        rec.step = "delete_main"
        await _call(plain, "sessions.delete", {"key": MAIN, "archivedOnly": True})
        rec.step = "delete"
        described = await _call(plain, "sessions.describe", {"key": OPS})
        session_id = described["session"]["sessionId"]
        await _call(plain, "sessions.patch", {"key": OPS, "archived": True, "expectedSessionId": session_id})
        await _call(plain, "sessions.delete", {"key": OPS, "archivedOnly": True, "expectedSessionId": session_id})
        await _call(plain, "sessions.describe", {"key": OPS})
    finally:
        await plain.close()
        await admin.close()


def main() -> int:
    return record_answers(__doc__.splitlines()[0], FIXTURE / "ws" / "session_ops", record, "handshake_ops")


if __name__ == "__main__":
    sys.exit(main())
