"""Paging the dashboard's table: `]` and `[` read the next and previous page by keyset, the count
comes after the page, and every page shows the rows the same page by position holds."""

from sessions_tui.tools.calling.base import ToolCall
from sessions_tui.tools.reading.browse import BrowseQuery, browse_sessions
from sessions_tui.ui.messages import StoreChanged
from ui_support import SIZE, demo_app, ordered_keys, settle, text_of, until


async def test_pages_forward_and_back_show_the_pages_by_position(tmp_path):
    app = demo_app(tmp_path / "s")
    for i in range(241):
        app.engine.store.sessions.create(
            f"agent:main:discord:group:g{i:03}", {"updatedAt": 5_000 + i // 7}
        )  # runs of ties
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = app.main_screen
        total = screen.total
        assert total == 250 and screen.counted
        by_position = [
            [r["key"] for r in browse_sessions(ToolCall(engine=app.engine), BrowseQuery(), offset=o, limit=100).rows]
            for o in (0, 100, 200)
        ]
        assert ordered_keys(app) == by_position[0]
        for page, first in ((1, 101), (2, 201)):
            await pilot.press("right_square_bracket")
            await settle(pilot)
            assert ordered_keys(app) == by_position[page]
            last = min(first + 99, total)
            assert f"rows {first}–{last} of {total}" in text_of(screen.query_one("#page-info"))
        await pilot.press("right_square_bracket")  # the last page: stays, and says so
        await settle(pilot)
        assert ordered_keys(app) == by_position[2]
        assert toasts(app)[-1] == "No next page: rows 201–250 of 250 are the last."
        for page in (1, 0):
            await pilot.press("left_square_bracket")
            await settle(pilot)
            assert ordered_keys(app) == by_position[page]
        await pilot.press("left_square_bracket")  # the first page: stays, and says so
        await settle(pilot)
        assert ordered_keys(app) == by_position[0] and screen.page_offset == 0
        assert toasts(app)[-1] == "No previous page: this is the first."


def toasts(app):
    return [n.message for n in app._notifications]


async def test_paging_keys_on_the_only_page_say_why_nothing_turned(tmp_path):
    """Issue 28 item 25: `]` and `[` on the only page answer (a toast naming the count), with the
    count's word as the count wants it (item 9)."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = app.main_screen
        await pilot.press("right_square_bracket")
        await until(pilot, lambda: toasts(app), "a toast")
        assert toasts(app)[-1] == "No next page: all 9 sessions shown."
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert toasts(app)[-1] == "No previous page: all 9 sessions shown."
        assert screen.page_offset == 0
        screen.query_one("#filter").value = "nightly"
        await until(pilot, lambda: screen.counted and screen.total == 1, "the filter's count")
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert toasts(app)[-1] == "No next page: the one session is shown."


async def test_another_process_writing_refreshes_the_shown_page_by_keyset_and_counts_after(tmp_path):
    app = demo_app(tmp_path / "s")
    for i in range(241):
        app.engine.store.sessions.create(f"agent:main:discord:group:g{i:03}", {"updatedAt": 5_000 + i // 7})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.main_screen
        await pilot.press("right_square_bracket")
        await settle(pilot)
        shown = ordered_keys(app)
        table = screen.query_one("#sessions")
        changed = next(k for k in table.rows_by_key if table.rows_by_key[k]["key"] == shown[10])
        # Another process: a label on the shown page changes, a session is added past its end.
        app.engine.store.sessions.patch(changed, {"label": "renamed elsewhere"})
        app.engine.store.sessions.create("agent:main:discord:group:oldest", {"updatedAt": 1})
        reads = []
        browse = app.backend.browse

        async def noting(*args, **kwargs):  # type: ignore[no-untyped-def]
            reads.append(kwargs)
            return await browse(*args, **kwargs)

        app.backend.browse = noting
        screen.post_message(StoreChanged())
        await settle(pilot)
        await until(pilot, lambda: screen.counted and screen.total == 251, "the count after the refresh")
        assert reads and all(r["after"] is not None and r["count"] is False for r in reads)  # keyset, not counted
        assert ordered_keys(app) == shown
        assert str(table.cell(changed, "label")) == "renamed elsewhere"
        assert "rows 101–200 of 251" in text_of(screen.query_one("#page-info"))
