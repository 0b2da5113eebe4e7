"""What a run does: the user message, then model turns and tool rounds until the model stops.

Each model turn's assistant message and each tool result are appended to the transcript as
they complete; text and thinking stream out as events while they are produced. Tools are
executed by the engine's tool host (the tool layer, attached at start-up) with the running
session as the requester, so its visibility, sandbox and send policy apply.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, Protocol

from sessions_tui.engine.events import MessageAppended, RunStreamed, SessionChanged
from sessions_tui.engine.hosts import EngineFloor
from sessions_tui.engine.llm.base import (
    ModelError,
    ModelEvent,
    ModelRequest,
    TextDelta,
    ThinkingDelta,
    ToolCallEvent,
    ToolCallRequest,
    TurnDone,
    Usage,
    UsageEvent,
)
from sessions_tui.engine.llm.pricing import turn_cost
from sessions_tui.engine.llm.registry import ModelRegistry, ResolvedModel
from sessions_tui.engine.run_end import session_status_of
from sessions_tui.engine.runs.runs import RunRequest
from sessions_tui.engine.sessions.entry import SessionEntry, is_number
from sessions_tui.engine.sessions.keys import agent_id_of
from sessions_tui.engine.store.tables.runs import RunRecord

MAX_TOOL_ROUNDS = 8
CONTEXT_MESSAGES = 100


class ToolHost(Protocol):
    """The tool layer as the engine sees it (attached by `sessions_tui.tools.calling.host`)."""

    def openai_tools(self, session_key: str, names: list[str] | None = None) -> list[dict[str, Any]]: ...

    async def execute(
        self, session_key: str, call: ToolCallRequest, chain: tuple[str, ...] = ()
    ) -> tuple[dict[str, Any], bool]: ...


class TurnsHost(EngineFloor, Protocol):
    """What a run's turns need of the engine, besides its floor: display keys, the model registry
    and the tool host (None until the tool layer attaches it)."""

    @property
    def models(self) -> ModelRegistry: ...

    @property
    def tool_host(self) -> ToolHost | None: ...

    def display(self, key: str, requester_agent_id: str) -> str: ...


def agent_system_prompt(engine: TurnsHost, session_key: str) -> str:
    agent_id = agent_id_of(session_key)
    agent = engine.config.agent(agent_id)
    name = agent.name if agent and agent.name else agent_id
    return (
        f"You are {name} (agent id {agent_id}), an AI agent. This conversation is session "
        f"{engine.display(session_key, agent_id)}. Answer concisely. Use the session tools when the "
        "user asks about other sessions."
    )


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict):
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif block.get("type") == "image":
                parts.append("[image]")
    return "\n".join(parts)


def to_openai_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Transcript messages in OpenAI chat shape; tool calls without a result are left out."""
    answered = {m.get("toolCallId") for m in messages if m.get("role") in ("toolResult", "tool")}
    out: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "user":
            out.append({"role": "user", "content": _text(message.get("content"))})
        elif role == "assistant":
            content = message.get("content")
            text = _text(content)
            calls = [
                {
                    "id": b.get("id"),
                    "type": "function",
                    "function": {"name": b.get("name"), "arguments": json.dumps(b.get("arguments") or {})},
                }
                for b in (content if isinstance(content, list) else [])
                if isinstance(b, dict) and b.get("type") == "toolCall" and b.get("id") in answered
            ]
            if not text and not calls:
                continue
            entry: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                entry["tool_calls"] = calls
            out.append(entry)
        elif role in ("toolResult", "tool"):
            out.append(
                {"role": "tool", "tool_call_id": message.get("toolCallId"), "content": _text(message.get("content"))}
            )
    # A window must not open with tool results whose calls fell outside it.
    while out and out[0]["role"] == "tool":
        out.pop(0)
    return out


class _Partial:
    """What the current model turn has produced so far (kept if the run is cut short)."""

    def __init__(self) -> None:
        self.text = ""
        self.thinking = ""
        self.calls: list[ToolCallRequest] = []
        self.usage = Usage()
        self.stop_reason = "stop"

    def blocks(self) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        if self.thinking:
            blocks.append({"type": "thinking", "thinking": self.thinking})
        if self.text:
            blocks.append({"type": "text", "text": self.text})
        for call in self.calls:
            blocks.append({"type": "toolCall", "id": call.id, "name": call.name, "arguments": call.arguments})
        return blocks


def _append(engine: TurnsHost, key: str, message: dict[str, Any]) -> None:
    appended = engine.store.transcripts.append(key, message)
    engine.events.publish(
        MessageAppended(ts=engine.now(), session_key=key, role=message.get("role", ""), seq=appended.msg_seq)
    )


def _count(entry: SessionEntry, field: str) -> int:
    value = entry.get(field)
    return int(value) if is_number(value) else 0


def _record_usage(engine: TurnsHost, key: str, usage: Usage, model_ref: str, provider: str) -> None:
    """Add a turn's usage to the session's counts. Each count grows by the turn's own share and is
    never recomputed from the others: an entry imported or seeded with only a `totalTokens` (or a
    total above in+out, OpenClaw's prompt/cache part) keeps it and grows from there."""
    entry = engine.store.sessions.get(key).entry  # type: ignore[union-attr]
    turn_total = usage.total if usage.total is not None else usage.input + usage.output
    changes: dict[str, Any] = {
        "inputTokens": _count(entry, "inputTokens") + usage.input,
        "outputTokens": _count(entry, "outputTokens") + usage.output,
        "totalTokens": _count(entry, "totalTokens") + turn_total,
        "model": model_ref.partition("/")[2] if "/" in model_ref else model_ref,
        "modelProvider": provider,
    }
    model_id = model_ref.partition("/")[2] if "/" in model_ref else model_ref
    cost = turn_cost(engine.config, provider, model_id, usage)
    if cost is not None:
        changes["estimatedCostUsd"] = round(float(entry.get("estimatedCostUsd") or 0) + cost, 8)
    engine.store.sessions.patch(key, changes)


