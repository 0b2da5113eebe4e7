"""`sessions_send` (OpenClaw's tool; docs/decisions.md D6, D8, D13): a message into another
visible session.

Resolution and gating follow OpenClaw's order (sessionKey or label, the label's agent, the
reference, the sandbox, visibility); the send policy is the engine's (it guards every way into a
session). With `timeoutSeconds: 0` the run goes on and the call returns `accepted`;
otherwise it waits for the run and returns its new reply (never a stale one), `timeout` (the run
goes on) or `error`. The ping-pong and the announce then run in the background. Every send that
names a session is entered in the send ledger, refused ones too: the tool tells the engine's send
service (engine/messaging/send_service.py) what happened, and never writes the ledger itself.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from sessions_tui.engine.messaging.a2a import (
    A2AFlow,
    latest_assistant_reply,
    message_context,
    watch_late_reply,
)
from sessions_tui.engine.messaging.chain_guard import guard_send, next_chain
from sessions_tui.engine.runs.runs import RunRequest
from sessions_tui.engine.session_operations import ensure_main_session
from sessions_tui.engine.sessions.keys import SESSION_LABEL_MAX_LENGTH, normalize_agent_id, parse_session_label
from sessions_tui.engine.sessions.refusals import SendBlocked
from sessions_tui.tools.calling.base import (
    ToolArgs,
    ToolCall,
    ToolSpec,
    clamp_timeout_seconds,
    new_run_id,
    read_integer,
    read_string,
)
from sessions_tui.tools.requester.access import RequesterContext, guard_for
from sessions_tui.tools.requester.resolution import (
    Failed,
    Resolved,
    check_exists,
    check_sandbox_visible,
    resolve_session_reference,
)

DEFAULT_TIMEOUT_SECONDS = 30
FIRE_AND_FORGET_ANNOUNCE_MS = 30_000
DELIVERY = {"status": "pending", "mode": "announce"}

DESCRIPTION = (
    "Send a message into another visible session by sessionKey or label. Use this to delegate "
    "follow-up work to an existing session; waits for the target run and returns the updated "
    "assistant reply when available."
)


class SendArgs(ToolArgs):
    session_key: str | None = Field(
        None, alias="sessionKey", description="Target session key, main, current, or a sessionId."
    )
    # The lengths are told to the model, not enforced here: the tool answers a bad label in its own words.
    label: str | None = Field(
        None,
        description="Target session label (instead of sessionKey).",
        json_schema_extra={"minLength": 1, "maxLength": SESSION_LABEL_MAX_LENGTH},
    )
    agent_id: str | None = Field(
        None,
        alias="agentId",
        description="Agent id of the labelled session (with label only).",
        json_schema_extra={"minLength": 1, "maxLength": 64},
    )
    message: str = Field(description="The message to send.")
    timeout_seconds: int = Field(
        DEFAULT_TIMEOUT_SECONDS,
        alias="timeoutSeconds",
        ge=0,
        description="Seconds to wait for the reply (default 30; 0 = do not wait; at most 2147000).",
    )

    @classmethod
    def read(cls, params: dict[str, Any]) -> dict[str, Any]:
        timeout = read_integer(params, "timeoutSeconds", minimum=0)
        return {
            "session_key": read_string(params, "sessionKey"),
            "label": read_string(params, "label"),
            "agent_id": read_string(params, "agentId"),
            "message": read_string(params, "message", required=True),
            "timeout_seconds": clamp_timeout_seconds(timeout) if timeout is not None else DEFAULT_TIMEOUT_SECONDS,
        }


def _resolve_label(call: ToolCall, ctx: RequesterContext, args: SendArgs) -> str | dict[str, Any]:
    """A label names a session of the requester's (or a given) agent, as OpenClaw resolves it: a
    cross-agent lookup needs agent-to-agent access first, a sandboxed requester stays in its agent."""
    engine = call.engine
    requester_agent = ctx.requester_agent_id
    requested_agent = normalize_agent_id(args.agent_id) if args.agent_id else None
    if requested_agent and requested_agent != requester_agent:
        if ctx.restrict_to_spawned:
            return {"status": "forbidden", "error": "Sandboxed sessions_send label lookup is limited to this agent"}
        a2a = engine.a2a_policy()
        if not a2a.enabled:
            return {
                "status": "forbidden",
                "error": "Agent-to-agent messaging is disabled. Set "
                "tools.agentToAgent.enabled=true to allow cross-agent sends.",
            }
        if not a2a.is_allowed(requester_agent, requested_agent):
            return {"status": "forbidden", "error": "Agent-to-agent messaging denied by tools.agentToAgent.allow."}
    try:
        label = parse_session_label(args.label)
    except ValueError as exc:  # as OpenClaw's gateway `sessions.resolve` refuses it
        if ctx.restrict_to_spawned:
            return {"status": "forbidden", "error": "Session not visible from this sandboxed agent session."}
        return {"status": "error", "error": str(exc)}
    keys = engine.store.sessions.keys_with_label(label, requested_agent)
    if ctx.restrict_to_spawned:
        spawned = engine.store.sessions.spawned_keys(ctx.effective_requester_key)
        keys = [k for k in keys if k in spawned]
        if len(keys) != 1:
            return {"status": "forbidden", "error": "Session not visible from this sandboxed agent session."}
    if not keys:
        return {"status": "error", "error": f"No session found with label: {label}"}
    if len(keys) > 1:
        return {"status": "error", "error": f"Multiple sessions found with label: {label} ({', '.join(keys)})"}
    return keys[0]


async def sessions_send(call: ToolCall, params: dict[str, Any]) -> dict[str, Any]:
    args = SendArgs.model_validate(params)
    engine = call.engine
    error_run_id = new_run_id()
    ctx = RequesterContext.of(call)
    if args.session_key and args.label:
        return {"runId": error_run_id, "status": "error", "error": "Provide either sessionKey or label (not both)."}
    target_input = args.session_key
    if target_input is None and args.label:
        found = _resolve_label(call, ctx, args)
        if isinstance(found, dict):
            return {"runId": error_run_id, **found}
        target_input = found
    if target_input is None:
        return {"runId": error_run_id, "status": "error", "error": "Either sessionKey or label is required"}
    resolved = resolve_session_reference(engine, target_input, ctx)
    if isinstance(resolved, Failed):
        return {"runId": error_run_id, "status": resolved.status, "error": resolved.error}
    failed = check_sandbox_visible(engine, resolved, ctx)
    if failed is None:
        denial = guard_for(call, ctx, "send").check(resolved.key)
        if denial is None and not call.chain and not ctx.restrict_to_spawned:
            ensure_main_session(engine, resolved.key)  # the owner's first send into an agent's main session
        failed = Failed(denial.status, denial.error) if denial else check_exists(engine, resolved)
    if failed is not None:
        _enter_refusal(call, ctx, args, resolved.key, error_run_id, failed.status, failed.error)
        return {
            "runId": error_run_id,
            "status": failed.status,
            "error": failed.error,
            "sessionKey": resolved.display_key,
        }
    return await _send(call, ctx, args, resolved)


def _via(call: ToolCall) -> str:
    return "agent" if call.chain else "owner"  # a model's tool call always carries its run's chain


def _enter_refusal(
    call: ToolCall, ctx: RequesterContext, args: SendArgs, key: str, run_id: str, status: str, error: str
) -> None:
    """A send refused before any run (visibility, sandbox, policy, no such session): its ledger entry."""
    requester = ctx.requester_internal_key
    send = call.engine.sends.send(
        requester=requester,
        target=key,
        message=args.message,
        via=_via(call),
        chain=next_chain(call.chain, requester, key),
    )
    send.refused(run_id, forbidden=status == "forbidden", error=error)


async def _send(call: ToolCall, ctx: RequesterContext, args: SendArgs, resolved: Resolved) -> dict[str, Any]:
    engine = call.engine
    key, display = resolved.key, resolved.display_key
    requester_key = ctx.requester_internal_key
    requester_channel = call.agent_channel
    # The loop guard (docs/decisions.md D19): the chain this send would make, refused past the limit.
    chain = next_chain(call.chain, requester_key, key)
    via = _via(call)
    refused = guard_send(
        engine,
        chain,
        requester=requester_key,
        requester_agent_id=ctx.requester_agent_id,
        target_display=display,
        message=args.message,
        via=via,
    )
    if refused is not None:
        return refused
    send = engine.sends.send(requester=requester_key, target=key, message=args.message, via=via, chain=chain)
    owner = engine.owner_of(key)
    if owner is not None:
        from sessions_tui.engine.openclaw.gateway_send import send_to_openclaw

        answer = await send_to_openclaw(
            engine.config.gateway.remote,
            engine.openclaw_sender,
            owner,
            key,
            args.message,
            args.timeout_seconds,
            display,
        )
        if answer is not None:  # the session is OpenClaw's: its gateway ran the send
            run_id = str(answer.get("runId") or new_run_id())
            send.answered_by_gateway(run_id, answer)
            return answer
    baseline = latest_assistant_reply(engine, key) if args.timeout_seconds > 0 else None
    try:
        run_id = engine.agent(
            RunRequest(
                session_key=key,
                message=args.message,
                extra_system_prompt=message_context(requester_key, requester_channel, display),
                provenance={
                    "kind": "inter_session",
                    "sourceSessionKey": requester_key,
                    "sourceChannel": requester_channel,
                    "sourceTool": "sessions_send",
                },
                lane="nested",
                chain=chain,
            ),
            via="sessions_send",
            requester=requester_key,
        )
    except SendBlocked as blocked:
        refused_id = new_run_id()
        send.blocked(refused_id, str(blocked), blocked.reason)
        return {"runId": refused_id, "status": "forbidden", "error": str(blocked), "sessionKey": display}
    send.accepted(run_id)

    def flow(round_one: str | None, announce_ms: int, wait_run_id: str | None = None) -> A2AFlow:
        return A2AFlow(
            engine=engine,
            run_id=run_id,
            target_key=key,
            target_display=display,
            message=args.message,
            announce_timeout_ms=announce_ms,
            requester_key=requester_key,
            requester_channel=requester_channel,
            round_one_reply=round_one,
            wait_run_id=wait_run_id,
            chain=tuple(chain),
        )

    if args.timeout_seconds == 0:
        flow(None, FIRE_AND_FORGET_ANNOUNCE_MS, wait_run_id=run_id).start()
        return {"runId": run_id, "status": "accepted", "sessionKey": display, "delivery": dict(DELIVERY)}
    timeout_ms = args.timeout_seconds * 1000
    wait = await engine.runs.wait(run_id, timeout_ms)
    if wait.status == "timeout" and wait.ended_at is None:
        send.timed_out(run_id, timeout_ms)
        engine.background(watch_late_reply(engine, run_id, key, baseline))
        return {
            "runId": run_id,
            "status": "timeout",
            "error": f"No reply within {args.timeout_seconds}s; the run goes on. "
            "Use sessions_history to read its reply later.",
            "sessionKey": display,
        }
    if wait.status in ("error", "aborted", "timeout", "killed"):
        send.failed(run_id, wait.error or "agent error")
        return {"runId": run_id, "status": "error", "error": wait.error or "agent error", "sessionKey": display}
    snapshot = latest_assistant_reply(engine, key)
    reply = snapshot.text if snapshot and (baseline is None or snapshot.fingerprint != baseline.fingerprint) else None
    send.replied(run_id, reply)
    flow(reply, timeout_ms).start()
    result: dict[str, Any] = {"runId": run_id, "status": "ok"}
    if reply is not None:
        result["reply"] = reply
    result.update({"sessionKey": display, "delivery": dict(DELIVERY)})
    return result


SPEC = ToolSpec(
    name="sessions_send",
    label="Session Send",
    description=DESCRIPTION,
    arguments=SendArgs,
    run=sessions_send,
)
