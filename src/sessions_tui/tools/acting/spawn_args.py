"""The arguments of `sessions_spawn`: one pydantic model that is both what the tool reads and
what a model is offered (tools/calling/schema.py).

Read as OpenClaw reads them, in its order: a channel-delivery key is refused first, then a
missing `task`; blank `label` and `cleanup` count as absent; `runtime: "acp"`, `streamTo`,
`lightContext`, `resumeSessionId` and attachments are read so the tool can refuse them in
OpenClaw's words, but are never offered.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from sessions_tui.engine.sessions.keys import SESSION_LABEL_MAX_LENGTH, js_trim, parse_session_label
from sessions_tui.tools.calling.base import (
    ToolArgs,
    ToolInputError,
    clamp_timeout_seconds,
    read_integer,
    read_number,
    read_string,
)

THINKING_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh")
CLEANUP_VALUES = ("delete", "keep")
DELIVERY_KEYS = ("target", "transport", "channel", "to", "threadId", "thread_id", "replyTo", "reply_to")


class SpawnArgs(ToolArgs):
    task: str = Field(description="What the sub-agent should do.")
    label: str | None = Field(
        None,
        description="A short label for logs and the dashboard (at most 512 characters).",
        json_schema_extra={"maxLength": SESSION_LABEL_MAX_LENGTH},
    )
    # `acp` is read (to be refused in OpenClaw's words) but never offered.
    runtime: str = Field(
        "subagent", description="Only subagent is supported.", json_schema_extra={"enum": ["subagent"]}
    )
    agent_id: str | None = Field(None, alias="agentId", description="Spawn under another agent id (see agents_list).")
    model: str | None = Field(None, description="Model for the child: demo or <provider>/<model id>.")
    thinking: str | None = Field(None, description="Thinking level: " + ", ".join(THINKING_LEVELS) + ".")
    run_timeout_seconds: int | None = Field(
        None,
        alias="runTimeoutSeconds",
        ge=0,
        description="Abort the child's run after N seconds (0 = no limit; at most 2147000).",
    )
    timeout_seconds: int | None = Field(
        None, alias="timeoutSeconds", ge=0, description="Legacy alias of runTimeoutSeconds."
    )
    mode: Literal["run", "session"] = Field("run", description="run (default): one-shot.")
    thread: bool = Field(False, description="Bind the child to a thread (not available here).")
    cleanup: Literal["delete", "keep"] = Field(
        "keep", description="delete: archive the child right after it announces; keep (default)."
    )
    sandbox: Literal["inherit", "require"] = Field("inherit", description="Require a sandboxed child.")
    # Read so that they are refused as OpenClaw refuses them, never offered to a model.
    stream_to: SkipJsonSchema[str | None] = None
    light_context: SkipJsonSchema[bool] = False
    resume_session_id: SkipJsonSchema[str | None] = None
    has_attachments: SkipJsonSchema[bool] = False

    @classmethod
    def read(cls, params: dict[str, Any]) -> dict[str, Any]:
        for key in DELIVERY_KEYS:
            if key in params:
                raise ToolInputError(
                    f'sessions_spawn does not support "{key}". Use "message" or "sessions_send" for channel delivery.'
                )
        task = read_string(params, "task", required=True)
        runtime = "acp" if read_string(params, "runtime") == "acp" else "subagent"
        light = params.get("lightContext") is True
        if runtime == "acp" and light:
            raise ToolInputError("lightContext is only supported for runtime='subagent'.")
        legacy_timeout = read_number(params, "timeoutSeconds")
        timeout = read_integer(params, "runTimeoutSeconds", minimum=0)
        if timeout is None:
            timeout = legacy_timeout
        thread = params.get("thread") is True
        mode = read_string(params, "mode")
        return {
            "task": task,
            "label": _read_label(params),
            "runtime": runtime,
            "agent_id": read_string(params, "agentId"),
            "model": read_string(params, "model"),
            "thinking": read_string(params, "thinking"),
            "run_timeout_seconds": clamp_timeout_seconds(timeout) if timeout is not None else None,
            "timeout_seconds": clamp_timeout_seconds(legacy_timeout) if legacy_timeout is not None else None,
            "thread": thread,
            "mode": mode if mode in ("run", "session") else ("session" if thread else "run"),
            "cleanup": _read_cleanup(params),
            "sandbox": "require" if read_string(params, "sandbox") == "require" else "inherit",
            "stream_to": read_string(params, "streamTo"),
            "light_context": light,
            "resume_session_id": read_string(params, "resumeSessionId"),
            "has_attachments": bool(params.get("attachments")),
        }


def _read_label(params: dict[str, Any]) -> str | None:
    """`label`: absent or blank → none; else OpenClaw's `parseSessionLabel` (a string of at most 512)."""
    raw = params.get("label")
    if raw is None or (isinstance(raw, str) and not js_trim(raw)):
        return None
    try:
        return parse_session_label(raw)
    except ValueError as exc:
        raise ToolInputError(str(exc)) from None


def _read_cleanup(params: dict[str, Any]) -> str:
    """`cleanup`: absent or blank → `keep` (as OpenClaw); else exactly `delete` or `keep`."""
    raw = params.get("cleanup")
    if raw is None or (isinstance(raw, str) and not js_trim(raw)):
        return "keep"
    value = js_trim(raw) if isinstance(raw, str) else raw
    if value not in CLEANUP_VALUES:
        raise ToolInputError('cleanup must be "delete" or "keep"')
    return str(value)
