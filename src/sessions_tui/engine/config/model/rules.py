"""Value rules: the clamps and enum fallbacks of the config's numbers and names, in one table.

A bad value of a key sessions-tui uses does not stop the start (docs/decisions.md D14): an
out-of-range number is clamped, an unknown enum value falls back, and each becomes a warning
`"<file>: <key.path>: <why>; using <value>"`. Every such key is declared once in `VALUE_RULES`,
keyed by its JSON key path; `apply_value_rules` applies the table to the raw (parsed, not yet
validated) data, before the models see it. Numbers of integer keys may be floats: OpenClaw floors
them, and so does this table.
"""

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sessions_tui.engine.sessions.entry import is_number

__all__ = [
    "MAX_TIMER_MS",
    "VALUE_RULES",
    "Choice",
    "IntRange",
    "OnWarning",
    "apply_value_rules",
    "json_type",
    "show_number",
]

#: The longest delay a JavaScript timer takes (OpenClaw caps its timeouts here).
MAX_TIMER_MS = 2_147_000_000

#: `on_warning(key_path, why, value_used)`: told of each value that was clamped or replaced.
OnWarning = Callable[[str, str, Any], None]


class IntRange(NamedTuple):
    """An integer key: floats are floored, then clamped to [min, max] with a warning.

    `default` replaces non-finite numbers (NaN, ±Infinity). With `keep_positive`, a positive
    value never floors below 1 (OpenClaw reads archiveAfterMinutes as `max(1, floor(x))`).
    """

    default: int
    min: int | None = None
    max: int | None = None
    keep_positive: bool = False
    below_min_is_default: bool = False  # where `min` turns a check off (0 = no limit), a typo must not


@dataclass(frozen=True)
class Choice:
    """An enum key: matched case-insensitively after trimming; unknown → `fallback` + warning."""

    values: tuple[str, ...]
    fallback: str
    aliases: Mapping[str, str] = field(default_factory=dict)


#: JSON key-path pattern → rule. `[*]` stands for every element of an array.
VALUE_RULES: dict[str, IntRange | Choice] = {
    "session.scope": Choice(("per-sender", "global"), "per-sender"),
    "session.dmScope": Choice(("main", "per-peer", "per-channel-peer", "per-account-channel-peer"), "main"),
    "session.sendPolicy.default": Choice(("allow", "deny"), "allow"),
    "session.sendPolicy.rules[*].action": Choice(("allow", "deny"), "allow"),
    "session.agentToAgent.maxPingPongTurns": IntRange(default=5, min=0, max=5),
    "session.agentToAgent.maxChainHops": IntRange(default=6, min=0, max=100, below_min_is_default=True),
    "tools.sessions.visibility": Choice(("self", "tree", "agent", "all"), "tree"),
    "agents.defaults.sandbox.mode": Choice(("off", "non-main", "all"), "off"),
    "agents.defaults.sandbox.sessionToolsVisibility": Choice(("spawned", "all"), "spawned"),
    "agents.list[*].sandbox.mode": Choice(("off", "non-main", "all"), "off"),
    "agents.defaults.subagents.maxSpawnDepth": IntRange(default=1, min=1, max=5),
    "agents.defaults.subagents.maxChildrenPerAgent": IntRange(default=5, min=1, max=20),
    "agents.defaults.subagents.maxConcurrent": IntRange(default=8, min=1),
    "agents.defaults.subagents.archiveAfterMinutes": IntRange(default=60, min=0, keep_positive=True),
    "agents.defaults.subagents.runTimeoutSeconds": IntRange(default=0, min=0),
    "agents.defaults.subagents.announceTimeoutMs": IntRange(default=120_000, min=1, max=MAX_TIMER_MS),
    "agents.defaults.timeoutSeconds": IntRange(default=600, min=0),
    "models.demo.latencyMs": IntRange(default=400, min=0, max=60_000),
    "models.demo.chunkMs": IntRange(default=40, min=0, max=10_000),
    "logging.redactSensitive": Choice(("off", "tools"), "tools"),
    "ui.sendWait": IntRange(default=30, min=0, max=9999),
    "ui.stuckAfterMinutes": IntRange(default=2, min=0, max=1440),
    "store.leaseSeconds": IntRange(default=15, min=3, max=3600),
}

_ITEM = object()  # pattern segment: every element of an array


def _split_pattern(pattern: str) -> list[object]:
    segments: list[object] = []
    for part in pattern.split("."):
        name, _, rest = part.partition("[")
        segments.append(name)
        if rest:
            segments.append(_ITEM)
    return segments


_COMPILED_RULES = [(_split_pattern(p), rule) for p, rule in VALUE_RULES.items()]


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type (`number`, `object`…), for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def show_number(value: int | float) -> str:
    """A number as JSON5 spells it: `3` for 3.0, `NaN`, `Infinity`, `-Infinity`."""
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value.is_integer():
            return str(int(value))
    return repr(value)


def _apply_rule(rule: IntRange | Choice, value: Any, warn: Callable[[str, Any], None]) -> Any:
    """The clamped/normalised value; values of the wrong type are returned unchanged."""
    if isinstance(rule, Choice):
        if not isinstance(value, str):
            return value  # the model rejects it as a type error
        text = value.strip().lower()
        text = rule.aliases.get(text, text)
        if text in rule.values:
            return text
        warn(
            f"unknown value {json.dumps(value)} (expected one of {', '.join(rule.values)})",
            rule.fallback,
        )
        return rule.fallback
    if not is_number(value):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        warn(f"{show_number(value)} is not a finite number", rule.default)
        return rule.default
    number = math.floor(value)
    if rule.keep_positive and value > 0:
        number = max(1, number)
    if rule.min is not None and number < rule.min:
        used = rule.default if rule.below_min_is_default else rule.min
        warn(f"{show_number(value)} is below the minimum {rule.min}", used)
        return used
    if rule.max is not None and number > rule.max:
        warn(f"{show_number(value)} is above the maximum {rule.max}", rule.max)
        return rule.max
    return number


def _walk(node: Any, segments: list[object], path: str, rule: IntRange | Choice, on_warning: OnWarning) -> None:
    head, rest = segments[0], segments[1:]
    if head is _ITEM:
        if isinstance(node, list):
            for index, item in enumerate(node):
                if rest:
                    _walk(item, rest, f"{path}[{index}]", rule, on_warning)
        return
    if not isinstance(node, dict):
        return
    assert isinstance(head, str)
    for key in dict.fromkeys((head, _snake(head))):
        if key not in node:
            continue
        child_path = f"{path}.{key}" if path else key
        if rest:
            _walk(node[key], rest, child_path, rule, on_warning)
        else:

            def warn(why: str, used: Any, _path: str = child_path) -> None:
                on_warning(_path, why, used)

            node[key] = _apply_rule(rule, node[key], warn)


def apply_value_rules(data: dict[str, Any], on_warning: OnWarning) -> None:
    """Apply `VALUE_RULES` to raw config data in place; `on_warning(path, why, used)`."""
    for segments, rule in _COMPILED_RULES:
        _walk(data, segments, "", rule, on_warning)
