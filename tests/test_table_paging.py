"""Paging the dashboard's table: `]` and `[` read the next and previous page by keyset, the count
comes after the page, and every page shows the rows the same page by position holds."""

from sessions_tui.tools.base import ToolCall
from sessions_tui.tools.browse import BrowseQuery, browse_sessions
from ui_support import SIZE, demo_app, ordered_keys, settle, text_of


async def test_pages_forward_and_back_show_the_pages_by_position(tmp_path):
    app = demo_app(tmp_path / "s")
    for i in range(241):
        app.engine.store.create(f"agent:main:discord:group:g{i:03}", {"updatedAt": 5_000 + i // 7})  # runs of ties
    async with app.run_test(size=SIZE) as pilot:
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
        await pilot.press("right_square_bracket")  # the last page: stays
        await settle(pilot)
        assert ordered_keys(app) == by_position[2]
        for page in (1, 0):
            await pilot.press("left_square_bracket")
            await settle(pilot)
            assert ordered_keys(app) == by_position[page]
        await pilot.press("left_square_bracket")  # the first page: stays
        await settle(pilot)
        assert ordered_keys(app) == by_position[0] and screen.page_offset == 0
