"""The main screen's keys: each binding's id, keys, footer word and help text, in the footer's order.

Help (`?`), the command palette and the footer read them from here (with the config's keymap,
`ui.keybindings {id: keys}`, applied by id); the main screen handles their actions. The app's own
keys (the next pane, help, quit) come after them. A key whose action needs a capability its backend
has not (`NEEDS`) is neither shown nor active.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

from sessions_tui.backend.contract.types import Capability

SORT = Binding.Group("sort", compact=False)

MAIN_KEYS: list[BindingType] = [
    Binding("down", "leave_filter", show=False),
    Binding("slash", "filter", "filter", id="filter", tooltip="filter sessions by key, label, channel…"),
    Binding("less_than_sign", "sort_prev", "sort ←", id="sort_prev", group=SORT, tooltip="sort by the previous column"),
    Binding("greater_than_sign", "sort_next", "sort →", id="sort_next", group=SORT, tooltip="sort by the next column"),
    Binding("I", "sort_reverse", "reverse sort", show=False, id="sort_reverse", tooltip="reverse the sort"),
    Binding("escape", "step_back", "back", id="back", tooltip="back"),  # the footer: in a field only
    Binding("enter", "open", "open", show=True, id="open", tooltip="write to the highlighted session (the composer)"),
    Binding("t", "toggle_tools", "tools", id="tools", tooltip="show or hide tool calls and results in the transcript"),
    Binding(
        "m",
        "older",
        "older messages",
        show=False,
        id="older",
        tooltip="older messages in the transcript (200 more)",
    ),
    Binding("s", "toggle_spawn", "spawn", id="spawn", tooltip="open or close the spawn panel"),
    Binding("a", "acting_as", "act as", id="acting_as", tooltip="act as another session, sandboxed or not"),
    Binding("l", "sends", "sends", id="sends", tooltip="the send ledger: every sessions_send of the open session"),
    Binding("w", "why", "why", id="why", tooltip="why: may the acting-as session list, read, send to, spawn here"),
    Binding(
        "g,ctrl+f", "search", "search", id="search", tooltip="search the transcripts the acting-as session may read"
    ),
    Binding("x", "stop", "stop", id="stop", tooltip="stop the open session's running turn (asks first)"),
    Binding("E", "export", "export", show=False, id="export", tooltip="export the open session (redacted)"),
    Binding("p", "toggle_pause", "pause", id="pause", tooltip="pause or resume live updates"),
    Binding("r", "refresh", "refresh", id="refresh", tooltip="refresh the table, the transcript and the spawn runs"),
    Binding(
        "ctrl+s,ctrl+j",
        "send",
        "send",
        id="send",
        priority=True,
        tooltip="send the message (in the spawn form: spawn)",
    ),
    Binding(
        "left_square_bracket",
        "prev_page",
        "page up",
        show=False,
        id="prev_page",
        tooltip="previous page of sessions (100 a page)",
    ),
    Binding(
        "right_square_bracket",
        "next_page",
        "page down",
        show=False,
        id="next_page",
        tooltip="next page of sessions",
    ),
]

NEEDS: dict[str, Capability] = {
    "sends": Capability.LEDGER,
    "why": Capability.EXPLAIN,
    "search": Capability.SEARCH,
    "export": Capability.EXPORT,
    "stop": Capability.ABORT,
}
"""The actions that need a capability of the backend: without it, their key is hidden."""
