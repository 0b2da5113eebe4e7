"""The main screen's keys: each binding's id, keys, footer word and help text, in the footer's order,
and the help section of every key of the dashboard (the app's and its widgets' too).

Help (`?`), the command palette and the footer read them from here (with the config's keymap,
`ui.keybindings {id: keys}`, applied by id); the main screen handles their actions. The app's own
keys (the next pane, help, quit) come after them. A key whose action needs a capability its backend
has not (`NEEDS`) is neither shown nor active.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

from sessions_tui.backend.contract.types import Capability
from sessions_tui.backend.toolkit.keys import SESSION_KINDS

SORT = Binding.Group("sort", compact=False)
PAGES = Binding.Group("page", compact=False)
KIND_KEYS = {"main": "alt+m", "group": "alt+g", "cron": "alt+c", "hook": "alt+h", "node": "alt+n", "other": "alt+o"}
"""The kind toggles' keys: a letter of the kind's name with alt (a terminal's esc+letter is alt+letter)."""
PANES = {
    1: "the filters",
    2: "the sessions",
    3: "the transcript, or the spawn panel's runs while it is open",
    4: "the composer",
}
"""The panes by number (lazygit): each key focuses its pane; the number stands in its border title.
In a text field a digit is typed: `esc` first (it leaves the field: the spawn form's for the runs
list), or alt with the digit where the terminal tells them apart (the kitty keyboard protocol: kitty,
WezTerm, foot, Ghostty, iTerm2); elsewhere a terminal's esc+digit reaches Textual as ¡ ™ £ ¢, which
are text and stay so."""

MAIN_KEYS: list[BindingType] = [
    Binding("down", "leave_filter", show=False),
    Binding("slash", "filter", "filter", id="filter", tooltip="filter sessions by key, label, channel…"),
    Binding("less_than_sign", "sort_prev", "sort ←", id="sort_prev", group=SORT, tooltip="sort by the previous column"),
    Binding("greater_than_sign", "sort_next", "sort →", id="sort_next", group=SORT, tooltip="sort by the next column"),
    Binding("I", "sort_reverse", "reverse sort", show=False, id="sort_reverse", tooltip="reverse the sort"),
    Binding("escape", "step_back", "back", id="back", tooltip="back"),  # the footer: in a field only
    Binding("enter", "open", "open", show=True, id="open", tooltip="write to the highlighted session (the composer)"),
    Binding(
        "j",
        "move('down')",
        "down",
        show=False,
        id="cursor_down",
        tooltip="move the cursor down (a table, the runs list)",
    ),
    Binding("k", "move('up')", "up", show=False, id="cursor_up", tooltip="move the cursor up (a table, the runs list)"),
    Binding("g", "move('top')", "top", show=False, id="cursor_top", tooltip="the first row (a table, the runs list)"),
    Binding(
        "G", "move('bottom')", "bottom", show=False, id="cursor_bottom", tooltip="the last row (a table, the runs list)"
    ),
    # home / end before the table's own (which scroll sideways); elsewhere they stay the focused widget's
    Binding(
        "home", "move('top')", "top", show=False, id="table_home", priority=True, tooltip="the first row, on a table"
    ),
    Binding(
        "end", "move('bottom')", "bottom", show=False, id="table_end", priority=True, tooltip="the last row, on a table"
    ),
    *(
        Binding(
            str(number),
            f"pane({number})",
            f"pane {number}",
            show=False,
            id=f"pane_{number}",
            tooltip=f"focus {what} (from a text field: esc first, or alt+{number})",
        )
        for number, what in PANES.items()
    ),
    # the same from a text field, where a digit is typed, in terminals that report alt with a digit
    *(Binding(f"alt+{number}", f"pane({number})", show=False, priority=True) for number in PANES),
    Binding(
        "plus",
        "layout(1)",
        "bigger",
        show=False,
        id="grow",
        tooltip="more room for the transcript: half, then all of the body",
    ),
    Binding(
        "underscore",
        "layout(-1)",
        "smaller",
        show=False,
        id="shrink",
        tooltip="less room for the transcript: back to normal",
    ),
    Binding("t", "toggle_tools", "tools", id="tools", tooltip="show or hide tool calls and results in the transcript"),
    Binding("m", "older", "older", id="older", tooltip="older messages in the transcript (200 more)"),
    Binding("s", "toggle_spawn", "spawn", id="spawn", tooltip="open or close the spawn panel"),
    Binding("a", "acting_as", "act as", id="acting_as", tooltip="act as another session, sandboxed or not"),
    Binding("l", "sends", "sends", id="sends", tooltip="the send ledger: every sessions_send of the open session"),
    Binding("w", "why", "why", id="why", tooltip="why: may the acting-as session list, read, send to, spawn here"),
    Binding(
        "U",
        "usage",
        "usage",
        show=False,
        id="usage",
        tooltip="usage: tokens and estimated cost over time, as the acting-as session may see them",
    ),
    Binding(
        "f,ctrl+f",
        "search",
        "find",
        id="search",
        tooltip="find: search the transcripts the acting-as session may read",
    ),
    Binding(
        "x",
        "stop",
        "stop",
        id="stop",
        tooltip="stop the open session's running turn, or the marked sessions' (asks first)",
    ),
    Binding("n", "new_session", "new", id="new_session", tooltip="new session: key, agent, label, model, message"),
    Binding(
        "R",
        "reset_session",
        "reset",
        id="reset_session",
        tooltip="reset the highlighted session: a new transcript, the old one kept (asks first)",
    ),
    Binding("L", "rename_session", "rename", id="rename_session", tooltip="rename: the highlighted session's label"),
    Binding(
        "M", "model_session", "model", id="model_session", tooltip="the highlighted session's model and thinking level"
    ),
    Binding(
        "A",
        "archive_session",
        "archive",
        id="archive_session",
        tooltip="archive or unarchive the highlighted session, or the marked ones (asks first)",
    ),
    Binding(
        "D",
        "delete_session",
        "delete",
        id="delete_session",
        tooltip="delete the highlighted session, or the marked ones; transcripts kept (asks first)",
    ),
    Binding("space", "toggle_mark", "mark", id="mark", tooltip="mark the highlighted row for archive, stop or delete"),
    Binding("W", "toggle_watch", "watch", show=False, id="watch", tooltip="watch the highlighted session, or stop"),
    Binding(
        "exclamation_mark",
        "attention",
        "attention",
        show=False,
        id="attention",
        tooltip="the attention list: what needs you, newest first",
    ),
    Binding("J", "run_cron_job", "run job", id="run_cron_job", tooltip="run the open cron session's job now"),
    Binding(
        "alt+a",
        "toggle_archived",
        "archived",
        show=False,
        id="show_archived",
        priority=True,  # as the kind toggles: before a field types what a terminal sends with it
        tooltip="show or hide the archived sessions (dimmed, ar)",
    ),
    Binding("E", "export", "export", id="export", tooltip="export the open session (redacted)"),
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
        "page ←",
        id="prev_page",
        group=PAGES,
        tooltip="previous page of sessions (100 a page)",
    ),
    Binding(
        "right_square_bracket", "next_page", "page →", id="next_page", group=PAGES, tooltip="next page of sessions"
    ),
    *(
        Binding(
            KIND_KEYS[kind],
            f"toggle_kind('{kind}')",  # priority: before a field types the letter a terminal sends with it
            kind,
            show=False,
            id=f"kind_{kind}",
            priority=True,
            tooltip=f"show or hide the {kind} sessions",
        )
        for kind in SESSION_KINDS
    ),
]

