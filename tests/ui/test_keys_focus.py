"""Pilot tests of the keys and focus: the cursor, the transcript and the composer agree; esc, enter
and ctrl+s act on the focused part; sorting from the keyboard; the footer, help and palette."""

import io

from rich.console import Console
from textual.command import CommandList, CommandPalette
from textual.widgets._footer import FooterKey

from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.engine.config import parse_config
from sessions_tui.engine.engine import Engine
from sessions_tui.ui.app import SessionsApp
from sessions_tui.ui.screens.dialogs.acting_as import OPERATOR
from sessions_tui.ui.widgets.footer import DashboardFooter
from sessions_tui.ui.widgets.transcript import MessageView
from ui_support import SIZE, demo_app, select, settle, text_of, until

DEV = "agent:main:discord:group:dev"
MAIN = "agent:main:main"


def shown(app):
    """The session under the table's cursor, in the transcript and in the composer."""
    screen = app.main_screen
    return (
        screen.query_one("#sessions").current_key(),
        screen.query_one("#transcript").key,
        screen.query_one("#composer").key,
    )


async def rested(pilot):
    """Wait for the cursor's session to have opened (it opens once the cursor rests)."""
    await until(pilot, lambda: not pilot.app.main_screen.opening, "the highlighted session to open")
    await settle(pilot)


def ordered_rows(app):
    table = app.main_screen.query_one("#sessions")
    return [table.rows_by_key[row.key.value] for row in table.ordered_rows]


def user_texts(app, key):
    return [m["content"] for m in app.engine.store.transcripts.history(key).messages if m.get("role") == "user"]


async def test_cursor_transcript_and_send_target_agree_after_a_kind_toggle_and_esc(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        await pilot.click("#kind-cron")
        await until(
            pilot,
            lambda: (
                "cron:nightly-report" not in app.main_screen.query_one("#sessions").rows_by_key
                and "agent:main:cron:nightly-report" not in app.main_screen.query_one("#sessions").rows_by_key
            ),
            "the cron session to leave the table",
        )
        await pilot.press("escape", "escape")
        await rested(pilot)
        assert shown(app) == (DEV, DEV, DEV)
        assert DEV in text_of(app.main_screen.query_one("#composer-target"))
        await pilot.press("enter", *"hello dev", "ctrl+s")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: text_of(outcome).startswith("ok"), "the send's outcome")
        assert "hello dev" in user_texts(app, DEV)
        assert "hello dev" not in user_texts(app, MAIN)


