"""The session table's columns as a user reads them (issue 28): the sort said even when its column
is out of sight (item 2), columns as wide as their content with the width going where values are
cut and no empty row above the table (item 24)."""

from scenes import DEV, FAMILY
from sessions_tui.ui.widgets.session_table import COLUMNS
from sessions_tui.ui.widgets.table_line import KEY_MAX, STATUS_WORDS, content_widths, fit_columns
from ui_support import demo_app, settle, text_of, until

SUBAGENT = "agent:main:subagent:f2bb05f5-882d-547d-b506-da8f344b4fcc"  # the demo's longest key


async def test_a_sort_by_a_hidden_column_is_said_and_reversed_in_sight(tmp_path):
    """Item 2: at 80x24 CHANNEL is dropped; `<` onto it says `sorted by channel ▲` under the table,
    and `I` flips the arrow there (no ▲/▼ can show in the column titles)."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        table, info = screen.query_one("#sessions"), screen.query_one("#page-info")
        assert "sorted by updated ▼" in text_of(info)
        for _ in range(len(COLUMNS)):
            if screen.query_state.order_by == "channel":
                break
            await pilot.press("less_than_sign")
            await settle(pilot)
        assert screen.query_state.order_by == "channel"
        assert "channel" not in table.widths and not screen.query_one("#col-channel").display
        assert "sorted by channel ▲" in text_of(info)
        assert not any("▲" in text_of(screen.query_one(f"#col-{c.key}")) for c in COLUMNS if c.key in table.widths)
        await pilot.press("I")
        await settle(pilot)
        assert screen.query_state.descending
        assert "sorted by channel ▼" in text_of(info) and "▲" not in text_of(info)
        shown = text_of(info)
        assert len(shown.rstrip()) <= info.size.width  # whole on its line


async def test_at_200_columns_the_width_goes_to_the_cut_columns(tmp_path):
    """Item 24: at 200x50 KEY and LABEL show their longest values whole (the demo's 56-cell
    sub-agent key, `Sandboxed helper`), SEND is as wide as its widest value, and the column titles
    sit right under the filters and the table's titled border (no empty row between)."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        table = screen.query_one("#sessions")
        assert table.widths["key"] == len(SUBAGENT) > KEY_MAX
        assert table.widths["label"] == len("Sandboxed helper")
        assert table.widths["send"] == len("allow")
        assert SUBAGENT in table.get_cell(SUBAGENT, "line").plain
        assert "Sandboxed helper" in table.get_cell("agent:helper:main", "line").plain
        assert "…" not in "".join(table.get_cell(k, "line").plain for k in table.rows_by_key)
        assert table.widths["status"] == STATUS_WORDS  # the status in words came first
        assert set(table.widths) >= {c.key for c in COLUMNS} - {"activity"}  # the sparkline: what is left
        for column in COLUMNS:  # each title over its column
            if column.key in table.widths:
                assert screen.query_one(f"#col-{column.key}").region.width >= table.widths[column.key]
        filters, header = screen.query_one("#filter-bar").region, screen.query_one("#table-header").region
        pane = screen.query_one("#table-column")
        assert pane.region.y == filters.bottom  # no empty row above the table: its titled border
        assert header.y == pane.region.y + 1 and pane.border_title == "[2] Sessions"
        # A live change that makes a value longer widens its column, KEY keeping KEY_MAX at least.
        app.engine.store.sessions.patch(DEV, {"label": "a much longer label for the dev group"})
        screen._changed(DEV)
        await until(pilot, lambda: table.widths["label"] > len("Sandboxed helper"), "LABEL to widen")
        assert table.widths["key"] >= KEY_MAX and "a much longer label for" in table.get_cell(DEV, "line").plain
        assert table.virtual_size.width <= table.size.width


async def test_narrow_columns_fit_their_content_before_dropping(tmp_path):
    """Columns fit their content (SEND 5 for `allow`, `deny`): at 80 columns KEY gets what they
    do not need; a `deny*` override widens SEND to show its mark."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.main_screen.query_one("#sessions")
        assert table.widths["send"] == 5
        assert table.widths["key"] > 24
    rows = [{"key": FAMILY, "_key": FAMILY, "_send": "deny", "sendPolicy": "deny", "channel": "whatsapp"}]
    content = content_widths(rows)
    assert content["send"] == len("deny*") and content["key"] == len(FAMILY) + 2  # `⊘ ` before it
    assert fit_columns(200, content)["send"] == len("deny*")
    assert fit_columns(200) == fit_columns(200, None)  # no content: the defaults