NEEDS: dict[str, Capability] = {
    "sends": Capability.LEDGER,
    "why": Capability.EXPLAIN,
    "search": Capability.SEARCH,
    "export": Capability.EXPORT,
    "stop": Capability.ABORT,
    "run_cron_job": Capability.CRON,
    **dict.fromkeys(
        [
            "new_session",
            "reset_session",
            "rename_session",
            "model_session",
            "archive_session",
            "delete_session",
            "toggle_mark",
        ],
        Capability.SESSION_OPS,
    ),
}
"""The actions that need a capability of the backend: without it, their key is hidden."""

NAVIGATE, FILTER, TRANSCRIPT, SEND, SPAWN, SESSIONS, VIEWS, APP = (
    "Navigate",
    "Filter and sort",
    "Transcript",
    "Send",
    "Spawn",
    "Sessions",
    "Views",
    "App",
)
SECTIONS = (NAVIGATE, FILTER, TRANSCRIPT, SEND, SPAWN, SESSIONS, VIEWS, APP)
"""Help's sections, in its order."""
SECTION_OF: dict[str, str] = {
    **dict.fromkeys(
        ["open", "cursor_down", "cursor_up", "cursor_top", "cursor_bottom", "table_home", "table_end"], NAVIGATE
    ),
    **dict.fromkeys([f"pane_{number}" for number in PANES], NAVIGATE),
    **dict.fromkeys(["focus_next_pane", "grow", "shrink", "back"], NAVIGATE),
    **dict.fromkeys(
        ["filter", "sort_prev", "sort_next", "sort_reverse", "prev_page", "next_page", "show_archived"], FILTER
    ),
    **dict.fromkeys([f"kind_{kind}" for kind in SESSION_KINDS], FILTER),
    **dict.fromkeys(["tools", "older"], TRANSCRIPT),
    **dict.fromkeys(["send", "stop"], SEND),
    **dict.fromkeys(["spawn", "spawn_kill", "spawn_steer"], SPAWN),
    **dict.fromkeys(
        [
            "new_session",
            "reset_session",
            "rename_session",
            "model_session",
            "archive_session",
            "delete_session",
            "mark",
            "run_cron_job",
            "watch",
        ],
        SESSIONS,
    ),
    **dict.fromkeys(["sends", "why", "search", "export", "usage", "attention"], VIEWS),
    **dict.fromkeys(["acting_as", "pause", "refresh", "help", "quit"], APP),
}
"""The help section of every key with an id: the main screen's above, the app's (app.py) and the
focusable widgets' (the spawn runs list: spawn_runs.py). Help lists every binding with a
description; one missing here would stand under "Other" (a test forbids it)."""
