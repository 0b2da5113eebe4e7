"""Acting on an OpenClaw gateway's sessions as its operator, over its WebSocket: reply, steer, stop.

Every function takes anything with `request(method, params, *, timeout)` (`GatewayCalls`; a
connected `connection.GatewayClient` is one) and speaks the gateway's own methods, as observed on
the real 2026.9.6 (`scripts/record_sending_frames.py` recorded the answers the tests replay):

- `send_message` is a reply by hand (the composer, `send`, `tool sessions_send`) into any session,
  main, group, cron, hook or sub-agent, with the gateway's default config. It uses `chat.send
  {sessionKey, message, idempotencyKey}`, the method of OpenClaw's own Control UI and TUI: on the
  real gateway it starts a run in every one of those kinds (`{runId, status: "started"}`, the runId
  being our idempotencyKey), needs only `operator.write`, and, unlike the HTTP `sessions_send`
  tool, no `gateway.tools.allow`. (`sessions.send {key, …}` answers the same on this release;
  `chat.send` is the one the gateway documents for interactive sends, with its `queueMode`.)
  It then waits on the run with `agent.wait {runId, timeoutMs}`, which answers when the run ends
  (`ok` with `terminalReply: {disposition, text}`, or `error` with the gateway's `error` text and
  sometimes a `stopReason`, e.g. `rpc` for an abort) or when `timeoutMs` passes (`timeout`, the run
  going on): no history is polled. The reply is the wait's `terminalReply.text` when it is
  `visible`; without a `terminalReply` (a run steered into another), the newest assistant message
  of this run in `chat.history` (tagged with the runId, or after our own user message, which the
  gateway keys `<idempotencyKey>:user`), so a stale reply is never returned.
- `steer` sends into the session's active run (`chat.send` with `queueMode: "steer"`: the gateway
  injects the message into the direct active run, or starts a turn when the session is idle). The
  gateway has no sub-agent methods over the socket (no `subagents.*` in `hello-ok.features.methods`;
  `sessions.steer` still answers but is a deprecated alias, not advertised): a sub-agent is steered
  by steering its own session key, and killed by `abort` on its key.
- `abort` stops a session's active run: `sessions.abort {key, clearQueued}`.

The results of `send_message` and `steer` are shaped as our `sessions_send` tool's
(tools/acting/sessions_send.py): `{runId, status, reply?, error?, sessionKey}` with its status words,
`ok` (with `reply` when the run wrote one), `accepted` (`timeout_seconds` 0: the run goes on),
`timeout` (our words: the run goes on) and `error` (the gateway's text; a refusal of the call
itself in one line). There is no `delivery`: an operator's reply plays no agent-to-agent
announce. Texts are the gateway's as they came: the caller redacts them, as it does a local result.
"""

from __future__ import annotations

import uuid
from typing import Any, Protocol

from pydantic import ConfigDict

from sessions_tui.backend.contract.types import AbortOutcome
from sessions_tui.backend.gateway.link.refusals import ConnectionLost, RequestFailed
from sessions_tui.engine.lazy_model import LazyModel

__all__ = ["WAIT_SLACK_S", "GatewayCalls", "abort", "send_message", "steer", "wait_for_reply"]

WAIT_SLACK_S = 2.0
"""The `agent.wait` call's own deadline beyond its `timeoutMs` (OpenClaw's tool allows the same)."""
_HISTORY_LIMIT = 50
"""How far back `chat.history` is read for a reply (OpenClaw's `SESSIONS_SEND_REPLY_HISTORY_LIMIT`)."""


class GatewayCalls(Protocol):
    """Something that calls a gateway's methods: `connection.GatewayClient`, or a test's fake."""

    async def request(self, method: str, params: Any = None, *, timeout: float | None = None) -> Any:
        """The method's payload; `RequestFailed`, `ConnectionLost` or `TimeoutError` otherwise."""
        ...


class _Answer(LazyModel):
    model_config = ConfigDict(defer_build=True, extra="allow")


class _Started(_Answer):
    """`chat.send`'s answer: `{runId, status: "started"}`."""

    runId: str | None = None
    status: str | None = None


class _TerminalReply(_Answer):
    disposition: str | None = None
    text: str | None = None


class _Waited(_Answer):
    """`agent.wait`'s answer: `{runId, status: ok|error|timeout|pending, endedAt?, error?, …}`."""

    runId: str | None = None
    status: str = "timeout"
    endedAt: int | None = None
    error: str | None = None
    stopReason: str | None = None
    terminalReply: _TerminalReply | None = None


class _Aborted(_Answer):
    """`sessions.abort`'s answer: `{ok, abortedRunId, status: aborted|no-active-run}`."""

    ok: bool = True
    abortedRunId: str | None = None
    status: str | None = None


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _error(run_id: str, key: str, text: str) -> dict[str, Any]:
    return {"runId": run_id, "status": "error", "error": text, "sessionKey": key}


async def _start(calls: GatewayCalls, key: str, message: str, queue_mode: str | None) -> tuple[str, str | None]:
    """`chat.send`: (runId, None), or (our idempotencyKey, the refusal in one line)."""
    idempotency_key = uuid.uuid4().hex
    params: dict[str, Any] = {"sessionKey": key, "message": message, "idempotencyKey": idempotency_key}
    if queue_mode is not None:
        params["queueMode"] = queue_mode
    try:
        answer = _Started.model_validate(await calls.request("chat.send", params))
    except RequestFailed as failed:
        return idempotency_key, _one_line(failed.line)
    except (ConnectionLost, TimeoutError) as exc:
        return idempotency_key, _one_line(str(exc) or "the gateway did not answer chat.send")
    return answer.runId or idempotency_key, None


