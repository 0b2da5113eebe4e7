"""Agent text shown as data: never markup, never terminal control.

Everything an agent wrote goes through `literal`, which builds a Rich `Text` (so `[bold]` stays
two brackets and a word) with control characters replaced by visible symbols (so an escape
sequence shows as `␛[31m` instead of colouring the terminal, a U+202E as `⟨U+202E⟩` instead of
turning the line around), and the user's home shown as `~`
(an announcement names its transcript's path).
"""

from __future__ import annotations

from datetime import UTC, datetime

from rich.text import Text

from sessions_tui.backend.values.rows import is_number
from sessions_tui.terminal_text import visible as visible  # one table for the dashboard and the CLI
from sessions_tui.ui.paths import home_relative
from sessions_tui.ui.theme import themed

STATUS_ICONS = {"running": "▶", "done": "✓", "failed": "✗", "killed": "✗", "timeout": "⏱"}
ROLE_STYLES = {
    "user": "bold $text-primary",
    "assistant": "bold $success",
    "toolResult": "bold $warning",
    "tool": "bold $warning",
    "system": "bold $accent",
}


def span(text: str, style: str = "") -> Text:
    """Text whose style stays on its own characters when concatenated (a Rich base style would spread);
    `$name` in `style` is the theme's colour."""
    out = Text()
    out.append(text, style=themed(style) or None)
    return out


def literal(text: object, style: str = "") -> Text:
    """Agent text as a Rich Text: no markup parsing, no terminal control, the home directory as `~`."""
    return span(visible(home_relative(text if isinstance(text, str) else str(text))), style)


def elide_middle(text: str, width: int) -> str:
    """`text` in at most `width` cells, its middle replaced by `…` (both ends stay readable)."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    head = (width - 1) // 2
    return text[:head] + "…" + text[len(text) - (width - 1 - head) :]


def one_line(text: object, limit: int = 120) -> str:
    flat = " ".join(visible(text if isinstance(text, str) else str(text)).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def relative_time(ms: int | float | None, now_ms: int) -> str:
    if not isinstance(ms, (int, float)):
        return "—"
    seconds = max(0, int((now_ms - ms) / 1000))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86400:
        return f"{seconds // 3600}h"
    return f"{seconds // 86400}d"


def clock_time(ms: int | float | None, *, seconds: bool = False) -> str:
    if not isinstance(ms, (int, float)):
        return "--:--:--" if seconds else "--:--"
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%H:%M:%S" if seconds else "%H:%M")


def short_number(n: int | float | None) -> str:
    """A count in at most 5 cells for a table column: 999, 9.9k, 10k, 999k, 1.0m … (empty for none)."""
    if not is_number(n) or n <= 0:
        return ""
    if n < 1000:
        return str(int(n))
    for unit, scale in (("k", 1e3), ("m", 1e6), ("b", 1e9), ("t", 1e12)):
        value = n / scale
        if value < 9.95:
            return f"{value:.1f}{unit}"
        if value < 999.5:
            return f"{value:.0f}{unit}"
    return ">999t"


def elapsed(ms: int | float) -> str:
    seconds = max(0, int(ms / 1000))
    return f"{seconds // 60}:{seconds % 60:02d}"
