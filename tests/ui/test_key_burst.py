"""Issue 28 item 7: keys that arrive in one burst (a paste, a terminal macro: `abc`, tab, `xyz`)
land in the field each was meant for: a focus key applies before the next key is handled.

`pilot.press` waits for the app to idle after every key, which hides the defect; `burst` hands
the driver every key at once, as a terminal does with a paste or a macro."""

from __future__ import annotations

from typing import Any

from textual import events
from textual.worker import WorkerCancelled

from ui_support import demo_app, settle, text_of, until

CHARACTERS = {"tab": None, "shift+tab": None, "ctrl+s": None}


async def burst(pilot: Any, *keys: str) -> None:
    """Every key into the app's queue before it reads the first, then wait until all are handled."""
    driver = pilot.app._driver
    for key in keys:
        event = events.Key(key, CHARACTERS.get(key, key))
        event.set_sender(pilot.app)
        driver.send_message(event)
    for _ in range(3):
        try:
            await settle(pilot)
            return
        except WorkerCancelled:  # a worker a newer one of its exclusive group took over: settle again
            continue
    await settle(pilot)


async def test_a_burst_fills_the_spawn_form_field_by_field(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        screen = app.main_screen
        assert app.focused is screen.query_one("#spawn-task")
        await burst(pilot, "a", "b", "c", "tab", "x", "y", "z")
        assert screen.query_one("#spawn-task").value == "abc"
        assert screen.query_one("#spawn-label").value == "xyz"
        await burst(pilot, "shift+tab", "d")
        assert screen.query_one("#spawn-task").value == "d"  # back in Task (its text selected on focus)
        assert screen.query_one("#spawn-label").value == "xyz"


async def test_the_same_keys_pressed_one_by_one_land_the_same(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await pilot.press("a", "b", "c", "tab", "x", "y", "z")
        screen = app.main_screen
        assert (screen.query_one("#spawn-task").value, screen.query_one("#spawn-label").value) == ("abc", "xyz")


async def test_a_burst_follows_the_composers_own_tab_order(tmp_path):
    """The composer moves tab message → wait → Send itself (its own binding): at once, too."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        screen = app.main_screen
        assert app.focused is screen.query_one("#message")
        await burst(pilot, "h", "i", "tab", "4", "5")
        assert screen.query_one("#message").value == "hi"
        assert screen.query_one("#timeout").value == "45"
        await burst(pilot, "shift+tab", "!")
        assert app.focused is screen.query_one("#message")
        assert screen.query_one("#timeout").value == "45"
        assert screen.query_one("#message").value == "!"  # typed into the message (selected on focus)


async def test_ctrl_s_at_the_end_of_a_burst_spawns_and_sends_what_was_typed_before_it(tmp_path):
    """ctrl+s (a priority key, run as it arrives) acts once the field has taken the keys ahead of
    it: the spawn form spawned "A sub-agent needs a task." with the task typed in the same burst."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        screen = app.main_screen
        await burst(pilot, *"hello", "ctrl+s")
        outcome = screen.query_one("#spawn-outcome")
        await until(pilot, lambda: text_of(outcome).startswith("accepted · "), "the spawn accepted")
        await pilot.press("escape", "escape", "enter")  # the panel closed, the composer on main
        assert app.focused is screen.query_one("#message")
        await burst(pilot, *"hi", "ctrl+s")
        sent = screen.query_one("#outcome")
        await until(pilot, lambda: text_of(sent).startswith("ok · replied"), "the reply")
        assert "Received from agent:main:main: hi." in text_of(sent)
