"""The live status on the dashboard (issue 31, part 1), with the frozen clock: the STATUS column in
words (a symbol when narrow), only the named rows refreshed, the header's counts, the `status:`
filter, a run becoming stuck by the board's one timer, and `done` cleared by opening the session."""

from __future__ import annotations

from scenes import DEV, FAMILY, demo_app, settle, until
from sessions_tui.engine.events import RunEnded, RunStarted
from sessions_tui.engine.store.tables.runs import RunRecord
from ui_support import text_of


def _start(app, key: str, run_id: str) -> None:
    now = app.engine.now()
    app.engine.store.runs.insert_run(
        RunRecord(run_id=run_id, session_key=key, status="running", created_at=now, started_at=now), {}
    )
    app.engine.events.publish(RunStarted(ts=now, run_id=run_id, session_key=key))


def _end(app, key: str, run_id: str, status: str = "ok") -> None:
    now = app.engine.now()
    app.engine.store.runs.update_run(run_id, status=status, error=None, started_at=now, ended_at=now)
    app.engine.events.publish(RunEnded(ts=now, run_id=run_id, session_key=key, status=status))  # type: ignore[arg-type]


def _status(app, key: str) -> str:
    return app.main_screen.query_one("#sessions").cell(key, "status").plain


async def test_a_run_shows_working_then_stuck_then_done_until_opened(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(160, 50)) as pilot:  # wide enough for the statuses in words
        await settle(pilot)
        screen = app.main_screen
        header, table = screen.query_one("#status-header"), screen.query_one("#sessions")
        opened = screen.query_one("#transcript").key
        key, other = [k for k in (DEV, FAMILY) if k != opened][0], [k for k in table.rows_by_key if k != DEV][0]
        assert text_of(screen.query_one("#col-status")).startswith("STATUS")
        assert "(all idle)" in text_of(header) and _status(app, key) == "·"  # idle: a dot, even in words
        other_line = table.lines_by_key[other]
        _start(app, key, "run-1")
        await until(pilot, lambda: _status(app, key) == "working", "working")
        assert "(1 working)" in text_of(header)
        assert table.lines_by_key[other] is other_line  # only the row it names is shown again
        app.engine.clock.advance(2 * 60_000)  # type: ignore[attr-defined]
        screen.board.recheck()  # the board's timer, at the frozen clock's moment
        await until(pilot, lambda: _status(app, key) == "stuck", "stuck")
        assert "(1 stuck)" in text_of(header)

        await pilot.press("slash")
        await pilot.press(*"status:stuck")
        await until(pilot, lambda: list(table.rows_by_key) == [key], "only the stuck session listed")
        await pilot.press("escape")
        await until(pilot, lambda: len(table.rows_by_key) > 1, "the filter cleared")
        table.focus()
        table.move_cursor(row=table.get_row_index(other))  # the filter opened it: another is on screen now
        await until(pilot, lambda: screen.query_one("#transcript").key == other, "another session opened")

        _end(app, key, "run-1")
        await until(pilot, lambda: _status(app, key) == "done", "done")
        assert "(1 done)" in text_of(header)
        table.move_cursor(row=table.get_row_index(key))
        await pilot.press("enter")
        await until(pilot, lambda: _status(app, key) == "·", "read once opened")
        assert "(all idle)" in text_of(header)
        assert key not in await app.backend.activity(app.main_screen.requester())  # the mark is stored


async def test_a_narrow_table_shows_the_status_as_a_symbol_and_failed_filters(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        assert text_of(screen.query_one("#col-status")).startswith("ST")
        _start(app, FAMILY, "run-family")
        app.engine.clock.advance(1000)  # type: ignore[attr-defined] # ends after the seen horizon (the store's start)
        _end(app, FAMILY, "run-family", "error")
        await until(pilot, lambda: _status(app, FAMILY) == "✗", "FAMILY failed, as a symbol")
        table = screen.query_one("#sessions")
        await pilot.press("slash")
        await pilot.press(*"status:done,failed")
        await until(pilot, lambda: list(table.rows_by_key) == [FAMILY], "only the failed session listed")
