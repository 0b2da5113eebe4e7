"""`x` on the open session: a box asks first (y stops, n or esc leaves it), then the outcome is on
the composer's state line; a backend that cannot stop runs shows no `x` (footer, palette) and it
does nothing."""

from __future__ import annotations

from textual.command import CommandList, CommandPalette
from textual.widgets._footer import FooterKey

from scenes import DEV, demo_app, select, settle, until
from sessions_tui.backend.contract.types import Capability
from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.engine.runs.runs import RunRequest
from sessions_tui.ui.app import SessionsApp
from ui_support import SIZE, text_of


async def _running(pilot, app) -> str:
    run_id = app.engine.runs.start(RunRequest(session_key=DEV, message="work slowly"))
    await until(pilot, lambda: app.engine.runs.get(run_id).status == "running", "the turn running")
    return run_id


async def test_x_asks_then_stops_the_open_sessions_turn_and_says_so(tmp_path):
    app = demo_app(tmp_path / "s", latency_ms=60_000)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        run_id = await _running(pilot, app)
        await pilot.press("x")
        await until(pilot, lambda: type(app.screen).__name__ == "StopScreen", "the stop box")
        await pilot.press("n")  # leaves it running
        await until(pilot, lambda: app.screen is app.main_screen, "the box closed")
        assert app.engine.runs.get(run_id).status == "running"
        await pilot.press("x")
        await until(pilot, lambda: type(app.screen).__name__ == "StopScreen", "the stop box again")
        await pilot.press("y")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: text_of(outcome).startswith("stopped run"), "the outcome line")
        assert text_of(outcome) == f"stopped run {run_id[:8]}… in agent:main:discord:group:dev"
        assert app.engine.runs.get(run_id).status == "killed"
        await pilot.press("x")
        await until(pilot, lambda: type(app.screen).__name__ == "StopScreen", "the stop box, once more")
        await pilot.press("y")
        await until(pilot, lambda: text_of(outcome).startswith("no run"), "nothing running")
        assert text_of(outcome) == "no run in progress in agent:main:discord:group:dev"


class _CannotStop(LocalBackend):
    @property
    def capabilities(self) -> frozenset[Capability]:
        return super().capabilities - {Capability.ABORT}


async def test_without_the_capability_x_is_neither_shown_nor_active(tmp_path):
    staged = SessionsApp(_CannotStop(demo_app(tmp_path / "s").engine), steady=True)
    async with staged.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        assert "stop" not in [key.action for key in staged.main_screen.query(FooterKey)]
        assert "toggle_tools" in [key.action for key in staged.main_screen.query(FooterKey)]
        await pilot.press("x")
        await settle(pilot)
        assert staged.screen is staged.main_screen
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(staged.screen, CommandPalette), "the palette")
        await pilot.press(*"stop")
        await settle(pilot)
        options = staged.screen.query_one(CommandList)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert not any("running turn" in prompt for prompt in prompts)
