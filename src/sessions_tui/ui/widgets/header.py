"""The top line: where the engine is, who the tools run as, how many sessions, live or paused.

It fits its width: the state path (then the followed OpenClaw path) is elided in the middle, then
shorter words are used; `● live` / `⏸ paused` is always shown. The paths show the home directory as
`~`; the tooltip has them whole. The counts say the live statuses but idle (`2 working · 1 stuck`)
once a status board gives them. Once the state database is found damaged, `✗ store damaged ·
read-only` takes the place of `● live` (nothing more is written to it); so does the link to a
gateway while it is not up (`⟳ reconnecting…`, `⚠ pairing`: its line, the command that approves
this device, in the tooltip). `◉ watched` says the highlighted session is watched, `! N` how many
notices wait in the attention list (`!`).
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from sessions_tui.counting import plural
from sessions_tui.ui.paths import home_relative
from sessions_tui.ui.text import elide_middle, visible
from sessions_tui.ui.widgets.table_line import LIVE_ICONS

MIN_PATH = 12  # a path elided to fewer cells than this says nothing: it is left out instead
REMOTE_SCHEMES = ("http://", "https://", "ws://", "wss://")
LINK_WORDS = {
    "connecting": "⟳ connecting…",
    "reconnecting": "⟳ reconnecting…",
    "pairing": "⚠ pairing: approve this device",
    "refused": "✗ gateway refused",
    "closed": "✗ disconnected",
}


class StatusHeader(Static):
    COMPONENT_CLASSES = {  # their colours: app.tcss, from the theme
        "header--live",
        "header--paused",
        "header--follow",
        "header--follow-failed",
        "header--sandboxed",
        "header--damaged",
    }

    state_dir: reactive[str] = reactive("")
    acting_as: reactive[str] = reactive("main")
    sandboxed: reactive[bool] = reactive(False)
    total: reactive[int] = reactive(0)
    running: reactive[int] = reactive(0)
    statuses: reactive[tuple[tuple[str, int], ...] | None] = reactive(None)
    """The live statuses but idle and how many sessions are in each (a status board's), None without one."""
    paused: reactive[bool] = reactive(False)
    follow_root: reactive[str] = reactive("")
    follow_failure: reactive[str] = reactive("")
    damaged: reactive[str] = reactive("")  # the line naming the damaged state database (its tooltip)
    link: reactive[str] = reactive("")  # a gateway link's state while it is not connected ("": up, or none)
    link_line: reactive[str] = reactive("")  # what to do about it (the pairing command), for the tooltip
    watched: reactive[bool] = reactive(False)  # the highlighted session is watched (`W`)
    attention: reactive[int] = reactive(0)  # notices in the attention list (`!`)

    def watch_state_dir(self) -> None:
        self._set_tooltip()

    def watch_follow_root(self) -> None:
        self._set_tooltip()

    def watch_damaged(self) -> None:
        self._set_tooltip()

    def watch_link_line(self) -> None:
        self._set_tooltip()

    def _set_tooltip(self) -> None:
        where = "remote" if self.state_dir.startswith(REMOTE_SCHEMES) else "state"
        lines = [f"{where} {self.state_dir}"] + ([f"OpenClaw {self.follow_root}"] if self.follow_root else [])
        lines += [self.damaged] if self.damaged else []
        lines += [self.link_line] if self.link_line else []
        self.tooltip = "\n".join(lines)

    def render(self) -> Text:
        width = self.size.width or 10_000
        text, state_shown = self._line(width, compact=False)
        if text.cell_len > width or not state_shown:
            text, _ = self._line(width, compact=True)
        return text

    def _line(self, width: int, compact: bool) -> tuple[Text, bool]:
        """The header in `width` cells (fixed parts first, the paths in what is left) and whether the
        state path is in it. `compact` uses short words and elides a long acting-as key too."""
        brand = Text(" sessions-tui ", style="bold reverse")
        counts = Text()
        if compact:
            counts.append(f"  {self.total:,}", style="")
            counts.append(f" ({self._status_counts(compact)})", style="dim")
        else:
            counts.append(f"  {plural(self.total, 'session')}", style="")
            counts.append(f" ({self._status_counts(compact)})", style="dim")
        if self.watched:
            counts.append("  ◉" if compact else "  ◉ watched", style=self._style("header--follow"))
        if self.attention:
            counts.append(
                f"  !{self.attention}" if compact else f"  ! {self.attention}", style=self._style("header--paused")
            )
        state = Text("  ")
        live = ("⏸ paused", "header--paused") if self.paused else ("● live", "header--live")
        if self.link:
            words = LINK_WORDS.get(self.link, self.link)
            live = (words[0] if compact else words, "header--follow-failed")
        if self.damaged:
            live = ("✗ read-only" if compact else "✗ store damaged · read-only", "header--damaged")
        state.append(live[0], style=self._style(live[1]))
        follow = Text()
        follow_path = ""
        if self.follow_root:
            if self.follow_failure:
                failed = "  ✗ OpenClaw follow failed" if not compact else "  ✗ OpenClaw"
                follow.append(failed, style=self._style("header--follow-failed"))
            else:
                follow.append("  ⇄ OpenClaw ", style=self._style("header--follow"))
                follow_path = visible(home_relative(self.follow_root))
        sandboxed = (" (sbx)" if compact else " (sandboxed)") if self.sandboxed else ""
        acting = visible(self.acting_as)
        fixed = brand.cell_len + len("  as ") + len(sandboxed) + follow.cell_len + counts.cell_len + state.cell_len
        if compact:
            acting = elide_middle(acting, max(MIN_PATH, width - fixed))
        who = Text()
        who.append("  as ", style="dim")
        who.append(acting, style="bold")
        who.append(sandboxed, style=self._style("header--sandboxed"))
        remote = self.state_dir.startswith(REMOTE_SCHEMES)  # a server's address: --remote
        state_label = ("  remote " if remote else "  state ") if not compact else "  "
        state_path = visible(home_relative(self.state_dir))
        room = width - fixed - len(acting)
        follow_room, state_room = self._allot(room, len(follow_path), len(state_label), len(state_path))
        text = brand
        if state_room > 0:
            text.append(state_label, style="dim")
            text.append(elide_middle(state_path, state_room))
        text.append_text(who)
        text.append_text(follow)
        if follow_room:
            text.append(elide_middle(follow_path, follow_room))
        text.append_text(counts)
        if text.cell_len + state.cell_len > width:  # live / paused always shows
            text.truncate(max(0, width - state.cell_len), overflow="ellipsis")
        text.append_text(state)
        return text, state_room > 0 or not state_path

    def _status_counts(self, compact: bool) -> str:
        """`2 working · 1 stuck` (compact: `2▶ 1!`); without a status board, the running rows."""
        if self.statuses is None:
            return f"{self.running} ▶" if compact else f"{self.running} running"
        if not self.statuses:
            return "idle" if compact else "all idle"
        if compact:
            return " ".join(f"{n}{LIVE_ICONS.get(status, '?')}" for status, n in self.statuses)
        return " · ".join(f"{n} {status}" for status, n in self.statuses)

    def _style(self, component: str) -> Style:
        """A part's colour and weight only (its background is the header's)."""
        style = self.get_component_rich_style(component, partial=True)
        return Style(color=style.color, bold=style.bold)

    @staticmethod
    def _allot(room: int, follow: int, label: int, state: int) -> tuple[int, int]:
        """Cells for the OpenClaw path and the state path (0: left out) in `room`: the state path is
        elided first, down to `MIN_PATH`, then the OpenClaw path; then the state path goes, then the other."""
        state_min, follow_min = min(state, MIN_PATH), min(follow, MIN_PATH)
        follow_room = max(follow_min, min(follow, room - label - state_min))
        state_room = min(state, room - follow_room - label)
        if state_room < state_min:
            state_room = 0
            follow_room = min(follow, room)
        if follow_room < follow_min:
            follow_room = 0
        return follow_room, state_room
