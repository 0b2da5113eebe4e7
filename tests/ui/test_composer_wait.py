"""The composer's wait (issue 28 item 16): set for one send, not carried into sends to other sessions."""

from scenes import DEV, FAMILY
from ui_support import SIZE, demo_app, select, settle, until


async def test_item_16_a_wait_changed_goes_back_to_the_default_in_another_session(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        wait = app.main_screen.query_one("#timeout")
        await select(pilot, DEV)
        assert wait.value == "30"
        wait.value = "0"  # this send: do not wait
        app.main_screen.query_one("#message").value = "fire and forget"
        await pilot.press("ctrl+s")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: str(outcome.render()).startswith("accepted"), "sent without waiting")
        await select(pilot, FAMILY)
        assert wait.value == "30"  # another session: the default again, not the last send's 0
        await select(pilot, DEV)
        assert wait.value == "30"


async def test_item_16_ui_send_wait_is_the_default_every_session_starts_with(tmp_path):
    app = demo_app(tmp_path / "s", config={"ui": {"sendWait": 5}})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        wait = app.main_screen.query_one("#timeout")
        await select(pilot, DEV)
        assert wait.value == "5"
        wait.value = "90"
        await select(pilot, FAMILY)
        assert wait.value == "5"
        sent = []
        call_tool = app.backend.call_tool

        async def recording(name, arguments, requester):
            sent.append(arguments)
            return await call_tool(name, arguments, requester)

        app.backend.call_tool = recording
        app.main_screen.query_one("#message").value = "hello"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: bool(sent), "the send")
        assert sent[0]["sessionKey"] == FAMILY and sent[0]["timeoutSeconds"] == 5


async def test_enter_in_the_wait_sends_with_that_wait(tmp_path):
    """Message typed, tab to the wait, a wait typed, enter: sent with it (enter there did nothing)."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        sent = []
        call_tool = app.backend.call_tool

        async def recording(name, arguments, requester):
            if name == "sessions_send":
                sent.append(arguments)
            return await call_tool(name, arguments, requester)

        app.backend.call_tool = recording
        app.main_screen.query_one("#message").focus()
        await pilot.press(*"hello", "tab")
        assert app.focused is app.main_screen.query_one("#timeout")
        app.focused.value = "0"
        await pilot.press("enter")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: str(outcome.render()).startswith("accepted"), "sent")
        assert [a["message"] for a in sent] == ["hello"] and sent[0]["timeoutSeconds"] == 0
