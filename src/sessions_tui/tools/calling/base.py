"""What every tool shares: the input error, OpenClaw's parameter reading (trimmed strings,
integers that must be integers, timeouts floored), the call context."""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, model_validator

from sessions_tui.engine.inputs.json_depth import MAX_JSON_DEPTH, nesting_error
from sessions_tui.engine.inputs.surrogates import has_surrogates, scrub_json
from sessions_tui.engine.lazy_model import LazyModel
from sessions_tui.engine.sessions.entry import is_number
from sessions_tui.engine.sessions.ids import new_uuid
from sessions_tui.engine.sessions.keys import js_trim
from sessions_tui.tools.calling.schema import wire_parameters

if TYPE_CHECKING:
    from sessions_tui.engine.engine import Engine

# JavaScript's largest exact integer: an `offset` beyond it is not an integer to OpenClaw either.
MAX_SAFE_INTEGER = 2**53 - 1
# OpenClaw's timer bound (`MAX_TIMER_TIMEOUT_MS` = 2 147 000 000 ms): longer timeouts are clamped to it.
MAX_TIMEOUT_SECONDS = 2_147_000
# The JavaScript Date range (8.64e15 ms) in minutes: a longer `activeMinutes` window is all of time.
MAX_ACTIVE_MINUTES = 144_000_000_000
# Tool arguments nested deeper than this are refused (a real tool's arguments are a few levels deep).
MAX_ARGUMENT_DEPTH = MAX_JSON_DEPTH


class ToolInputError(Exception):
    """Invalid tool arguments (OpenClaw's `ToolInputError`, HTTP 400): the call is refused whole."""

    status = 400


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def read_string(params: dict[str, Any], key: str, *, required: bool = False) -> str | None:
    """A trimmed string (snake_case spelling accepted); empty counts as absent."""
    value = params.get(key)
    if value is None:
        value = params.get(_snake(key))
    text = js_trim(value) if isinstance(value, str) else None
    if not text:
        if required:
            raise ToolInputError(f"{key} required")
        return None
    return text


def read_number(params: dict[str, Any], key: str) -> int | None:
    """A finite number, floored; anything else counts as absent (as OpenClaw reads numbers).

    An integer of any size is finite (`math.isfinite` would overflow on one beyond a float):
    the callers clamp it.
    """
    value = params.get(key)
    if not is_number(value):
        return None
    if isinstance(value, int):
        return value
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
    return [js_trim(v) for v in value if isinstance(v, str) and js_trim(v)]


# A number as text: what the gateway takes for an integer parameter given as a string ("3", " 1e1 ").
@cache
def _decimal_re() -> re.Pattern[str]:
    return re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def read_integer(params: dict[str, Any], key: str, *, minimum: int) -> int | None:
    """An integer parameter as OpenClaw 2026.9.6's gateway reads one (its answers are recorded in
    tests/fixtures/openclaw-2026.9.6/numbers/): missing, null or a blank string is absent (None); a
    number, or a string spelling a decimal one, must be an integer JavaScript holds exactly (a
    "safe integer") of at least `minimum`; anything else, a boolean, a list or an object included,
    refuses the call: `<key> must be a positive integer` (`minimum` 1) or `... a non-negative
    integer` (0). The callers clamp what is too large for them."""
    value = params.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        text = js_trim(value)
        if not text:
            return None
        value = float(text) if _decimal_re().fullmatch(text) else None
    # The range first: `math.floor` of NaN or infinity raises.
    if not is_number(value) or not minimum <= value <= MAX_SAFE_INTEGER or value != math.floor(value):
        raise ToolInputError(f"{key} must be a {'positive' if minimum > 0 else 'non-negative'} integer")
    return int(value)


def read_offset(params: dict[str, Any]) -> int:
    """`offset`: absent, or a non-negative integer (else the tool refuses the call)."""
    return read_integer(params, "offset", minimum=0) or 0


