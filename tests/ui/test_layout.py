"""The dashboard's layout from 80x24 up: what stays on screen, what drops, what stacks."""

import pytest
from rich.text import Text
from textual.widgets import Footer

from scenes import DEV
from sessions_tui.engine.sessions.keys import SESSION_KINDS
from sessions_tui.ui.text import elide_middle, short_number
from sessions_tui.ui.widgets.session_table import COLUMNS, DROP_ORDER, cells, compose_line, fit_columns
from ui_support import demo_app, select, settle, text_of, until

SIZES = [(80, 24), (100, 30), (160, 48)]


def inside(widget, size):
    """The widget is shown, has room, and lies wholly on a screen of `size`."""
    region = widget.region
    width, height = size
    return (
        widget.display
        and region.width > 0
        and region.height > 0
        and region.x >= 0
        and region.y >= 0
        and region.right <= width
        and region.bottom <= height
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_header_keeps_live_and_elides_the_state_path(tmp_path, size):
    state = tmp_path / "a-state-directory-with-a-long-name" / "and-deeper-still" / "s"
    app = demo_app(state)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        header = app.main_screen.query_one("#status-header")
        shown = text_of(header)
        assert shown.rstrip().endswith("● live") and len(shown) <= size[0]
        assert "as main" in shown and "9 sessions" in shown
        assert str(state) not in shown and "…" in shown  # elided in the middle: both ends readable
        assert "/tmp" in shown and str(state)[-6:] in shown
        await pilot.press("p")
        await until(pilot, lambda: "⏸ paused" in text_of(header), "the header to say paused")
        assert len(text_of(header)) <= size[0]


def test_elide_middle_keeps_both_ends():
    assert elide_middle("/tmp/abcdefghij/klmnop", 10) == "/tmp…lmnop"
    assert elide_middle("short", 10) == "short"
    assert len(elide_middle("x" * 100, 12)) == 12


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_filter_is_on_screen(tmp_path, size):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.main_screen
        for kind in SESSION_KINDS:
            toggle = screen.query_one(f"#kind-{kind}")
            assert inside(toggle, size), kind
            assert toggle.region.width >= len(kind) + 2
        for selector in ("#filter", "#active"):
            assert inside(screen.query_one(selector), size), selector
        box = screen.query_one("#filter")
        assert box.region.width >= len(box.placeholder) + 2  # the hint is read whole


async def test_kind_toggles_look_on_or_off(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        on, off = app.main_screen.query_one("#kind-main"), app.main_screen.query_one("#kind-hook")
        off.value = False
        await settle(pilot)
        assert str(on.render()) == "● main" and str(off.render()) == "○ hook"
        on_style, off_style = on.rich_style, off.rich_style
        assert on_style.bold and not on_style.strike
        assert off_style.strike and not off_style.bold
        assert on_style.bgcolor != off_style.bgcolor  # a filled chip against none


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_table_fits_without_scrolling_sideways(tmp_path, size):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = app.main_screen
        table = screen.query_one("#sessions")
        assert table.virtual_size.width <= table.size.width
        assert table.virtual_size.width >= table.size.width - 12  # not much room wasted either
        assert "key" in table.widths and "status" in table.widths
        dropped = [c.key for c in COLUMNS if c.key not in table.widths]
        assert dropped == [c.key for c in COLUMNS if c.key in DROP_ORDER[: len(dropped)]]  # by priority
        for column in COLUMNS:
            title = screen.query_one(f"#col-{column.key}")
            assert title.display == (column.key in table.widths), column.key
            if column.key in table.widths:
                assert inside(title, size), column.key
        footer = screen.query_one(Footer)
        assert footer.region.width == size[0] and footer.region.bottom == size[1]


def test_columns_drop_the_sparkline_then_model_first_and_keep_key_and_status_in_words_first():
    assert set(fit_columns(200)) == {c.key for c in COLUMNS}
    assert fit_columns(111)["activity"] == 8 and fit_columns(106)["activity"] == 3  # the room left, 3 at least
    assert set(fit_columns(105)) == {c.key for c in COLUMNS} - {"activity"}
    assert set(fit_columns(96)) == {c.key for c in COLUMNS} - {"activity"}
    # The status in words takes the first 5 cells to spare, before a longer key.
    assert fit_columns(100)["status"] == 2 and fit_columns(100)["key"] == 28
    assert fit_columns(101)["status"] == 7 and fit_columns(101)["key"] == 24
    long_key = {"key": 56}  # the sparkline only in the room left once the key is whole
    assert "activity" not in fit_columns(129, long_key) and fit_columns(129, long_key)["key"] == 56 - 4
    assert fit_columns(138, long_key)["key"] == 56 and fit_columns(138, long_key)["activity"] == 3
    assert fit_columns(143, long_key)["activity"] == 8
    spark = {"key": "k", "_key": "k", "kind": "main"}
    assert compose_line(cells(spark, 0, activity="▁▂▃▄▅▆▇█"), fit_columns(138, long_key)).plain.count("▆▇█") == 1
    assert "model" not in fit_columns(95) and "label" in fit_columns(95)
    narrowest = fit_columns(30)
    assert list(narrowest) == ["key", "status"] and narrowest["key"] >= 24


async def test_the_send_column_shows_the_override_mark(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        await pilot.press("enter", *"/send on", "enter")
        table = app.main_screen.query_one("#sessions")
        await until(pilot, lambda: str(table.cell(DEV, "send")) == "allow*", "the override to show")
        assert "allow*" in table.get_cell(DEV, "line").plain  # not `allo…`
    row = {"key": "k", "_key": "k", "kind": "main", "sendPolicy": "allow", "_send": "allow"}
    assert compose_line(cells(row, 0), fit_columns(200)).plain.rstrip().endswith("allow*")


async def test_narrow_puts_the_transcript_below_the_table_and_wide_beside_it(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        table, side = screen.query_one("#table-column").region, screen.query_one("#side").region
        assert side.y >= table.bottom and side.width == table.width == 80
        assert screen.query_one("#sessions").region.height >= 5  # room for rows
        assert screen.query_one("#messages").region.height >= 3
        await pilot.resize_terminal(100, 30)
        await until(pilot, lambda: screen.query_one("#side").region.x > 0, "the side panel to go beside the table")
        table, side = screen.query_one("#table-column").region, screen.query_one("#side").region
        assert side.x >= table.right and side.y == table.y


async def test_resizing_relays_the_table_out(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        table = screen.query_one("#sessions")
        assert "model" in table.widths
        await pilot.press("down")
        await settle(pilot)
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: "model" not in table.widths, "the table to drop MODEL")
        await settle(pilot)
        assert table.virtual_size.width <= table.size.width
        assert screen.query_one("#col-model").display is False
        assert isinstance(table.get_cell(DEV, "line"), Text)
        assert "discord" not in table.get_cell(DEV, "line").plain.split("  ", 1)[1]  # CHANNEL went too
        assert table.current_key() == DEV and screen.query_one("#transcript").key == DEV  # the cursor stayed
        await pilot.resize_terminal(160, 48)
        await until(pilot, lambda: "model" in table.widths, "the table to show MODEL again")
        assert screen.query_one("#col-model").display is True


@pytest.mark.parametrize(("key", "selector"), [("question_mark", "#help"), ("a", "#acting-as")])
async def test_the_modals_fit_a_small_terminal(tmp_path, key, selector):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press(key)
        await until(pilot, lambda: app.screen.query(selector), f"{selector} to open")
        await settle(pilot)
        assert inside(app.screen.query_one(selector), (80, 24))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_transcript_title_is_one_line_with_its_count_whole(tmp_path, size):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        title = app.main_screen.query_one("#transcript-title")
        await until(pilot, lambda: "message" in text_of(title), "the title")
        shown = text_of(title)
        assert title.region.height == 1 and "\n" not in shown.strip()
        assert shown.rstrip().endswith("messages")
        assert DEV in shown or ("…" in shown and shown.startswith("agent:main:") and "dev" in shown)
        assert title.tooltip == DEV


def test_counts_fit_five_cells_at_any_size():
    cases = {
        999: "999",
        1000: "1.0k",
        9949: "9.9k",
        9950: "10k",
        123_456: "123k",
        999_499: "999k",
        999_950: "1.0m",
        12_345_678: "12m",
        2_000_000_000: "2.0b",
        10**18: ">999t",
    }
    assert {n: short_number(n) for n in cases} == cases
    assert short_number(0) == short_number(None) == ""
    assert all(len(short_number(10**e + d)) <= 5 for e in range(20) for d in (-1, 0, 1))


async def test_the_header_says_when_a_gateway_link_is_not_up(tmp_path):
    from sessions_tui.backend.values.vocabulary import LinkChanged
    from sessions_tui.ui.messages import EngineEventMessage

    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        header = app.main_screen.query_one("#status-header")
        line = "gateway ws://h:1 asks its owner to approve this device: run `openclaw devices approve r1` …"
        app.main_screen.post_message(EngineEventMessage(LinkChanged(location="ws://h:1", state="pairing", line=line)))
        await until(pilot, lambda: "⚠ pairing" in text_of(header), "the header to say pairing")
        assert "● live" not in text_of(header) and line in str(header.tooltip)
        assert any("openclaw devices approve r1" in n.message for n in app._notifications)
        app.main_screen.post_message(EngineEventMessage(LinkChanged(location="ws://h:1", state="connected")))
        await until(pilot, lambda: text_of(header).rstrip().endswith("● live"), "the header to say live again")


@pytest.mark.parametrize("width", [80, 160])
async def test_search_results_give_the_snippet_the_width(tmp_path, width):
    """The Search view's results at 80 columns drop `when` and narrow the session, so the
    snippet (what was found) keeps its room; wide, every column shows and the snippet takes the rest."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(width, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f", *"deploy", "enter")
        await until(pilot, lambda: type(app.screen).__name__ == "SearchScreen", "the Search view")
        table = app.screen.query_one("#search-table")
        await until(pilot, lambda: table.row_count > 0, "the hits")
        titles = [str(column.label) for column in table.columns.values()]
        widths = {str(column.label): column.width for column in table.columns.values()}
        if width == 80:
            assert titles == ["session", "#", "role", "snippet"]
            assert widths["snippet"] >= 28
        else:
            assert titles == ["session", "#", "role", "when", "snippet"]
            assert widths["snippet"] >= 70
        cells = 2 * len(titles) + sum(widths.values())
        assert cells <= width - 2  # no column runs off the screen