async def execute_run(engine: TurnsHost, record: RunRecord, request: RunRequest) -> None:
    """The run executor `Runs` calls: raises on failure (the run then ends as an error)."""
    key = request.session_key
    session = engine.store.sessions.get(key)
    if session is None:
        session = engine.store.sessions.ensure(key)
        engine.events.publish(SessionChanged(ts=engine.now(), session_key=key))
    user: dict[str, Any] = {"role": "user", "content": request.message, "timestamp": engine.now()}
    if request.provenance:
        user["provenance"] = request.provenance
    if request.internal:
        user["internal"] = True
    _append(engine, key, user)
    _set_status(engine, request, {"status": "running"})
    try:
        await _model_rounds(engine, record, request)
    except BaseException as exc:
        timed_out = isinstance(exc, (asyncio.CancelledError, asyncio.TimeoutError))
        status = session_status_of("timeout" if timed_out else "error")
        _set_status(engine, request, {"status": status, "abortedLastRun": timed_out})
        raise
    _set_status(engine, request, {"status": session_status_of("ok"), "abortedLastRun": False})


def _set_status(engine: TurnsHost, request: RunRequest, changes: dict[str, Any]) -> None:
    if request.keep_status:
        return
    engine.store.sessions.patch(request.session_key, changes)
    engine.events.publish(SessionChanged(ts=engine.now(), session_key=request.session_key))


async def _model_rounds(engine: TurnsHost, record: RunRecord, request: RunRequest) -> None:
    key = request.session_key
    entry = engine.store.sessions.get(key).entry  # type: ignore[union-attr]
    ref = request.model or engine.models.default_ref(key, entry)
    model = engine.models.resolve(ref)
    system = request.system_prompt or agent_system_prompt(engine, key)
    if request.extra_system_prompt:
        system = f"{system}\n\n{request.extra_system_prompt}"
    host: ToolHost | None = engine.tool_host
    tools = host.openai_tools(key, request.tools) if host is not None else []
    for _round in range(MAX_TOOL_ROUNDS):
        history = engine.store.transcripts.history(key, limit=CONTEXT_MESSAGES).messages
        model_request = ModelRequest(
            model=model.model_id,
            system=system,
            messages=to_openai_messages(history),
            tools=tools,
            thinking=request.thinking,
            session_key=key,
        )
        partial = _Partial()
        try:
            async with contextlib.aclosing(model.client.stream(model_request)) as stream:
                async for event in stream:
                    _take(engine, record.run_id, key, partial, event)
        except ModelError as exc:
            _append(engine, key, _assistant(partial, model, "error", error=exc.message))
            raise
        except (TimeoutError, asyncio.CancelledError):
            if partial.text or partial.thinking:
                _append(engine, key, _assistant(partial, model, "aborted"))
            raise
        _append(engine, key, _assistant(partial, model, "toolUse" if partial.calls else partial.stop_reason))
        _record_usage(engine, key, partial.usage, model.ref, model.provider)
        if not partial.calls or host is None:
            return
        for call in partial.calls:
            payload, is_error = await host.execute(key, call, tuple(request.chain))
            _append(
                engine,
                key,
                {
                    "role": "toolResult",
                    "toolCallId": call.id,
                    "toolName": call.name,
                    "content": [{"type": "text", "text": json.dumps(payload, indent=2, ensure_ascii=False)}],
                    "details": payload,
                    "isError": is_error,
                    "timestamp": engine.now(),
                },
            )
    _append(
        engine,
        key,
        {
            "role": "assistant",
            "content": [{"type": "text", "text": f"(stopped after {MAX_TOOL_ROUNDS} tool rounds)"}],
            "stopReason": "stop",
            "timestamp": engine.now(),
        },
    )


def _take(engine: TurnsHost, run_id: str, key: str, partial: _Partial, event: ModelEvent) -> None:
    """Fold one model event into the turn so far; text and thinking also stream out."""
    if isinstance(event, (TextDelta, ThinkingDelta)):
        kind = "text" if isinstance(event, TextDelta) else "thinking"
        if kind == "text":
            partial.text += event.text
        else:
            partial.thinking += event.text
        engine.events.publish(RunStreamed(ts=engine.now(), run_id=run_id, session_key=key, kind=kind, delta=event.text))
    elif isinstance(event, ToolCallEvent):
        partial.calls.append(event.call)
    elif isinstance(event, UsageEvent):
        partial.usage = event.usage
    elif isinstance(event, TurnDone):
        partial.stop_reason = event.stop_reason


def _assistant(partial: _Partial, model: ResolvedModel, stop_reason: str, error: str | None = None) -> dict[str, Any]:
    usage = partial.usage
    message: dict[str, Any] = {
        "role": "assistant",
        "content": partial.blocks(),
        "provider": model.provider,
        "model": model.model_id,
        "usage": {
            "input": usage.input,
            "output": usage.output,
            "cacheRead": usage.cache_read,
            "totalTokens": usage.total if usage.total is not None else usage.input + usage.output,
        },
        "stopReason": stop_reason,
    }
    if usage.cost_usd is not None:
        message["usage"]["cost"] = {"total": usage.cost_usd}
    if error is not None:
        message["errorMessage"] = error
    return message
