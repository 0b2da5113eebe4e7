"""Record the real OpenClaw gateway's answers to the usage calls: `sessions.usage` and `usage.cost`.

    PYTHONPATH=src python scripts/record_usage_frames.py [--out DIR] [--port P]

Starts the gateway with a model, as `record_sending_frames.py` does (seeded from the legacy state, whose
transcripts carry usage; a provider `local` at the tests' scripted OpenAI-compatible server), sends one
message so a turn of today has its usage too (its model priced, so it has a cost), and connects twice:
with the scopes sessions-tui asks for by default (`operator.read`, `operator.write`) and with
`operator.admin` besides. Keeps requests and responses only, one JSON-lines file per step in DIR
(default tests/fixtures/openclaw-2026.9.6/ws/usage/), each line `{"dir": ">" | "<", "frame": …}`:

`turn` (`chat.send` and its `agent.wait`), `refreshing` (the first `sessions.usage` of every agent since
2026-01-01 to today, UTC: the gateway's usage cache is cold, its totals empty and `cacheStatus`
`refreshing`), `sessions` (the same once the cache is `fresh`, asked again every 2 s until then),
`session` (`sessions.usage` of one key), `cost` (`usage.cost` of every agent over the same days, as the
default scopes and as an admin), `invalid` (`sessions.usage` with a start after its end:
INVALID_REQUEST). Secrets scrubbed as in record_gateway_frames. The gateway is stopped at the end.
"""

from __future__ import annotations

import asyncio
import secrets
import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from record_gateway_frames import ADMIN, FIXTURE, GROUP, Recorder, call, connect  # noqa: E402
from record_sending_frames import record_answers  # noqa: E402

SINCE = "2026-01-01"
PRICE = {"input": 2.0, "output": 10.0, "cacheRead": 0.2, "cacheWrite": 0.0}


async def record(port: int, token: str, ids: Path, rec: Recorder) -> None:
    rec.secret(token, "<token>")
    rec.step = "handshake_usage"
    plain = await connect(port, token, ids / "plain", rec, ("operator.read", "operator.write"))
    admin = await connect(port, token, ids / "admin", rec, ADMIN)
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    days = {"startDate": SINCE, "endDate": today}
    try:
        rec.step = "turn"
        sent = {"sessionKey": GROUP, "message": "hello from sessions-tui", "idempotencyKey": secrets.token_hex(8)}
        started = await call(plain, "chat.send", sent)
        await call(plain, "agent.wait", {"runId": started["runId"], "timeoutMs": 30000}, timeout=40)
        rec.step = "refreshing"  # the first ask: the gateway's usage cache is cold, its totals empty
        everything = {"agentScope": "all", **days, "limit": 1000}
        await call(plain, "sessions.usage", everything)
        for _ in range(30):  # the Control UI asks again a few seconds later; so do we, until it is fresh
            await asyncio.sleep(2)
            rec.step = "sessions_warming"
            answer = await call(plain, "sessions.usage", everything)
            if answer is None or answer.get("cacheStatus", {}).get("status") == "fresh":
                break
        rec.frames.pop("sessions_warming", None)
        rec.step = "sessions"
        await call(plain, "sessions.usage", everything)
        rec.step = "session"
        await call(plain, "sessions.usage", {"key": GROUP, **days})
        rec.step = "cost"
        await call(plain, "usage.cost", {"agentScope": "all", **days})
        await call(admin, "usage.cost", {"agentScope": "all", **days})
        rec.step = "invalid"
        await call(plain, "sessions.usage", {"agentScope": "all", "startDate": today, "endDate": SINCE})
    finally:
        await plain.close()
        await admin.close()


def main() -> int:
    return record_answers(__doc__.splitlines()[0], FIXTURE / "ws" / "usage", record, "handshake_usage", PRICE)


if __name__ == "__main__":
    sys.exit(main())
