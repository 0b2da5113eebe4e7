"""Pilot tests of issue 28's keys: help, the footer and the palette from the same bindings (item 1,
17), table movement and search on `f` (10), the kind toggles' keys (11), numbered and highlighted
panes (12), the layout modes `+` / `_` (24); and that the README's key table lists every key help does."""

import io
import re
from pathlib import Path

import pytest
from rich.console import Console
from textual import events
from textual.binding import Binding
from textual.command import CommandList, CommandPalette
from textual.keys import _character_to_key
from textual.widgets._footer import FooterKey

from sessions_tui.ui.app import SessionsApp
from sessions_tui.ui.screens.main.help import WIDGETS, HelpScreen
from sessions_tui.ui.screens.main.main import MainScreen
from sessions_tui.ui.screens.main.main_keys import SECTION_OF
from ui_support import SIZE, demo_app, settle, until

README = Path(__file__).parents[2] / "README.md"


def described_bindings():
    """Every binding help must list: the main screen's, the app's and the focusable widgets' with a
    description."""
    owners = [MainScreen.BINDINGS, SessionsApp.BINDINGS, *(widget.BINDINGS for widget in WIDGETS)]
    return [b for bindings in owners for b in bindings if isinstance(b, Binding) and b.description]


async def help_text(pilot) -> str:
    await pilot.press("question_mark")
    await until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "help")
    console = Console(width=300, record=True, file=io.StringIO())
    console.print(pilot.app.screen.table)
    return console.export_text()


async def test_help_lists_every_binding_with_a_description_in_its_section(tmp_path):
    """Item 1: help is generated from the bindings, so `l`, `w`, `f`, `E`, `x` and the runs list's
    `x kill` / `e steer` are there, and no binding can be left out."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = await help_text(pilot)
        lines = [" ".join(line.split()) for line in text.splitlines()]
        for binding in described_bindings():
            assert binding.id in SECTION_OF, f"{binding.id}: no help section in main_keys.SECTION_OF"
            assert binding.id and "Other" not in lines
            words = binding.tooltip or binding.description
            assert any(words in line for line in lines), f"{binding.key} ({binding.id}) is not in help"
        for key, words in (
            ("l", "the send ledger"),
            ("w", "why: may"),
            ("f / ^f", "find: search"),
            ("E", "export the open"),
            ("x", "stop the open"),
            ("x", "kill the sub-agent"),
            ("e", "steer the running"),
            ("alt+g", "show or hide the group sessions"),
            ("3", "focus the transcript"),
        ):
            assert any(line.startswith(f"{key} {words}") for line in lines), (key, words)


def readme_table_keys() -> set[str]:
    """The keys of the README's key table (the dashboard's), as Textual names them."""
    section = README.read_text().split("## The dashboard", 1)[1].split("\n## ", 1)[0]
    table = section.split("| keys | |", 1)[1].split("\n\n", 1)[0]
    keys = set()
    for row in table.splitlines()[2:]:
        for token in re.findall(r"`([^`]+)`", row.split("|")[1]):
            keys.add({"esc": "escape"}.get(token, _character_to_key(token) if len(token) == 1 else token))
    return keys


def test_the_readme_key_table_lists_every_key_help_lists():
    """Item 1 (and the closing note): the README's table and help agree; every default key of a
    binding help lists is in the table."""
    listed = readme_table_keys()
    for binding in described_bindings():
        if binding.id:
            for key in binding.key.split(","):
                key = _character_to_key(key) if len(key) == 1 else key
                assert key in listed, f"{key} ({binding.id}) is missing from the README's key table"


async def test_j_k_g_capital_g_home_and_end_move_the_table_and_f_searches(tmp_path):
    """Item 10: the k9s / lazygit / htop movement keys on the table; `g` is no longer search, `f` is."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.main_screen.query_one("#sessions")
        last = table.row_count - 1
        await pilot.press("j", "j")
        assert table.cursor_row == 2
        await pilot.press("k")
        assert table.cursor_row == 1
        await pilot.press("G")
        assert table.cursor_row == last
        await pilot.press("g")
        assert table.cursor_row == 0 and app.screen is app.main_screen
        await pilot.press("end")
        assert table.cursor_row == last
        await pilot.press("home")
        assert table.cursor_row == 0
        await pilot.press("f")
        await until(pilot, lambda: type(app.screen).__name__ == "SearchScreen", "the Search view")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.main_screen, "back")
        await pilot.press("ctrl+f")
        await until(pilot, lambda: type(app.screen).__name__ == "SearchScreen", "the Search view on ctrl+f")


