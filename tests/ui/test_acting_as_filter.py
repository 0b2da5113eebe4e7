"""The act-as picker filters as fzf and k9s do (issue 28 item 14): it opens with the filter focused,
typing narrows the list at once, ↑↓ move the highlight from the filter, enter picks, esc cancels,
and what is typed while the list has focus goes to the filter."""

from __future__ import annotations

from sessions_tui.ui.screens.dialogs.acting_as import OPERATOR
from ui_support import SIZE, demo_app, settle, until

MAIN = "agent:main:main"
DEV = "agent:main:discord:group:dev"
RESEARCH = "agent:research:main"


def option_ids(modal) -> list[str]:
    options = modal.query_one("#acting-options")
    return [options.get_option_at_index(i).id for i in range(options.option_count)]


def highlighted_id(modal) -> str:
    options = modal.query_one("#acting-options")
    return options.get_option_at_index(options.highlighted).id


async def test_item_14_typing_in_the_picker_narrows_the_list_arrows_move_and_enter_picks(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        modal = app.screen
        assert app.focused is modal.query_one("#acting-filter")  # typing goes to the filter at once
        every = option_ids(modal)
        assert DEV in every and RESEARCH in every
        await pilot.press(*"research")
        await until(pilot, lambda: DEV not in option_ids(modal), "the list narrowed")
        narrowed = option_ids(modal)
        assert narrowed[:2] == [OPERATOR, MAIN] and RESEARCH in narrowed and len(narrowed) < len(every)
        assert modal.query_one("#acting-filter").value == "research"
        first = highlighted_id(modal)
        assert first == narrowed[2]  # the first match, the operator and main heading the list
        await pilot.press("up")  # the arrows move the list while the filter keeps the focus
        await settle(pilot)
        assert highlighted_id(modal) == MAIN and app.focused is modal.query_one("#acting-filter")
        await pilot.press("down")
        await settle(pilot)
        assert highlighted_id(modal) == first
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is app.main_screen, "the picker to close")
        assert app.requester_key == first


async def test_item_14_keys_typed_on_the_picker_list_go_to_the_filter_and_esc_cancels(tmp_path):
    app = demo_app(tmp_path / "s", acting_as=DEV)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        modal = app.screen
        modal.query_one("#acting-options").focus()
        await settle(pilot)
        await pilot.press(*"research")  # `r`, `e`, `s`… are no keys of the list: they filter
        field = modal.query_one("#acting-filter")
        await until(pilot, lambda: DEV not in option_ids(modal), "the list narrowed")
        assert field.value == "research" and app.focused is field
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.main_screen, "the picker to close")
        assert app.requester_key == DEV  # nothing picked


async def test_the_operator_heads_the_picker_and_picking_it_acts_as_no_session(tmp_path):
    """Once a session is chosen, the picker's `operator` row takes the dashboard back to acting as
    no session: sends as main, operations reaching every session (`operator()` is None)."""
    app = demo_app(tmp_path / "s", acting_as=DEV)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.operator() is not None and app.operator().key == DEV
        await pilot.press("a")
        await settle(pilot)
        modal = app.screen
        assert option_ids(modal)[0] == OPERATOR and highlighted_id(modal) == DEV
        assert "As the operator" not in str(modal.query_one("#acting-describe").render())
        await pilot.press(*"operator")
        await until(pilot, lambda: highlighted_id(modal) == OPERATOR, "the operator row")
        assert "As the operator: sends go in as main" in str(modal.query_one("#acting-describe").render())
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is app.main_screen, "the picker to close")
        assert (app.requester_key, app.sandboxed, app.operator()) == (MAIN, False, None)


async def test_typing_main_picks_main_not_the_first_other_session_with_main_in_its_key(tmp_path):
    """Main heads the list always; a search it matches highlights it (typing `main`, enter, acts as
    main), one it does not match highlights the first match below it."""
    app = demo_app(tmp_path / "s", acting_as=RESEARCH)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a", *"main")
        modal = app.screen
        await until(pilot, lambda: DEV in option_ids(modal), "the matches")
        assert highlighted_id(modal) == MAIN
        await pilot.press("ctrl+u", *"dev")
        await until(pilot, lambda: option_ids(modal) == [OPERATOR, MAIN, DEV], "the one match")
        assert highlighted_id(modal) == DEV
        await pilot.press("ctrl+u", *"main")
        await until(pilot, lambda: len(option_ids(modal)) > 3 and highlighted_id(modal) == MAIN, "main highlighted")
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is app.main_screen, "the picker closed")
        assert app.requester_key == MAIN
