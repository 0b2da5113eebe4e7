"""The tool surface: every tool by name, and one way to call it as a requester."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any

from sessions_tui.tools.calling.base import ReadFn, ToolCall, ToolInputError, ToolSpec

# Each tool's module, in the order tools are listed and offered. A module is imported when its
# tool is first looked up, so a command that runs one tool loads that one alone.
_MODULES = {
    "sessions_list": "sessions_tui.tools.reading.sessions_list",
    "sessions_history": "sessions_tui.tools.reading.sessions_history",
    "sessions_search": "sessions_tui.tools.reading.sessions_search",
    "sessions_send": "sessions_tui.tools.acting.sessions_send",
    "sessions_spawn": "sessions_tui.tools.acting.sessions_spawn",
    "agents_list": "sessions_tui.tools.reading.agents_list",
    "subagents": "sessions_tui.tools.acting.subagents",
}


class _Registry(Mapping[str, ToolSpec]):
    """Every tool by name: the names known up front, each `ToolSpec` loaded with its module."""

    def __init__(self) -> None:
        self._loaded: dict[str, ToolSpec] = {}

    def __getitem__(self, name: str) -> ToolSpec:
        spec = self._loaded.get(name)
        if spec is None:  # every call looks its tool up: its module is asked for once
            spec = self._loaded[name] = importlib.import_module(_MODULES[name]).SPEC
        return spec

    def __iter__(self) -> Iterator[str]:
        return iter(_MODULES)

    def __len__(self) -> int:
        return len(_MODULES)

    def __contains__(self, name: object) -> bool:
        return name in _MODULES


TOOLS: Mapping[str, ToolSpec] = _Registry()


class UnknownToolError(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(f"Unknown tool: {name} (available: {', '.join(sorted(TOOLS))})")


def _checked(name: str, params: dict[str, Any] | None) -> tuple[ToolSpec, dict[str, Any]]:
    spec = TOOLS.get(name)
    if spec is None:
        raise UnknownToolError(name)
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ToolInputError("arguments must be a JSON object")
    return spec, params


def reads_only(name: str) -> bool:
    """Whether a tool only reads the store (it runs on the store's thread: `invoke_read`)."""
    spec = TOOLS.get(name)
    return spec is not None and spec.read is not None


async def invoke(call: ToolCall, name: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """Run one tool; raises `ToolInputError` for invalid arguments, `UnknownToolError`. A tool
    that only reads the store runs on the store's thread, its result redacted there too."""
    spec, params = _checked(name, params)
    if spec.read is not None:  # store reads only: the tool and its result's redaction, off the loop
        return await call.engine.store.thread.run(_read, spec.read, call, params)
    assert spec.run is not None
    return _shown(call, await spec.run(call, params))


def invoke_read(call: ToolCall, name: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """`invoke` of a tool that only reads the store (`reads_only`), for a caller already on the
    store's thread: one hop there for the requester's context and the tool together."""
    spec, params = _checked(name, params)
    if spec.read is None:
        raise ValueError(f"{name} does not only read")
    return _read(spec.read, call, params)


def _read(read: ReadFn, call: ToolCall, params: dict[str, Any]) -> dict[str, Any]:
    return _shown(call, read(call, params))


def _shown(call: ToolCall, result: dict[str, Any]) -> dict[str, Any]:
    """No secret leaves through a tool result (docs/decisions.md D16): whatever a tool put in it (a
    reply, a label, an error text), every string is redacted once more on the way out. Nor does a lone
    surrogate, which no UTF-8 output could carry: it becomes U+FFFD (engine/inputs/surrogates.py),
    each string scrubbed in the redaction's own walk."""
    redacted: dict[str, Any] = call.engine.redactor.redact_strings(result, scrub=True)
    return redacted
