"""The built-in `demo` model: offline, deterministic, and honest about being a demo.

It exists so every screen has something real to show with no network: it streams with a
simulated latency, thinks out loud, calls the session tools it is offered, and follows the
agent-to-agent protocol. Its rules (also in the README):

1. Announce step ("Agent-to-agent announce step"): `ANNOUNCE_SKIP` when the original request
   asks for quiet ("quiet", "silent", "no announce"); otherwise a one-line announcement.
2. Reply step ("Agent-to-agent reply step", "Turn k of n"): answers on turns 1 and 2 and replies
   `REPLY_SKIP` from turn 3 on, or at once when the incoming text says "REPLY_SKIP" or "stop".
3. Sub-agent announce step ("Sub-agent announce step"): `ANNOUNCE_SKIP` when the task asks for
   quiet; otherwise `Result:` (the child's last reply) and `Notes:`.
4. After a tool result it summarises that result.
5. Otherwise, when the matching tool is offered: "session(s)" with list/which/what/other/active →
   `sessions_list`; "history of KEY" or "read KEY" → `sessions_history`; "ask KEY: TEXT" or
   "send to KEY: TEXT" → `sessions_send`; "spawn …"/"sub-agent …" → `sessions_spawn`; "agents"
   → `agents_list`.
6. Anything else gets a thinking block and a short reply: word counts for "count the words",
   an acknowledgement in agent-to-agent context, else it repeats what it was told.

What it quotes it quotes redacted, then cut (engine/redaction/cut.py): a secret cut in two would be
stored in its reply as a fragment no rule finds.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import AsyncGenerator
from typing import Any

from sessions_tui.engine.llm.base import (
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
from sessions_tui.engine.redaction.cut import Redact, redact_then_cut
from sessions_tui.engine.redaction.redact import default_redactor

REPLY_SKIP = "REPLY_SKIP"
ANNOUNCE_SKIP = "ANNOUNCE_SKIP"
_QUIET = re.compile(r"\b(quiet|silent|silently|no announce)\b", re.IGNORECASE)
_TURN = re.compile(r"Turn (\d+) of (\d+)")
_KEY = r"([A-Za-z0-9_.:@\-]+)"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


class DemoModel:
    """Deterministic replies with simulated latency (`latency_ms` first, `chunk_ms` per chunk)."""

    def __init__(self, latency_ms: int = 400, chunk_ms: int = 40, redact: Redact | None = None) -> None:
        self.latency_ms = max(0, latency_ms)
        self.chunk_ms = max(0, chunk_ms)
        self.redact: Redact = redact or default_redactor().redact  # the engine's, with the config's secrets
        self._calls = 0

    def _short(self, text: str, limit: int) -> str:
        """A quote of `text`, on one line, at most `limit` characters: redacted, then cut."""
        return redact_then_cut(text, limit, self.redact, flat=True)

    async def stream(self, request: ModelRequest) -> AsyncGenerator[ModelEvent, None]:
        thinking, text, calls = self.respond(request)
        prompt = request.system + "".join(_text_of(m.get("content")) for m in request.messages)
        if self.latency_ms:
            await asyncio.sleep(self.latency_ms / 1000)
        if thinking:
            for piece in self._pieces(thinking):
                yield ThinkingDelta(text=piece)
                await self._pause()
        for piece in self._pieces(text):
            yield TextDelta(text=piece)
            await self._pause()
        for call in calls:
            yield ToolCallEvent(call=call)
        out = (thinking or "") + text + "".join(c.raw_arguments for c in calls)
        yield UsageEvent(usage=Usage(input=_tokens(prompt), output=_tokens(out)))
        yield TurnDone(stop_reason="toolUse" if calls else "stop")

    async def _pause(self) -> None:
        if self.chunk_ms:
            await asyncio.sleep(self.chunk_ms / 1000)

    @staticmethod
    def _pieces(text: str) -> list[str]:
        """Stream by words, keeping the text exact when re-joined."""
        return re.findall(r"\S+\s*|\s+", text) if text else []

    # -- the rules -------------------------------------------------------------------------

    def respond(self, request: ModelRequest) -> tuple[str | None, str, list[ToolCallRequest]]:
        """(thinking, text, tool calls) for a request: the rules of the module docstring."""
        system = request.system
        last = request.messages[-1] if request.messages else {"role": "user", "content": ""}
        incoming = _text_of(last.get("content"))
        if "Agent-to-agent announce step" in system:
            return None, self._a2a_announce(system), []
        if "Agent-to-agent reply step" in system:
            return None, self._a2a_reply(system, incoming), []
        if "Sub-agent announce step" in system:
            return None, self._subagent_announce(request), []
        if last.get("role") == "tool":
            return None, self._summarise_tool(request, last), []
        offered = {t.get("function", {}).get("name") for t in request.tools}
        call = self._tool_call(incoming, offered)
        if call is not None:
            return f"This needs {call.name}; calling it with {call.raw_arguments}.", "", [call]
        thinking, text = self._plain(system, incoming)
        return thinking, text, []

    def _a2a_announce(self, system: str) -> str:
        original = re.search(r"^Original request: (.*)$", system, re.MULTILINE)
        if original and _QUIET.search(original.group(1)):
            return ANNOUNCE_SKIP
        latest = re.search(r"^Latest reply: (.*)$", system, re.MULTILINE)
        summary = latest.group(1) if latest else "(nothing)"
        return f"Update from this session: {self._short(summary, 160)}"

    def _a2a_reply(self, system: str, incoming: str) -> str:
        match = _TURN.search(system)
        turn = int(match.group(1)) if match else 1
        if turn >= 3 or REPLY_SKIP in incoming or re.search(r"\bstop\b", incoming, re.IGNORECASE):
            return REPLY_SKIP
        if "Current agent: Agent 1" in system:
            return f"Thanks, got it: {self._short(incoming, 80)}"
        return f"Glad that helps. Anything else? (re: {self._short(incoming, 60)})"

    def _subagent_announce(self, request: ModelRequest) -> str:
        task = re.search(r"^Task: (.*)$", request.system, re.MULTILINE)
        if task and _QUIET.search(task.group(1)):
            return ANNOUNCE_SKIP
        replies = [
            _text_of(m.get("content"))
            for m in request.messages
            if m.get("role") == "assistant" and _text_of(m.get("content")).strip()
        ]
        result = replies[-1] if replies else "(no output)"
        return f"Result: {self._short(result, 300)}\nNotes: produced by the demo model."

    def _summarise_tool(self, request: ModelRequest, last: dict[str, Any]) -> str:
        names = {
            call.get("id"): call.get("function", {}).get("name")
            for m in request.messages
            for call in (m.get("tool_calls") or [])
        }
        name = names.get(last.get("tool_call_id"), "the tool")
        try:
            payload = json.loads(_text_of(last.get("content")))
        except (json.JSONDecodeError, TypeError):
            return f"{name} said: {self._short(_text_of(last.get('content')), 200)}"
        if not isinstance(payload, dict):
            return f"{name} returned {self._short(json.dumps(payload), 200)}"
        if payload.get("status") in ("error", "forbidden"):
            return f"{name} was refused ({payload['status']}): {payload.get('error', '')}"
        if name == "sessions_list":
            rows = payload.get("sessions") or []
            listed = ", ".join(f"{r.get('key')} ({r.get('kind')})" for r in rows[:6])
            more = f" and {len(rows) - 6} more" if len(rows) > 6 else ""
            return f"I can see {payload.get('count', len(rows))} sessions: {listed}{more}."
        if name == "sessions_history":
            messages = payload.get("messages") or []
            if not messages:
                return f"{payload.get('sessionKey')} has no messages yet."
            latest = _text_of(messages[-1].get("content"))
            return f"The latest message in {payload.get('sessionKey')} says: {self._short(latest, 160)}"
        if name == "sessions_send":
            reply = payload.get("reply")
            tail = f" They replied: {self._short(reply, 160)}" if reply else ""
            return f"Message to {payload.get('sessionKey')}: {payload.get('status')}.{tail}"
        if name == "sessions_spawn":
            return f"Spawned {payload.get('childSessionKey')}; it will announce back when it is done."
        if name == "agents_list":
            ids = ", ".join(a.get("id", "?") for a in payload.get("agents") or [])
            return f"I may spawn sub-agents under: {ids}."
        return f"{name} returned {self._short(json.dumps(payload), 200)}"

    def _tool_call(self, text: str, offered: set[str | None]) -> ToolCallRequest | None:
        # A sub-agent reads its task, not the context the spawn put before it (which says "subagent").
        text = text.partition("[Subagent Task]:")[2].strip() or text
        lowered = text.lower()

        def call(name: str, args: dict[str, Any]) -> ToolCallRequest | None:
            if name not in offered:
                return None
            self._calls += 1
            raw = json.dumps(args)
            return ToolCallRequest(id=f"call_demo_{self._calls}", name=name, arguments=args, raw_arguments=raw)

        if m := re.search(rf"\b(?:ask|send to|tell)\s+{_KEY}\s*:\s*(.+)", text, re.IGNORECASE | re.DOTALL):
            return call(
                "sessions_send", {"sessionKey": m.group(1), "message": m.group(2).strip(), "timeoutSeconds": 20}
            )
        if m := re.search(rf"\b(?:history of|read)\s+{_KEY}", text, re.IGNORECASE):
            return call("sessions_history", {"sessionKey": m.group(1), "limit": 5})
        if m := re.search(r"\b(?:spawn|sub-?agent)\b[:\s]*(?:to\s+)?(.+)", text, re.IGNORECASE | re.DOTALL):
            return call("sessions_spawn", {"task": m.group(1).strip(), "label": self._short(m.group(1), 24)})
        if "session" in lowered and re.search(r"\b(list|which|what|other|active|up to)\b", lowered):
            return call("sessions_list", {"limit": 20})
        if re.search(r"\bagents\b", lowered):
            return call("agents_list", {})
        return None

    def _plain(self, system: str, incoming: str) -> tuple[str | None, str]:
        words = len(incoming.split())
        thinking = f"The message has {words} words. A short, direct answer fits."
        if m := re.search(r"count (?:the )?words(?: in| of)?:?\s*(.*)", incoming, re.IGNORECASE | re.DOTALL):
            body = m.group(1).strip()
            return thinking, f"That text has {len(body.split())} words."
        task = re.search(r"\[Subagent Task\]:\s*(.*)", incoming, re.DOTALL)
        if task:
            return thinking, f"Done: {self._short(task.group(1), 160)} (worked through by the demo model)."
        if "Agent-to-agent message context" in system:
            requester = re.search(r"Agent 1 \(requester\) session: (.*)\.", system)
            who = requester.group(1) if requester else "another session"
            return thinking, f"Received from {who}: {self._short(incoming, 120)}. On it."
        if not incoming.strip():
            return None, "(demo) Nothing to answer."
        return thinking, f"(demo) You said: {self._short(incoming, 160)}"
