"""The text of a sub-agent's announce: the child's Result and Notes pulled from its reply, and the stats line.

Durations, token counts and cost are written the way OpenClaw writes them in its announce block
(docs/decisions.md D4): `1m5s`, `12.3k`, `$0.0123`.
"""

from __future__ import annotations

import re

from sessions_tui.engine.sessions.entry import SessionEntry, is_number


def format_duration(ms: int | float | None) -> str:
    if not ms or ms <= 0:
        return "n/a"
    seconds = round(ms / 1000)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"


def format_tokens(n: int | float | None) -> str:
    if not n or n <= 0:
        return "0"
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}m"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(round(n))


def format_cost(cost: float) -> str:
    return f"{cost:.4f}" if cost < 1 else f"{cost:.2f}"


def stats_line(entry: SessionEntry, *, runtime_ms: int | None, key: str, session_id: str, transcript: str) -> str:
    tokens_in, tokens_out = entry.get("inputTokens"), entry.get("outputTokens")
    if isinstance(tokens_in, (int, float)) and isinstance(tokens_out, (int, float)):
        split = f"in {format_tokens(tokens_in)} / out {format_tokens(tokens_out)}"
        tokens = f"tokens {format_tokens(tokens_in + tokens_out)} ({split})"
    else:
        tokens = "tokens n/a"
    parts = [f"runtime {format_duration(runtime_ms)}", tokens]
    cost = entry.get("estimatedCostUsd")
    if is_number(cost):
        parts.append(f"est ${format_cost(float(cost))}")
    parts += [f"sessionKey {key}", f"sessionId {session_id}", f"transcript {transcript}"]
    return "Stats: " + " • ".join(parts)


_HEADING = re.compile(r"^\s*(Status|Result|Notes)\s*:\s?", re.IGNORECASE | re.MULTILINE)


def normalise_announce(reply: str) -> tuple[str, str]:
    """(Result, Notes) from the child's announce reply; a reply without headings is the Result.

    A `Status:` the model wrote is dropped: the status comes from the run outcome only.
    """
    sections: dict[str, str] = {}
    matches = list(_HEADING.finditer(reply))
    if not matches:
        return reply.strip(), ""
    lead = reply[: matches[0].start()].strip()
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(reply)
        sections.setdefault(match.group(1).lower(), reply[match.end() : end].strip())
    result = sections.get("result") or lead
    return result.strip(), sections.get("notes", "").strip()