async def test_j_and_capital_g_move_the_runs_list_and_type_in_a_field(tmp_path):
    """Item 10: the same keys on the spawn runs list; in a field they are typed."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await pilot.press("g", "j")
        assert app.main_screen.query_one("#spawn-task").value == "gj"
        runs = app.main_screen.query_one("#spawn-runs")
        await until(pilot, lambda: runs.row_count >= 1, "the runs")
        await pilot.press("alt+3")  # from the spawn form's task field, where 3 is typed
        assert app.focused is runs
        await pilot.press("G")
        assert runs.cursor_row == runs.row_count - 1


@pytest.mark.parametrize("where", ["table", "filter"])
async def test_alt_letters_toggle_the_kinds_from_the_table_and_the_filter(tmp_path, where):
    """Item 11: alt+m, alt+g, alt+c, alt+h, alt+n, alt+o turn the kind toggles over, also while the
    filter input has the focus (they type nothing there); a toast says what happened."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        if where == "filter":
            await pilot.press("slash")
        toggle = app.main_screen.query_one("#kind-group")
        await pilot.press("alt+g")
        assert toggle.value is False
        table = app.main_screen.query_one("#sessions")
        await until(pilot, lambda: all(r["kind"] != "group" for r in table.rows_by_key.values()), "groups hidden")
        assert any("Group sessions hidden" in n.message for n in app._notifications)
        await pilot.press("alt+g", "alt+c")
        assert toggle.value is True and app.main_screen.query_one("#kind-cron").value is False
        if where == "filter":  # a terminal sends alt+g with its letter: not typed into the filter either
            app.post_message(events.Key("alt+h", "h"))
            await until(pilot, lambda: app.main_screen.query_one("#kind-hook").value is False, "hooks hidden")
            assert app.main_screen.query_one("#filter").value == ""


def border_colour(widget):
    return widget.styles.border_top[1]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_panes_are_numbered_jump_on_their_number_and_the_focused_one_is_highlighted(tmp_path, size):
    """Item 12: `1`-`4` focus the filters, the sessions, the transcript (the runs list while the spawn
    panel is open) and the composer; each title has its number; the focused pane's border takes the
    accent colour; the runs list's `x kill  e steer` are in the footer at every width."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.main_screen
        table_column, side, composer = (screen.query_one(s) for s in ("#table-column", "#side", "#composer"))
        assert (table_column.border_title, side.border_title, composer.border_title) == (
            "[2] Sessions",
            "[3] Transcript",
            "[4] Message",
        )
        accent = border_colour(table_column)
        assert border_colour(side) != accent
        for number, focused_id in (("4", "message"), ("alt+1", "filter"), ("alt+2", "sessions"), ("3", "messages")):
            await pilot.press(number)  # a digit in a field is typed: alt+digit from there
            assert app.focused.id == focused_id, number
        await pilot.press("1")
        assert app.focused.id == "filter"
        await pilot.press("alt+4")
        await settle(pilot)
        assert border_colour(composer) == accent and border_colour(table_column) != accent
        await pilot.press("escape", "s", "alt+3")
        await settle(pilot)
        assert app.focused.id == "spawn-runs" and side.border_title == "[3] Spawn"
        words = [(key.key_display, key.description) for key in screen.query(FooterKey)]
        assert ("x", "kill") in words and ("e", "steer") in words


async def test_the_palette_lists_no_textual_keys_maximize_screenshot_or_second_quit(tmp_path):
    """Item 17: of Textual's own palette commands only the theme stays; Quit is listed once."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        options = app.screen.query_one(CommandList)
        await until(pilot, lambda: options.option_count > 10, "the commands")
        await settle(pilot)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        titles = [prompt.split("  ")[0].strip() for prompt in prompts]
        assert not {"Keys", "Maximize", "Screenshot"} & set(titles)
        assert sum(title.lower().startswith("quit") for title in titles) == 1
        assert any(title.startswith("Change theme") for title in titles)


async def test_plus_gives_the_transcript_more_lines_at_80x24_and_underscore_takes_them_back(tmp_path):
    """Item 24: `+` the side pane large, then the whole body; `_` back, step by step."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        side, table = app.main_screen.query_one("#side"), app.main_screen.query_one("#table-column")
        normal = side.region.height
        await pilot.press("plus")
        await settle(pilot)
        large = side.region.height
        assert large >= normal + 3 and table.display
        await pilot.press("plus")
        await settle(pilot)
        assert side.region.height > large and not table.region.height
        assert app.focused.id == "messages"  # the table it had is out of sight
        await pilot.press("underscore", "underscore")
        await settle(pilot)
        assert side.region.height == normal
