"""Record the real OpenClaw gateway's answers to an operator's sends, waits, steers and aborts.

    PYTHONPATH=src python scripts/record_sending_frames.py [--out DIR] [--port P]

`record_gateway_frames.py` records a gateway without a model provider, so every run there fails.
This one starts the gateway (`scripts/openclaw-gateway.sh start`, seeded from
tests/fixtures/openclaw-2026.9.6/legacy-state) with a model of its own: OpenClaw's config names a
provider `local` (`api: openai-completions`) at the tests' scripted OpenAI-compatible server
(tests/openai_server.py, on loopback), the default agent model `local/demo`. The gateway's other
config is its default. A message containing `slow` is answered after 4 s, `fail` with HTTP 400.

Steps, one JSON-lines file each in DIR (default tests/fixtures/openclaw-2026.9.6/ws/sending/), each line
`{"dir": ">" | "<", "frame": …}`: only the requests and their responses (the events between
them are left out: what `backend.gateway.acting.sending` reads is the answers):
`send_ok` (`chat.send` into the group session, `agent.wait` → ok with `terminalReply`,
`chat.history`), `send_failed` (a run the model fails: `agent.wait` → error), `send_timeout`
(a slow run: `agent.wait {timeoutMs: 1000}` → timeout, then `sessions.abort` of the running run →
aborted with its runId), `send_steer` (`chat.send` with `queueMode: "steer"` while a slow run is
active, and its wait), `send_refused` (`chat.send` without a message → INVALID_REQUEST).
Secrets are scrubbed as in record_gateway_frames. The gateway is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from record_gateway_frames import FIXTURE, GROUP, Recorder, _free_port, seeded_gateway  # noqa: E402

from openai_server import Reply, ScriptedOpenAIServer  # noqa: E402  (the tests' scripted model server)
from sessions_tui.backend.gateway.link.connection import GatewayClient, GatewayOptions  # noqa: E402
from sessions_tui.backend.gateway.link.refusals import RequestFailed  # noqa: E402

SLOW_SECONDS = 4.0


def _model_config(model_url: str, cost: dict[str, float] | None = None) -> dict[str, Any]:
    model = {
        "id": "demo",
        "name": "Demo",
        "reasoning": False,
        "input": ["text"],
        "cost": cost or {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 32000,
        "maxTokens": 1024,
    }
    return {
        "gateway": {"mode": "local"},
        "agents": {"defaults": {"model": {"primary": "local/demo"}}},
        "models": {
            "mode": "merge",
            "providers": {
                "local": {"baseUrl": model_url, "apiKey": "local-key", "api": "openai-completions", "models": [model]}
            },
        },
    }


def _last_user_text(request: dict[str, Any]) -> str:
    """The newest user message's text, past the gateway's own context block that follows it."""
    for message in reversed(request.get("messages") or []):
        if message.get("role") == "user":
            content = message.get("content")
            text = content if isinstance(content, str) else json.dumps(content)
            if "OPENCLAW_INTERNAL_CONTEXT" not in text:
                return text
    return ""


def _model() -> ScriptedOpenAIServer:
    server = ScriptedOpenAIServer(default=Reply(text="pong from the scripted model"))

    def rule(request: dict[str, Any]) -> Reply | None:
        text = _last_user_text(request)
        if "fail" in text:
            return Reply(status=400, error_message="the scripted model refuses this one")
        if "slow" in text:
            return Reply(text="a slow answer", delay=SLOW_SECONDS)
        return None

    server.on(rule)
    return server.start()


def _key() -> str:
    return secrets.token_hex(8)


async def record(port: int, token: str, ids: Path, rec: Recorder) -> None:
    rec.secret(token, "<token>")
    client = GatewayClient(GatewayOptions(url=f"ws://127.0.0.1:{port}", token=token, identity_dir=ids), tap=rec.tap)
    rec.step = "handshake_sending"
    hello = await client.start()
    rec.secret(hello.auth.deviceToken, "<deviceToken>")
    rec.secret(client.identity.device_id, "<device-id>")
    rec.secret(client.identity.public_key, "<public-key>")
    try:
        rec.step = "send_ok"
        started = await client.request(
            "chat.send", {"sessionKey": GROUP, "message": "hello from sessions-tui", "idempotencyKey": _key()}
        )
        await client.request("agent.wait", {"runId": started["runId"], "timeoutMs": 30000}, timeout=40)
        await client.request("chat.history", {"sessionKey": GROUP, "limit": 50})

        rec.step = "send_failed"
        started = await client.request(
            "chat.send", {"sessionKey": GROUP, "message": "please fail", "idempotencyKey": _key()}
        )
        await client.request("agent.wait", {"runId": started["runId"], "timeoutMs": 30000}, timeout=40)

        rec.step = "send_timeout"
        started = await client.request(
            "chat.send", {"sessionKey": GROUP, "message": "a slow one", "idempotencyKey": _key()}
        )
        await client.request("agent.wait", {"runId": started["runId"], "timeoutMs": 1000}, timeout=10)
        await client.request("sessions.abort", {"key": GROUP, "clearQueued": True})
        await client.request("agent.wait", {"runId": started["runId"], "timeoutMs": 30000}, timeout=40)

        rec.step = "send_steer"
        started = await client.request(
            "chat.send", {"sessionKey": GROUP, "message": "another slow one", "idempotencyKey": _key()}
        )
        await asyncio.sleep(1.0)  # the run is with the model now
        steered = await client.request(
            "chat.send",
            {"sessionKey": GROUP, "message": "steer: be brief", "idempotencyKey": _key(), "queueMode": "steer"},
        )
        await client.request("agent.wait", {"runId": started["runId"], "timeoutMs": 30000}, timeout=40)
        await client.request("agent.wait", {"runId": steered["runId"], "timeoutMs": 30000}, timeout=40)
        await client.request("chat.history", {"sessionKey": GROUP, "limit": 50})

        rec.step = "send_refused"
        try:
            await client.request("chat.send", {"sessionKey": GROUP, "idempotencyKey": _key()})
        except RequestFailed as failed:
            print(failed.line, file=sys.stderr)
    finally:
        await client.close()


Recording = Callable[[int, str, Path, Recorder], Awaitable[None]]
"""What a recording does against the gateway: its port, token, identity directory and recorder."""


class _AnswersOnly(Recorder):
    """Keeps requests and responses; drops events."""

    def tap(self, direction: str, text: str) -> None:
        if json.loads(text).get("type") in ("req", "res"):
            super().tap(direction, text)


def record_answers(
    description: str, default_out: Path, record: Recording, handshake: str, cost: dict[str, float] | None = None
) -> int:
    """A recording script's whole run: a seeded gateway with the scripted model (priced at `cost`, per
    million tokens, else free), `record` against it, its requests and answers (not its `handshake`
    frame) written under `--out`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path, default=default_out)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    port = args.port or _free_port()
    token = secrets.token_urlsafe(24)
    model = _model()
    try:
        with seeded_gateway(port, token, _model_config(model.url, cost)) as base:
            rec = _AnswersOnly()
            rec.secret(str(base), "/tmp/record")
            asyncio.run(record(port, token, base / "ids", rec))
            rec.frames.pop(handshake, None)
            rec.write(args.out)
    finally:
        model.stop()
    return 0


def main() -> int:
    return record_answers(__doc__.splitlines()[0], FIXTURE / "ws" / "sending", record, "handshake_sending")


if __name__ == "__main__":
    sys.exit(main())
