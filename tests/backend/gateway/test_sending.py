"""Replying, steering and stopping as a gateway's operator, on the real gateway's recorded answers.

`Replay` plays the gateway: each request is answered with the recorded response to the first
unused recorded request of the same method for the same session or run (so a test may ask in an
order of its own), and it checks the parameters we send against the recorded ones. The recordings
(tests/fixtures/openclaw-2026.9.6/ws/) are `chat_send` and `sessions_abort` (a gateway without a
model provider) and, in ws/sending/, the `send_*` steps of scripts/record_sending_frames.py (a gateway whose model
is the tests' scripted OpenAI-compatible server: ok, failed, timed out then aborted, steered,
refused).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessions_tui.backend.contract.types import AbortOutcome
from sessions_tui.backend.gateway.acting.sending import WAIT_SLACK_S, abort, send_message, steer, wait_for_reply
from sessions_tui.backend.gateway.link.frames import GatewayError, RequestFrame, ResponseFrame, parse_frame
from sessions_tui.backend.gateway.link.refusals import ConnectionLost, RequestFailed

WS = Path(__file__).resolve().parents[2] / "fixtures" / "openclaw-2026.9.6" / "ws"
SENDING = WS / "sending"
GROUP = "agent:main:discord:group:123"
URL = "ws://127.0.0.1:18789"
TIMEOUT_TEXT = "No reply within {n}s; the run goes on. Use sessions_history to read its reply later."
_IDENTIFYING = ("sessionKey", "key", "runId")


class Replay:
    """A `GatewayCalls` answering from one or more recorded steps."""

    def __init__(self, *steps: str) -> None:
        self.exchanges: list[tuple[dict[str, Any], dict[str, Any]]] = []
        for step in steps:
            path = WS / f"{step}.jsonl" if (WS / f"{step}.jsonl").exists() else SENDING / f"{step}.jsonl"
            frames = [json.loads(line)["frame"] for line in path.read_text("utf-8").splitlines()]
            answers = {f["id"]: f for f in frames if f["type"] == "res"}
            self.exchanges += [(f, answers[f["id"]]) for f in frames if f["type"] == "req" and f["id"] in answers]
        self.sent: list[tuple[str, dict[str, Any], float | None]] = []

    async def request(self, method: str, params: Any = None, *, timeout: float | None = None) -> Any:
        self.sent.append((method, params, timeout))
        matching = [
            index
            for index, (request, _) in enumerate(self.exchanges)
            if request["method"] == method
            and all((request.get("params") or {}).get(k) == params.get(k) for k in _IDENTIFYING)
        ]
        assert matching, f"nothing recorded answers {method} {params}"
        request, response = self.exchanges.pop(matching[0])
        recorded = request.get("params") or {}
        for name in recorded.keys() - {"idempotencyKey"}:  # ours is new each time; the rest as recorded
            assert params.get(name) == recorded[name], (method, name)
        if not response["ok"]:
            raise RequestFailed(method, GatewayError.model_validate(response["error"]), url=URL)
        return response["payload"]


def _answered_run(step: str, *, queue_mode: str) -> str:
    """The runId the gateway answered to the recorded `chat.send` with that `queueMode`."""
    response = next(r for q, r in Replay(step).exchanges if (q.get("params") or {}).get("queueMode") == queue_mode)
    run_id: str = response["payload"]["runId"]
    return run_id


@pytest.mark.parametrize("path", sorted(SENDING.glob("*.jsonl")), ids=lambda p: p.stem)
def test_every_recorded_sending_frame_parses(path: Path) -> None:
    for line in path.read_text("utf-8").splitlines():
        record = json.loads(line)
        frame = parse_frame(json.dumps(record["frame"]))
        assert isinstance(frame, RequestFrame if record["dir"] == ">" else ResponseFrame)


class Failing:
    """A `GatewayCalls` whose every call raises `error`."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def request(self, method: str, params: Any = None, *, timeout: float | None = None) -> Any:
        raise self.error


