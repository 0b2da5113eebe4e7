"""Pilot tests of the composer: its tab order, what sends, and what it says about a send."""

from ui_support import SIZE, demo_app, settle, text_of, until


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