async def send_message(calls: GatewayCalls, key: str, message: str, *, timeout_seconds: int) -> dict[str, Any]:
    """Send `message` into session `key` as the operator; wait up to `timeout_seconds` for the reply.

    `timeout_seconds` 0 returns `accepted` once the gateway has started the run.
    """
    run_id, refused = await _start(calls, key, message, None)
    if refused is not None:
        return _error(run_id, key, refused)
    if timeout_seconds == 0:
        return {"runId": run_id, "status": "accepted", "sessionKey": key}
    return await wait_for_reply(calls, key, run_id, timeout_seconds=timeout_seconds)


async def wait_for_reply(calls: GatewayCalls, key: str, run_id: str, *, timeout_seconds: int) -> dict[str, Any]:
    """Wait on run `run_id` of session `key` (`agent.wait`): `ok` with its reply, `timeout`, `error`.

    Also what a late reply is read with: wait again on the same runId.
    """
    timeout_ms = timeout_seconds * 1000
    timed_out = {
        "runId": run_id,
        "status": "timeout",
        "error": f"No reply within {timeout_seconds}s; the run goes on. Use sessions_history to read its reply later.",
        "sessionKey": key,
    }
    try:
        raw = await calls.request(
            "agent.wait", {"runId": run_id, "timeoutMs": timeout_ms}, timeout=timeout_seconds + WAIT_SLACK_S
        )
    except TimeoutError:
        return timed_out
    except RequestFailed as failed:
        return _error(run_id, key, _one_line(failed.line))
    except ConnectionLost as lost:
        return _error(run_id, key, f"{_one_line(str(lost))}; the run goes on")
    waited = _Waited.model_validate(raw)
    if waited.status in ("timeout", "pending"):  # `pending`: still queued when the wait ran out
        return timed_out
    if waited.status != "ok":
        reason = f"run ended: {waited.stopReason}" if waited.stopReason else "agent error"
        return _error(run_id, key, waited.error or reason)
    reply = await _reply_of(calls, key, run_id, waited.terminalReply)
    result: dict[str, Any] = {"runId": run_id, "status": "ok"}
    if reply is not None:
        result["reply"] = reply
    result["sessionKey"] = key
    return result


async def _reply_of(calls: GatewayCalls, key: str, run_id: str, terminal: _TerminalReply | None) -> str | None:
    """The run's reply: the wait's `terminalReply` when it has one, else from `chat.history`."""
    if terminal is not None:
        return terminal.text if terminal.disposition == "visible" and terminal.text else None
    try:
        history = await calls.request("chat.history", {"sessionKey": key, "limit": _HISTORY_LIMIT})
    except (RequestFailed, ConnectionLost, TimeoutError):
        return None
    messages = history.get("messages") if isinstance(history, dict) else None
    return _reply_in(messages if isinstance(messages, list) else [], run_id)


def _reply_in(messages: list[Any], run_id: str) -> str | None:
    """The newest assistant text tagged with run `run_id`, else the newest after our user message."""
    rows = [m for m in messages if isinstance(m, dict)]

    def meta(message: dict[str, Any]) -> dict[str, Any]:
        found = message.get("__openclaw")
        return found if isinstance(found, dict) else {}

    for message in reversed(rows):
        text = _text_of(message.get("content")) if message.get("role") == "assistant" else ""
        if text and meta(message).get("runId") == run_id:
            return text
    ours = f"{run_id}:user"
    newest: str | None = None
    for message in reversed(rows):
        if message.get("role") == "user" and ours in (
            message.get("idempotencyKey"),
            meta(message).get("idempotencyKey"),
        ):
            return newest
        text = _text_of(message.get("content")) if message.get("role") == "assistant" else ""
        if text and newest is None:
            newest = text
    return None


def _text_of(content: Any) -> str:
    """A transcript message's text: its string, or its `text` parts joined."""
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        return "\n".join(p for p in parts if isinstance(p, str) and p).strip()
    return ""


async def steer(calls: GatewayCalls, key: str, message: str) -> dict[str, Any]:
    """Steer session `key`'s active run with `message` (a new turn when it is idle); does not wait.

    `accepted` with the runId the gateway gave the steering message, or `error` in one line.
    """
    run_id, refused = await _start(calls, key, message, "steer")
    if refused is not None:
        return _error(run_id, key, refused)
    return {"runId": run_id, "status": "accepted", "sessionKey": key}


async def abort(calls: GatewayCalls, key: str, *, clear_queued: bool) -> AbortOutcome:
    """Stop session `key`'s active run (`clear_queued`: its queued turns too).

    Raises `RequestFailed` (its `line` says why), `ConnectionLost` or `TimeoutError`: an abort that
    did not happen is not an outcome. The gateway does not say how many queued turns it dropped.
    """
    answer = _Aborted.model_validate(await calls.request("sessions.abort", {"key": key, "clearQueued": clear_queued}))
    run_id = answer.abortedRunId
    status = answer.status or ("aborted" if run_id else "no-active-run")
    return AbortOutcome(session_key=key, aborted=status == "aborted", run_id=run_id, status=status)
