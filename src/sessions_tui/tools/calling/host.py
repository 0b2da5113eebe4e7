"""The tool layer as a running session's model sees it: which tools, and calling them.

A session's model is offered the session tools that session may use (a sub-agent fewer, as
OpenClaw restricts them; docs/decisions.md D7), and its calls run through the same tools with
that session as the requester, so its visibility, sandbox flag and send policy apply.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from sessions_tui.engine.engine import Engine
from sessions_tui.engine.sessions.keys import is_subagent_session_key, subagent_depth
from sessions_tui.tools.calling.base import ToolCall, ToolInputError
from sessions_tui.tools.calling.registry import TOOLS, invoke

if TYPE_CHECKING:  # named in a signature only: the model clients load when a run starts
    from sessions_tui.engine.llm.base import ToolCallRequest

log = logging.getLogger(__name__)

SESSION_TOOLS = (
    "sessions_list",
    "sessions_history",
    "sessions_search",
    "sessions_send",
    "sessions_spawn",
    "agents_list",
    "subagents",
)
# Denied to every sub-agent; the rest of the session tools denied only to leaves (sub-agents at the
# deepest spawn depth, which may spawn no further), unless `tools.subagents.tools` allows them.
ALWAYS_DENIED_TO_SUBAGENTS = ("sessions_send", "agents_list")
# `subagents` is among them (REFERENCE §12): a leaf has no children to control; an orchestrator keeps it.
# `sessions_search` too, as OpenClaw 2026.9.6's SUBAGENT_TOOL_DENY_LEAF lists it beside history.
DENIED_TO_LEAVES = ("sessions_list", "sessions_history", "sessions_search", "sessions_spawn", "subagents")


class EngineToolHost:
    """Attach with `EngineToolHost(engine)`: the engine's runs then offer and execute tools."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        engine.tool_host = self

    def allowed(self, session_key: str) -> list[str]:
        names = list(TOOLS)
        if not is_subagent_session_key(session_key):
            return names
        session = self.engine.store.sessions.get(session_key)
        depth = session.entry.get("spawnDepth") if session else None
        depth = depth if isinstance(depth, int) else subagent_depth(session_key) or 1
        leaf = depth >= self.engine.config.agents.defaults.subagents.max_spawn_depth
        denied = set(ALWAYS_DENIED_TO_SUBAGENTS) | (set(DENIED_TO_LEAVES) if leaf else set())
        policy = self.engine.config.tools.subagents.tools
        denied -= set(policy.allow or ()) | set(policy.also_allow or ())
        denied |= set(policy.deny or ())
        return [n for n in names if n not in denied]

    def openai_tools(self, session_key: str, names: list[str] | None = None) -> list[dict[str, Any]]:
        allowed = self.allowed(session_key)
        chosen = [n for n in allowed if names is None or n in names]
        return [TOOLS[n].openai_function() for n in chosen]

    async def execute(
        self, session_key: str, call: ToolCallRequest, chain: tuple[str, ...] = ()
    ) -> tuple[dict[str, Any], bool]:
        """Run a model's tool call as `session_key` (inside a run whose message came through
        `chain`); failures become error results, never raise."""
        if call.name not in self.allowed(session_key):
            return {"status": "error", "error": f"Tool not available: {call.name}"}, True
        if call.arguments_error is not None:  # arguments the model sent that cannot be read at all
            return {"status": "error", "error": call.arguments_error}, True
        tool_call = ToolCall(
            engine=self.engine,
            agent_session_key=session_key,
            agent_channel=self.engine.session_channel(session_key),
            sandboxed=self.engine.is_sandboxed(session_key),
            chain=chain or (session_key,),  # never empty inside a run: its own session at least
        )
        try:
            payload = await invoke(tool_call, call.name, call.arguments)
        except ToolInputError as exc:
            return {"status": "error", "error": str(exc)}, True
        except Exception:  # noqa: BLE001 - a tool bug must not kill the run
            log.exception("tool %s failed", call.name)
            return {"status": "error", "error": "tool execution failed"}, True
        return payload, payload.get("status") in ("error", "forbidden")
