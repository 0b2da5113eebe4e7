"""Pilot tests of the keys and focus: the cursor, the transcript and the composer agree; esc, enter
and ctrl+s act on the focused part; sorting from the keyboard; the footer, help and palette."""

from ui_support import SIZE, demo_app, select, settle, text_of, until

DEV = "agent:main:discord:group:dev"
MAIN = "agent:main:main"


def shown(app):
    """The session under the table's cursor, in the transcript and in the composer."""
    screen = app.main_screen
    return (screen.query_one("#sessions").current_key(), screen.query_one("#transcript").key,
            screen.query_one("#composer").key)


async def rested(pilot):
    """Wait for the cursor's session to have opened (it opens once the cursor rests)."""
    await until(pilot, lambda: not pilot.app.main_screen.opening, "the highlighted session to open")
    await settle(pilot)


def user_texts(app, key):
    return [m["content"] for m in app.engine.store.history(key).messages if m.get("role") == "user"]


async def test_cursor_transcript_and_send_target_agree_after_a_kind_toggle_and_esc(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        await pilot.click("#kind-cron")
        await until(pilot, lambda: "cron:nightly-report" not in app.main_screen.query_one("#sessions").rows_by_key
                    and "agent:main:cron:nightly-report" not in app.main_screen.query_one("#sessions").rows_by_key,
                    "the cron session to leave the table")
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
