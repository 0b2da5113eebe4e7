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

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from record_gateway_frames import ADMIN, FIXTURE, MAIN, Recorder, call, connect  # noqa: E402
from record_sending_frames import record_answers  # noqa: E402

OPS = "agent:main:discord:group:ops"
HI = "agent:main:discord:group:hi"


async def record(port: int, token: str, ids: Path, rec: Recorder) -> None:
    rec.secret(token, "<token>")
    rec.step = "handshake_ops"
    plain = await connect(port, token, ids / "plain", rec, ("operator.read", "operator.write"))
    admin = await connect(port, token, ids / "admin", rec, ADMIN)
    try:
        rec.step = "create"
        await call(plain, "sessions.create", {"key": OPS, "label": "ops"})
        rec.step = "create_message"
        first = {"key": HI, "label": "hi", "message": "hello from sessions-tui"}
        started = await call(plain, "sessions.create", first)
        await call(plain, "agent.wait", {"runId": started["runId"], "timeoutMs": 30000}, timeout=40)
        rec.step = "create_adopts"
        await call(plain, "sessions.create", {"key": OPS})
        rec.step = "create_invalid"
        await call(plain, "sessions.create", {"key": "agent:nobody:discord:group:x"})
        await call(plain, "sessions.create", {"key": "agent:main:discord:group:think", "thinkingLevel": "ultra"})
        rec.step = "describe"
        await call(plain, "sessions.describe", {"key": OPS})
        await call(plain, "sessions.describe", {"key": "agent:main:discord:group:none"})
        rec.step = "rename"
        await call(plain, "sessions.patch", {"key": OPS, "label": "ops renamed"})
        rec.step = "rename_in_use"
        await call(plain, "sessions.patch", {"key": OPS, "label": "hi"})
        rec.step = "rename_invalid"
        await call(plain, "sessions.patch", {"key": OPS, "label": ""})
        rec.step = "model"
        await call(plain, "sessions.patch", {"key": OPS, "model": "local/demo", "thinkingLevel": "off"})
        await call(plain, "sessions.patch", {"key": OPS, "model": None, "thinkingLevel": None})
        await call(plain, "sessions.patch", {"key": OPS, "thinkingLevel": "ultra"})
        rec.step = "archive"
        described = await call(plain, "sessions.describe", {"key": OPS})
        session_id = described["session"]["sessionId"]
        await call(plain, "sessions.patch", {"key": OPS, "archived": True, "expectedSessionId": session_id})
        await call(plain, "sessions.describe", {"key": OPS})
        await call(plain, "sessions.patch", {"key": OPS, "archived": False, "expectedSessionId": session_id})
        rec.step = "archive_main"
        described = await call(plain, "sessions.describe", {"key": MAIN})
        main_id = described["session"]["sessionId"]
        await call(plain, "sessions.patch", {"key": MAIN, "archived": True, "expectedSessionId": main_id})
        rec.step = "reset_scope"
        await call(plain, "sessions.reset", {"key": HI, "reason": "reset"})
        rec.step = "reset"
        await call(admin, "sessions.describe", {"key": HI})
        await call(admin, "sessions.reset", {"key": HI, "reason": "reset"})
        await call(admin, "sessions.describe", {"key": HI})
        rec.step = "compact"
        started = await call(admin, "chat.send", {"sessionKey": HI, "message": "one more", "idempotencyKey": "k1"})
        await call(admin, "agent.wait", {"runId": started["runId"], "timeoutMs": 30000}, timeout=40)
        await call(admin, "sessions.compact", {"key": HI})
        await call(admin, "sessions.compact", {"key": OPS})
        rec.step = "delete_main"
        await call(plain, "sessions.delete", {"key": MAIN, "archivedOnly": True})
        rec.step = "delete"
        described = await call(plain, "sessions.describe", {"key": OPS})
        session_id = described["session"]["sessionId"]
        await call(plain, "sessions.patch", {"key": OPS, "archived": True, "expectedSessionId": session_id})
        await call(plain, "sessions.delete", {"key": OPS, "archivedOnly": True, "expectedSessionId": session_id})
        await call(plain, "sessions.describe", {"key": OPS})
    finally:
        await plain.close()
        await admin.close()


def main() -> int:
    return record_answers(__doc__.splitlines()[0], FIXTURE / "ws" / "session_ops", record, "handshake_ops")


if __name__ == "__main__":
    sys.exit(main())