def clamp_timeout_seconds(seconds: int) -> int:
    """A `max(0, floor)` timeout (as OpenClaw takes it), at most OpenClaw's timer bound: never an overflowing timer."""
    return min(max(0, seconds), MAX_TIMEOUT_SECONDS)


def active_since(now_ms: int, minutes: int) -> int:
    """The `updatedAt` cutoff of an `activeMinutes` window (`max(1, floor)`, as OpenClaw takes it),
    inside SQLite's range."""
    return now_ms - min(max(1, minutes), MAX_ACTIVE_MINUTES) * 60_000


def checked_arguments(params: dict[str, Any]) -> dict[str, Any]:
    """Arguments as every tool reads them: at most `MAX_ARGUMENT_DEPTH` levels deep (else a
    `ToolInputError` naming the parameter), lone surrogates in any string replaced by U+FFFD.

    Walks with an explicit stack, so neither a deep nor a self-containing value can recurse.
    """
    stack: list[tuple[Any, int, str]] = [(params, 1, "")]
    dirty = False
    while stack:
        value, depth, name = stack.pop()
        if depth > MAX_ARGUMENT_DEPTH:
            raise ToolInputError(nesting_error(name))
        items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        for key, item in items:
            dirty = dirty or (isinstance(key, str) and has_surrogates(key))
            if isinstance(item, (dict, list)):
                stack.append((item, depth + 1, name or str(key)))
            elif isinstance(item, str):
                dirty = dirty or has_surrogates(item)
    return scrub_json(params) if dirty else params


class ToolArgs(LazyModel):
    """Base of the argument models: `checked_arguments`, then OpenClaw's reading rules (`read`), then
    pydantic's types.

    A model's fields, aliased to the wire names and described, are also the one declaration of the
    tool's parameters: the schema offered to models is generated from them (tools/calling/schema.py). `read`
    returns the fields by name, so the wire spelling lives in the aliases only.
    """

    model_config = ConfigDict(extra="ignore", frozen=True, validate_by_name=True, validate_by_alias=True)

    @classmethod
    def read(cls, params: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    @model_validator(mode="before")
    @classmethod
    def _read_params(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise ToolInputError("arguments must be a JSON object")
        return cls.read(checked_arguments(data))


@dataclass
class ToolCall:
    """Who is calling: the requester session (None = the main alias), its channel, sandbox, and
    `chain`: the chain of the run the call is made in (docs/decisions.md D19; canonical keys,
    oldest first, normally the caller's own session last; empty outside a run), which the loop
    guard extends."""

    engine: Engine
    agent_session_key: str | None = None
    agent_channel: str | None = None
    sandboxed: bool = False
    extras: dict[str, Any] = field(default_factory=dict)
    chain: tuple[str, ...] = ()


ToolFn = Callable[[ToolCall, dict[str, Any]], Awaitable[dict[str, Any]]]
"""A tool that awaits (a run, the network, a wait): it runs on the caller's event loop, and hands
its larger store work to the store's thread itself."""
ReadFn = Callable[[ToolCall, dict[str, Any]], dict[str, Any]]
"""A tool that only reads the store: it runs whole on the store's thread (store_thread.py)."""


@dataclass(frozen=True)
class ToolSpec:
    """A tool as agents see it (name, label, description, argument model) and its implementation.

    `parameters`, the JSON schema offered to models, is generated from `arguments`, the model the
    tool parses its arguments with, when it is first asked for (a model's schema is built then).
    Its implementation is one of `run` (async) and `read` (sync, store reads only).
    """

    name: str
    label: str
    description: str
    arguments: type[ToolArgs]
    run: ToolFn | None = None
    read: ReadFn | None = None

    def __post_init__(self) -> None:
        if (self.run is None) == (self.read is None):
            raise TypeError(f"{self.name}: a tool is either run (async) or read (sync)")

    @cached_property
    def parameters(self) -> dict[str, Any]:
        return wire_parameters(self.arguments)

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
