"""Pilot tests of the composer: its tab order, what sends, and what it says about a send."""

from ui_support import SIZE, demo_app, select, settle, text_of, until

DEV = "agent:main:discord:group:dev"


async def test_tab_goes_message_then_wait_then_send_then_out_of_the_composer(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.main_screen
        await pilot.press("enter")
        assert app.focused.id == "message"
        order = []
        for _ in range(3):
            await pilot.press("tab")
            order.append(app.focused.id)
        assert order[:2] == ["timeout", "send-button"]
        assert app.focused not in screen.query_one("#composer").query("*")
        screen.query_one("#message").focus()
        await pilot.press("shift+tab")
        assert app.focused not in screen.query_one("#composer").query("*")
        screen.query_one("#send-button").focus()
        await pilot.press("shift+tab", "shift+tab")
        assert app.focused.id == "message"


async def test_the_composer_says_that_enter_sends_one_line_and_enter_does(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        message = app.main_screen.query_one("#message")
        assert "enter sends (one line)" in message.placeholder
        assert "wait" in [text_of(label) for label in app.main_screen.query_one("#composer-head").query("Label")]
        await pilot.press("enter", *"hi", "enter")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: text_of(outcome).startswith("ok"), "the send's outcome")


async def test_a_reply_after_the_timeout_is_said_with_its_run_id(tmp_path):
    app = demo_app(tmp_path / "s", latency_ms=1500)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        app.main_screen.query_one("#timeout").value = "1"
        await pilot.press("enter", *"count the words in: one two", "ctrl+s")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: text_of(outcome).startswith("timeout"), "the timeout")
        run_id = app.main_screen.query_one("#composer").run_id
        await until(pilot, lambda: "reply arrived after the timeout" in text_of(outcome), "the late reply")
        assert text_of(outcome) == f"reply arrived after the timeout · run {run_id[:8]} · see the transcript"


async def test_a_late_reply_for_a_send_no_longer_shown_is_a_toast(tmp_path):
    app = demo_app(tmp_path / "s", latency_ms=4000)  # the run ends well after the move to another session
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        app.main_screen.query_one("#timeout").value = "1"
        await pilot.press("enter", *"count the words in: one two", "ctrl+s")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: text_of(outcome).startswith("timeout"), "the timeout")
        run_id = app.main_screen.query_one("#composer").run_id
        await pilot.press("escape", "down")  # the composer now shows another session
        await until(pilot, lambda: app.main_screen.query_one("#composer").key != DEV, "another session to open")
        await until(
            pilot,
            lambda: any("reply arrived after the timeout" in n.message for n in app._notifications),
            "the late reply's toast",
        )
        toast = next(n for n in app._notifications if "reply arrived after the timeout" in n.message)
        assert toast.message == f"{DEV}: reply arrived after the timeout · run {run_id[:8]} · see the transcript"
        assert text_of(outcome) == ""


async def test_an_idle_composer_takes_two_rows_and_grows_for_a_sends_news(tmp_path):
    """Head and message only until there is something to say: the outcome and the log rows were
    empty lines under the message (two of 24 rows at 80x24)."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        composer = app.main_screen.query_one("#composer")
        rows = composer.content_region.height
        assert rows == 2
        await pilot.press("enter", *"hi", "enter")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: text_of(outcome).startswith("ok"), "the send's outcome")
        await until(
            pilot, lambda: composer.content_region.height > rows and outcome.region.height >= 1, "the outcome's row"
        )


async def test_the_owners_send_command_answers_in_the_outcome(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        await pilot.press("enter", *"/send off", "enter")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: "Send policy set to off." in text_of(outcome), "the command's reply")
        table = app.main_screen.query_one("#sessions")
        await until(pilot, lambda: str(table.cell(DEV, "send")) == "deny*", "the override in the table")
