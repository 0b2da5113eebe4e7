"""The top line: where the engine is, who the tools run as, how many sessions, live or paused."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from sessions_tui.ui.text import visible


class StatusHeader(Static):
    state_dir: reactive[str] = reactive("")
    acting_as: reactive[str] = reactive("main")
    sandboxed: reactive[bool] = reactive(False)
    total: reactive[int] = reactive(0)
    running: reactive[int] = reactive(0)
    paused: reactive[bool] = reactive(False)
    follow_root: reactive[str] = reactive("")
    follow_failure: reactive[str] = reactive("")

    def render(self) -> Text:
        text = Text()
        text.append(" sessions-tui ", style="bold reverse")
        text.append("  state ", style="dim")
        text.append(visible(self.state_dir))
        text.append("  as ", style="dim")
        text.append(visible(self.acting_as), style="bold")
        if self.sandboxed:
            text.append(" (sandboxed)", style="bold #e5c07b")
        if self.follow_root:
            if self.follow_failure:
                text.append("  ✗ OpenClaw follow failed", style="bold #e06c75")
            else:
                text.append("  ⇄ OpenClaw ", style="bold #61afef")
                text.append(visible(self.follow_root))
        text.append(f"  {self.total:,} sessions", style="")
        text.append(f" ({self.running} running)", style="dim")
        text.append("  ")
        if self.paused:
            text.append("⏸ paused", style="bold #e5c07b")
        else:
            text.append("● live", style="bold #9ee493")
        return text
