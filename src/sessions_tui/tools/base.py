"""What every tool shares: the input error, REF's parameter reading, the call context."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from sessions_tui.engine.engine import Engine
from sessions_tui.engine.ids import new_uuid


class ToolInputError(Exception):
    """Invalid tool arguments (REF's `ToolInputError`, HTTP 400): the call is refused whole."""

    status = 400


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def read_string(params: dict[str, Any], key: str, *, required: bool = False) -> str | None:
    """A trimmed string (snake_case spelling accepted); empty counts as absent."""
    value = params.get(key)
    if value is None:
        value = params.get(_snake(key))
    text = value.strip() if isinstance(value, str) else None
    if not text:
        if required:
            raise ToolInputError(f"{key} required")
        return None
    return text


def read_number(params: dict[str, Any], key: str) -> int | None:
    """A finite number, floored; anything else counts as absent (REF)."""
    value = params.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value):
        return None
    return math.floor(value)


def read_string_list(params: dict[str, Any], key: str) -> list[str] | None:
    value = params.get(key)
    if value is None:
        value = params.get(_snake(key))
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return None
    return [v.strip() for v in value if isinstance(v, str) and v.strip()]


def read_offset(params: dict[str, Any]) -> int:
    """`offset`: absent, or a non-negative integer (else the tool refuses the call)."""
    value = params.get("offset")
    if value is None:
        return 0
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
        or value != math.floor(value)
    ):
        raise ToolInputError("offset must be a non-negative integer")
    return int(value)


class ToolArgs(BaseModel):
    """Base of the argument models: REF's reading rules run first, then pydantic's types."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    @classmethod
    def read(cls, params: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    @model_validator(mode="before")
    @classmethod
    def _read_params(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise ToolInputError("arguments must be a JSON object")
        return cls.read(data)


@dataclass
class ToolCall:
    """Who is calling: the requester session (None = the main alias), its channel, sandbox."""

    engine: Engine
    agent_session_key: str | None = None
    agent_channel: str | None = None
    sandboxed: bool = False
    extras: dict[str, Any] = field(default_factory=dict)


ToolFn = Callable[[ToolCall, dict[str, Any]], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class ToolSpec:
    """A tool as agents see it (name, label, description, JSON schema) and its implementation."""

    name: str
    label: str
    description: str
    parameters: dict[str, Any]
    run: ToolFn

    def openai_function(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


def new_run_id() -> str:
    return new_uuid()


def compact(payload: dict[str, Any]) -> dict[str, Any]:
    """Drop absent (None) fields, as JSON.stringify drops `undefined`."""
    return {k: v for k, v in payload.items() if v is not None}
