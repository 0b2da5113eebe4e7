"""Why (`w`) and the deciding rule after a refusal, in the dashboard."""

from __future__ import annotations

from scenes import DEV, FAMILY
from sessions_tui.ui.screens.explain import ExplainScreen
from ui_support import SIZE, demo_app, select, send_from_composer, settle, text_of, until


async def test_w_explains_each_action_for_the_open_session(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, FAMILY)
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, ExplainScreen), "the why box")
        box = app.screen.query_one("#explain-text")
        await until(pilot, lambda: "send" in text_of(box), "the explanation")
        shown = text_of(box)
        lines = {line.split()[0]: line for line in shown.splitlines() if line.split()}
        assert "yes" in lines["list"] and "yes" in lines["read"]
        assert "no" in lines["send"] and "rule 1" in lines["send"]  # the demo's deny rule for WhatsApp groups
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ExplainScreen), "closed")


async def test_a_refused_send_says_its_deciding_rule(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await send_from_composer(pilot, FAMILY, "dinner at 8")
        await until(
            pilot,
            lambda: any(n.title == "Why refused" and "rule 1" in n.message for n in app._notifications),
            "the refusal's deciding rule as a toast",
        )


async def test_an_allowed_send_raises_no_why(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await send_from_composer(pilot, DEV, "status?")
        await settle(pilot)
        assert not any(n.title == "Why refused" for n in app._notifications)