async def test_a_reply_comes_from_the_wait_on_the_run() -> None:
    calls = Replay("send_ok")
    result = await send_message(calls, GROUP, "hello from sessions-tui", timeout_seconds=30)
    run_id = result["runId"]
    assert result == {"runId": run_id, "status": "ok", "reply": "pong from the scripted model", "sessionKey": GROUP}
    # chat.send, then agent.wait on its runId with our wait (and a little more on the call itself):
    # the terminalReply carries the text, so no history is read.
    assert [(m, p.get("runId"), p.get("timeoutMs"), t) for m, p, t in calls.sent] == [
        ("chat.send", None, None, None),
        ("agent.wait", run_id, 30000, 30 + WAIT_SLACK_S),
    ]
    assert calls.sent[0][1]["message"] == "hello from sessions-tui"


async def test_timeout_zero_is_accepted_once_the_gateway_started_the_run() -> None:
    calls = Replay("chat_send")  # the gateway without a model: its run fails later, unseen
    result = await send_message(calls, GROUP, "hello from sessions-tui", timeout_seconds=0)
    assert result == {"runId": "561bcfb94033ab59", "status": "accepted", "sessionKey": GROUP}
    assert [m for m, _, _ in calls.sent] == ["chat.send"]


async def test_a_failed_run_is_an_error_with_the_gateways_text() -> None:
    result = await send_message(Replay("send_failed"), GROUP, "please fail", timeout_seconds=30)
    assert result["status"] == "error" and result["sessionKey"] == GROUP
    assert result["error"].startswith("⚠️ Agent failed before reply: LLM request failed")
    assert set(result) == {"runId", "status", "error", "sessionKey"}


async def test_a_slow_run_times_out_goes_on_and_stops_when_aborted() -> None:
    calls = Replay("send_timeout")
    result = await send_message(calls, GROUP, "a slow one", timeout_seconds=1)
    run_id = result["runId"]
    assert result == {"runId": run_id, "status": "timeout", "error": TIMEOUT_TEXT.format(n=1), "sessionKey": GROUP}

    outcome = await abort(calls, GROUP, clear_queued=True)
    assert outcome == AbortOutcome(session_key=GROUP, aborted=True, run_id=run_id, status="aborted")

    late = await wait_for_reply(calls, GROUP, run_id, timeout_seconds=30)  # the late wait sees the abort
    assert late == {"runId": run_id, "status": "error", "error": "run ended: rpc", "sessionKey": GROUP}


async def test_abort_with_nothing_running() -> None:
    calls = Replay("sessions_abort")
    outcome = await abort(calls, GROUP, clear_queued=False)
    assert outcome == AbortOutcome(session_key=GROUP, aborted=False, run_id=None, status="no-active-run")
    assert calls.sent == [("sessions.abort", {"key": GROUP, "clearQueued": False}, None)]


async def test_a_steer_goes_into_the_active_run_and_its_reply_is_read_from_history() -> None:
    calls = Replay("send_steer")
    first = await send_message(calls, GROUP, "another slow one", timeout_seconds=0)
    steered = await steer(calls, GROUP, "steer: be brief")
    run_id = _answered_run("send_steer", queue_mode="steer")
    assert steered == {"runId": run_id, "status": "accepted", "sessionKey": GROUP}
    assert calls.sent[1][1]["queueMode"] == "steer"
    # The steered wait has no terminalReply (the active run answered): the reply is the newest
    # assistant message after our own user message (`<runId>:user`) in chat.history.
    result = await wait_for_reply(calls, GROUP, steered["runId"], timeout_seconds=30)
    assert result == {"runId": run_id, "status": "ok", "reply": "pong from the scripted model", "sessionKey": GROUP}
    assert [m for m, _, _ in calls.sent][-2:] == ["agent.wait", "chat.history"]
    assert first["status"] == "accepted"