async def test_a_filter_that_drops_the_open_session_opens_the_row_under_the_cursor(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        await pilot.press("slash", *"nightly")
        await until(pilot, lambda: len(app.main_screen.query_one("#sessions").rows_by_key) == 1, "the filtered page")
        await rested(pilot)
        key = app.main_screen.query_one("#sessions").current_key()
        assert "nightly" in key and shown(app) == (key, key, key)
        await pilot.press("escape")  # the filter clears; the cursor stays on the open session
        await until(pilot, lambda: len(app.main_screen.query_one("#sessions").rows_by_key) > 1, "the whole table")
        await rested(pilot)
        assert shown(app) == (key, key, key)


async def test_a_filter_matching_nothing_clears_the_transcript_and_the_composer_and_says_so(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"xyzq")
        pane = app.main_screen.query_one("#transcript")
        await until(
            pilot,
            lambda: pane.key is None and not app.main_screen.query_one("#sessions").row_count,
            "the empty table to clear the transcript",
        )
        note = 'no sessions match "xyzq" — esc clears the filter'
        assert text_of(app.main_screen.query_one("#page-info")).strip() == note
        assert note in text_of(app.main_screen.query_one("#transcript-title"))
        assert not pane.query(MessageView)
        assert app.main_screen.query_one("#composer").key is None
        assert "(no session)" in text_of(app.main_screen.query_one("#composer-target"))
        await pilot.press("escape")
        await until(pilot, lambda: pane.key is not None, "the cleared filter to open a session again")
        await rested(pilot)
        assert shown(app)[0] == pane.key


async def test_an_empty_state_directory_says_how_to_get_the_demo(tmp_path):
    app = SessionsApp(LocalBackend(Engine(tmp_path / "empty", parse_config({})[0])), watch_store=False, steady=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        info = text_of(app.main_screen.query_one("#page-info"))
        assert "no sessions yet" in info and "sessions-tui --demo" in info
        assert "sessions-tui --demo" in text_of(app.main_screen.query_one("#transcript-title"))


async def test_the_last_send_outcome_goes_when_the_target_or_the_requester_changes(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        outcome = app.main_screen.query_one("#outcome")
        await pilot.press("enter", *"hi", "ctrl+s")
        await until(pilot, lambda: text_of(outcome).startswith("ok"), "the send's outcome")
        await pilot.press("escape", "down")
        await until(pilot, lambda: app.main_screen.query_one("#composer").key == DEV, "dev to open")
        assert text_of(outcome) == "" and text_of(app.main_screen.query_one("#send-log")) == ""
        await pilot.press("enter", *"hi dev", "ctrl+s")
        await until(pilot, lambda: text_of(outcome).startswith("ok"), "the send's outcome")
        app.requester_key = DEV  # acting as another session (what the picker's choice does)
        app.main_screen.requester_changed()
        await settle(pilot)
        assert text_of(outcome) == ""


async def test_escape_in_the_composer_leaves_it_keeping_the_filter_and_q_then_types_nothing(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"dev")
        await until(pilot, lambda: len(app.main_screen.query_one("#sessions").rows_by_key) == 1, "the filtered page")
        message = app.main_screen.query_one("#message")
        message.focus()
        await pilot.press(*"abc", "escape")
        assert app.focused is app.main_screen.query_one("#sessions")
        assert app.main_screen.query_one("#filter").value == "dev"
        await pilot.press("q")
        assert message.value == "abc"
        await until(pilot, lambda: not app.is_running, "q to quit")


async def test_escape_in_the_filter_clears_it_and_on_the_table_clears_it_too(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.main_screen.query_one("#sessions")
        await pilot.press("slash", *"dev", "escape")
        assert app.focused is table and app.main_screen.query_one("#filter").value == ""
        app.main_screen.query_one("#filter").value = "dev"
        await pilot.press("escape")
        assert app.focused is table and app.main_screen.query_one("#filter").value == ""


async def test_escape_in_the_spawn_panel_closes_it_and_keeps_the_filter(tmp_path):
    """esc in the form goes to the runs list (one key from the form to x and e, issue 28 item 12);
    esc there closes the panel."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main_screen.query_one("#filter").value = "dev"
        await pilot.press("s")
        assert app.focused.id == "spawn-task"
        await pilot.press("escape")
        assert app.main_screen.query_one("#side").current == "spawn"
        assert app.focused is app.main_screen.query_one("#spawn-runs")
        await pilot.press("escape")
        assert app.main_screen.query_one("#side").current == "transcript"
        assert app.focused is app.main_screen.query_one("#sessions")
        assert app.main_screen.query_one("#filter").value == "dev"


async def test_ctrl_s_in_the_spawn_form_spawns_instead_of_sending(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("s", *"count the words in: one two", "ctrl+s")
        outcome = app.main_screen.query_one("#spawn-outcome")
        await until(pilot, lambda: text_of(outcome).startswith("accepted · "), "the spawn's outcome")
        assert not any("Type a message first." in n.message for n in app._notifications)
        assert text_of(app.main_screen.query_one("#outcome")) == ""


async def test_ctrl_s_where_the_spawn_panel_has_the_body_spawns_from_any_part_of_it(tmp_path):
    """At 80x24 the panel takes the body and the composer is out of sight: ctrl+s from the runs
    list spawns what the form says instead of sending the hidden composer's message."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("s", *"count the words in: one two")
        screen = app.main_screen
        assert not screen.query_one("#composer").display
        screen.query_one("#spawn-runs").focus()
        await pilot.press("ctrl+s")
        outcome = screen.query_one("#spawn-outcome")
        await until(pilot, lambda: text_of(outcome).startswith("accepted · "), "the spawn's outcome")
        assert not any("Type a message first." in n.message for n in app._notifications)
        assert text_of(screen.query_one("#outcome")) == ""


async def test_acting_as_another_agents_main_names_that_agent(tmp_path):
    app = demo_app(tmp_path / "s", acting_as="agent:research:main")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        header = text_of(app.main_screen.query_one("#status-header"))
        assert "as agent:research:main" in header and "as main " not in header
    app = demo_app(tmp_path / "t")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "as main " in text_of(app.main_screen.query_one("#status-header"))


async def test_config_warnings_are_toasts_at_start_shown_as_text(tmp_path):
    config = tmp_path / "config.json5"
    config.write_text("{ session: { agentToAgent: { maxPingPongTurns: 99 } } }")
    engine, _ = Engine.open(tmp_path / "state", config)
    app = SessionsApp(LocalBackend(engine), watch_store=False, steady=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        toasts = [n for n in app._notifications if n.title == "Config warning"]
        assert [n.message for n in toasts] == [
            f"{config}: session.agentToAgent.maxPingPongTurns: 99 is above the maximum 5; using 5"
        ]
        assert toasts[0].severity == "warning" and toasts[0].markup is False
    app = SessionsApp(
        LocalBackend(Engine(tmp_path / "other", parse_config({})[0])),
        watch_store=False,
        steady=True,
        config_warnings=["[bold]x[/] \x1b[31m"],
    )
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert [n.message for n in app._notifications if n.title == "Config warning"] == ["[bold]x[/] ␛[31m"]


async def test_sorting_from_the_keyboard_cycles_the_columns_and_reverses(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        query = app.main_screen.query_state
        header = app.main_screen.query_one("#table-header")
        assert (query.order_by, query.descending) == ("updated", True)
        await pilot.press("greater_than_sign")
        await settle(pilot)
        assert (query.order_by, query.descending) == ("model", False)
        await pilot.press("less_than_sign", "less_than_sign")
        await settle(pilot)
        assert (query.order_by, query.descending) == ("label", False)
        labels = [row["label"] for row in ordered_rows(app) if row.get("label")]
        assert len(labels) > 3 and labels == sorted(labels, key=str.lower)
        assert "LABEL▲" in text_of(header.query_one("#col-label"))
        await pilot.press("I")
        await settle(pilot)
        assert (query.order_by, query.descending) == ("label", True)
        assert "LABEL▼" in text_of(header.query_one("#col-label"))
        assert [row["label"] for row in ordered_rows(app) if row.get("label")] == list(reversed(labels))
        await rested(pilot)
        assert shown(app) == (DEV, DEV, DEV)  # the cursor stays on the open session


async def test_enter_or_down_in_the_filter_returns_to_the_table_keeping_the_filter(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.main_screen.query_one("#sessions")
        for key in ("enter", "down"):
            await pilot.press("slash", *"dev", key)
            assert app.focused is table, key
            assert app.main_screen.query_one("#filter").value == "dev"
            await until(pilot, lambda: len(table.rows_by_key) == 1, "the filtered page")
            app.main_screen.query_one("#filter").value = ""
            await until(pilot, lambda: len(table.rows_by_key) > 1, "the whole table")
        row = table.cursor_row
        await pilot.press("down")  # on the table ↓ still moves the cursor
        assert table.cursor_row == row + 1


def footer_keys(app):
    return [(key.key_display, key.action) for key in app.main_screen.query(FooterKey)]


async def test_the_footer_shows_send_help_and_quit_at_80_columns_and_more_when_wider(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        keys = footer_keys(app)
        for wanted in [
            ("^s", "send"),
            ("?", "help"),
            ("q", "quit"),
            ("/", "filter"),
            ("<", "sort_prev"),
            (">", "sort_next"),
            ("^p", "command_palette"),
        ]:
            assert wanted in keys
        assert ("t", "toggle_tools") not in keys
        footer = app.main_screen.query_one(DashboardFooter)
        assert sum(key.outer_size.width for key in footer.query(FooterKey)) <= 80
        await pilot.resize_terminal(160, 48)  # issue 28: from 140 columns m, E and [ ] too, and all of it fits
        await until(pilot, lambda: ("m", "older") in footer_keys(app), "the wide footer")
        assert ("t", "toggle_tools") in footer_keys(app) and ("^s", "send") in footer_keys(app)
        assert {("E", "export"), ("[", "prev_page"), ("]", "next_page"), ("q", "quit")} <= set(footer_keys(app))
        assert sum(key.outer_size.width for key in footer.query(FooterKey)) <= 160
        await pilot.resize_terminal(200, 50)
        await until(pilot, lambda: ("p", "toggle_pause") in footer_keys(app), "the widest footer")


def footer_words(app):
    return [(key.key_display, key.description) for key in app.main_screen.query(FooterKey)]


async def test_in_a_field_the_footer_offers_esc_and_says_what_ctrl_s_does_there(tmp_path):
    """A field types printable keys (`/` too), so the footer shows esc instead; ctrl+s reads
    `spawn` where it spawns, `send` where it sends."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert ("^s", "send") in footer_words(app) and ("esc", "back") not in footer_words(app)
        await pilot.press("s")
        await until(pilot, lambda: ("^s", "spawn") in footer_words(app), "ctrl+s named spawn")
        assert ("esc", "back") in footer_words(app) and ("/", "filter") not in footer_words(app)
        await pilot.press("slash")
        assert app.main_screen.query_one("#spawn-task").value == "/"
        await pilot.press("escape", "escape", "enter")  # the runs list, the panel closed; enter opens the composer
        await until(pilot, lambda: app.focused.id == "message", "the composer")
        await until(pilot, lambda: ("^s", "send") in footer_words(app), "ctrl+s named send")
        assert ("esc", "back") in footer_words(app)


def highlighted_id(modal):
    options = modal.query_one("#acting-options")
    return options.get_option_at_index(options.highlighted).id


async def test_the_acting_as_picker_opens_on_the_requester_and_enter_picks_keeping_sandboxed(tmp_path):
    app = demo_app(tmp_path / "s", acting_as=DEV)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        modal = app.screen
        assert highlighted_id(modal) == DEV
        modal.query_one("#acting-sandboxed").value = True
        await settle(pilot)
        await pilot.press("up")  # to main's row: the switch stays on
        await settle(pilot)
        assert highlighted_id(modal) == MAIN and modal.query_one("#acting-sandboxed").value is True
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is app.main_screen, "the picker to close")
        assert (app.requester_key, app.sandboxed) == (MAIN, True)


async def test_enter_in_the_acting_as_filter_picks_the_highlighted_session(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        app.screen.query_one("#acting-filter").focus()
        await pilot.press(*"research", "enter")
        await until(pilot, lambda: app.screen is app.main_screen, "the picker to close")
        assert app.requester_key == "agent:research:main" and not app.sandboxed


async def test_a_session_its_agent_sandboxes_shows_the_switch_on_and_locked(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        modal = app.screen
        switch = modal.query_one("#acting-sandboxed")
        # It opens on the operator (no session chosen yet): never sandboxed, the switch locked off.
        assert highlighted_id(modal) == OPERATOR and switch.value is False and switch.disabled
        modal.query_one("#acting-filter").value = "helper"
        await until(pilot, lambda: highlighted_id(modal) == "agent:helper:main" and switch.disabled, "helper")
        assert switch.value is True
        modal.query_one("#acting-options").highlighted = 1
        await until(pilot, lambda: highlighted_id(modal) == MAIN and not switch.disabled, "main again")
        assert switch.value is False  # the user's own choice: off


def palette_entries(app):
    options = app.screen.query_one(CommandList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_the_palette_lists_the_commands_with_their_keys_as_remapped(tmp_path):
    app = demo_app(tmp_path / "s", {"ui": {"keybindings": {"tools": "x"}}})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await pilot.press(*"tool")
        await until(pilot, lambda: any("transcript  x" in e for e in palette_entries(app)), "the tools command")
        assert any(e.startswith("Show or hide tool calls") and e.endswith("  x") for e in palette_entries(app))
        await pilot.press(*["backspace"] * 4, *"filter sessions")
        await until(pilot, lambda: any(e.endswith("  /") for e in palette_entries(app)), "the filter command")
        await pilot.press("enter")
        await until(pilot, lambda: app.focused is not None and app.focused.id == "filter", "the filter to focus")


async def test_help_says_how_to_sort_filter_by_kind_and_activity_what_esc_does_and_what_sends(tmp_path):
    app = demo_app(tmp_path / "s", {"ui": {"keybindings": {"sort_reverse": "R"}}})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        console = Console(width=300, record=True, file=io.StringIO())
        console.print(app.screen.table)
        plain = " ".join(console.export_text().split())
        for group in ("Navigate", "Filter and sort", "Transcript", "Send", "Spawn", "App"):
            assert group in plain
        for words in (
            "< sort by the previous column",
            "> sort by the next column",
            "R reverse the sort",
            "Kinds toggle a kind",
            "Active only the sessions updated",
            "esc back: leaves the composer",
            "in the filter input it clears the filter",
            "in the spawn form it goes to the runs list, on the runs list it closes the panel",
            "enter in the message: send it (one line; there is no newline); in the wait: the same",
            "^s / ^j send the message",
        ):
            assert words in plain, words


async def test_a_run_chosen_in_the_spawn_panel_opens_its_childs_transcript(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        runs = app.main_screen.query_one("#spawn-runs")
        await until(pilot, lambda: runs.row_count >= 1, "the demo's child in the runs list")
        runs.focus()
        await pilot.press("enter")
        await until(pilot, lambda: app.main_screen.query_one("#side").current == "transcript", "the transcript")
        await rested(pilot)
        child = app.main_screen.query_one("#transcript").key
        assert child.startswith("agent:main:subagent:") and shown(app) == (child, child, child)


async def test_after_acting_as_another_session_cursor_transcript_and_target_agree(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        app.sandboxed = True  # main sandboxed sees only the sessions it spawned: dev leaves the table
        app.main_screen.requester_changed()
        table = app.main_screen.query_one("#sessions")
        await until(pilot, lambda: DEV not in table.rows_by_key, "the sandboxed view of the table")
        await rested(pilot)
        key = table.current_key()
        assert key is not None and shown(app) == (key, key, key)
        assert text_of(app.main_screen.query_one("#composer-target")) == table.rows_by_key[key]["key"]
