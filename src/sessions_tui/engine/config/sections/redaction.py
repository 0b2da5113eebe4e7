"""The `logging` section's redaction settings, and the warnings that keep redaction from going quietly off.

sessions-tui never shows a secret: `redactSensitive: "off"` is accepted but ignored, and a
custom pattern that cannot be used (unsafe, or not a regular expression) is left out with a
warning naming it by its index (never repeating it: it may be a literal secret), while the built-in patterns stay on.
"""

from typing import Literal

from pydantic import Field

from sessions_tui.engine.config.model.base import ConfigModel

__all__ = ["LoggingConfig", "redaction_warnings"]


class LoggingConfig(ConfigModel):
    """`logging`: how secrets are masked in what sessions-tui shows."""

    redact_sensitive: Literal["off", "tools"] = Field(
        default="tools",
        alias="redactSensitive",
        description='"tools" or "off"; "off" is ignored with a warning (redaction is always on). Default "tools".',
    )
    redact_patterns: list[str] | None = Field(
        default=None,
        alias="redactPatterns",
        description="Your own redaction patterns (JavaScript regular expressions), added to the built-in "
        "ones; default: none.",
    )


def redaction_warnings(logging: LoggingConfig, source: str) -> list[str]:
    """Redaction is never silently off: every custom pattern left out is named, with why."""
    out: list[str] = []
    own = logging.redact_patterns or []
    if own:  # JavaScript's syntax, checked by js_patterns: loaded when a config has patterns of its own
        from sessions_tui.engine.redaction.js_patterns import pattern_problem
    for index, raw in enumerate(own):
        why = pattern_problem(raw)
        if why:
            # Named by its index, never repeated: an entry may be a literal secret listed to be masked.
            out.append(
                f"{source}: logging.redactPatterns[{index}] is {why} and is ignored; the built-in patterns stay on"
            )
    if logging.redact_sensitive == "off":
        out.append(
            f'{source}: logging.redactSensitive "off" is ignored: sessions-tui never shows a secret '
            "(OpenClaw 2026.9.6 also redacts tool results regardless)"
        )
    return out