async def test_a_refused_send_is_one_error_line() -> None:
    result = await send_message(Replay("send_refused"), GROUP, "", timeout_seconds=30)
    assert result["status"] == "error"
    assert result["error"] == (
        f"gateway {URL} refused chat.send: invalid chat.send params: must have required property 'message' "
        "(INVALID_REQUEST)"
    )
    assert "\n" not in result["error"]


async def test_a_steer_refused_is_an_error() -> None:
    result = await steer(Replay("send_refused"), GROUP, "")
    assert result["status"] == "error" and "INVALID_REQUEST" in result["error"]


@pytest.mark.parametrize(
    ("error", "status", "text"),
    [
        (ConnectionLost(f"not connected to gateway {URL}"), "error", f"not connected to gateway {URL}"),
        (TimeoutError(), "error", "the gateway did not answer chat.send"),
    ],
)
async def test_a_send_the_gateway_never_took(error: Exception, status: str, text: str) -> None:
    result = await send_message(Failing(error), GROUP, "hi", timeout_seconds=30)
    assert (result["status"], result["error"], result["sessionKey"]) == (status, text, GROUP)


async def test_a_wait_whose_call_runs_out_is_a_timeout_and_a_lost_one_an_error() -> None:
    timed_out = await wait_for_reply(Failing(TimeoutError()), GROUP, "r1", timeout_seconds=5)
    assert timed_out == {"runId": "r1", "status": "timeout", "error": TIMEOUT_TEXT.format(n=5), "sessionKey": GROUP}
    lost = await wait_for_reply(Failing(ConnectionLost("connection to gateway closed")), GROUP, "r1", timeout_seconds=5)
    assert lost == {
        "runId": "r1",
        "status": "error",
        "error": "connection to gateway closed; the run goes on",
        "sessionKey": GROUP,
    }


class Scripted:
    """A `GatewayCalls` with hand-made answers by method."""

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers

    async def request(self, method: str, params: Any = None, *, timeout: float | None = None) -> Any:
        return self.answers[method]


async def test_a_silent_run_has_no_reply_and_a_stale_reply_is_never_taken() -> None:
    silent = Scripted({"agent.wait": {"runId": "r1", "status": "ok", "terminalReply": {"disposition": "silent"}}})
    assert await wait_for_reply(silent, GROUP, "r1", timeout_seconds=5) == {
        "runId": "r1",
        "status": "ok",
        "sessionKey": GROUP,
    }
    # No terminalReply, and no assistant message since ours: the earlier reply is not this run's.
    history = json.loads((WS / "chat_history.jsonl").read_text("utf-8").splitlines()[-1])["frame"]["payload"]
    ours = next(m for m in history["messages"] if m.get("idempotencyKey", "").endswith(":user"))
    run_id = ours["idempotencyKey"].removesuffix(":user")
    stale = Scripted({"agent.wait": {"runId": run_id, "status": "ok"}, "chat.history": history})
    assert "reply" not in await wait_for_reply(stale, GROUP, run_id, timeout_seconds=5)


async def test_a_reply_tagged_with_the_run_wins() -> None:
    history = {
        "messages": [
            {"role": "user", "content": "hi", "idempotencyKey": "r1:user"},
            {"role": "assistant", "content": [{"type": "text", "text": "first"}], "__openclaw": {"runId": "r1"}},
            {"role": "assistant", "content": [{"type": "text", "text": "other run"}], "__openclaw": {"runId": "r2"}},
        ]
    }
    calls = Scripted({"agent.wait": {"runId": "r1", "status": "ok"}, "chat.history": history})
    assert (await wait_for_reply(calls, GROUP, "r1", timeout_seconds=5))["reply"] == "first"


async def test_a_wait_still_pending_is_a_timeout() -> None:
    calls = Scripted({"agent.wait": {"runId": "r1", "status": "pending", "timeoutPhase": "queue"}})
    assert (await wait_for_reply(calls, GROUP, "r1", timeout_seconds=2))["status"] == "timeout"
