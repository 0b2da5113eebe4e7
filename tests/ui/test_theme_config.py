"""`ui.theme` in the config picks the dashboard's theme; a name no theme has is a config warning."""

from pathlib import Path

from sessions_tui.engine.config import parse_config
from sessions_tui.ui.theme import THEME
from ui_support import SIZE, demo_app, settle, until


def test_the_config_key_is_read() -> None:
    config, warnings = parse_config({"ui": {"theme": "nord"}})
    assert config.ui.theme == "nord" and warnings == []
    assert parse_config({})[0].ui.theme is None


async def test_a_configured_theme_is_the_dashboards(tmp_path: Path) -> None:
    app = demo_app(tmp_path / "state", {"ui": {"theme": "textual-light"}})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "textual-light"
        assert app.theme_variables["error"] != THEME.error  # the light theme's own colours are in force


async def test_an_unknown_theme_warns_and_keeps_the_dashboards_own(tmp_path: Path) -> None:
    app = demo_app(tmp_path / "state", {"ui": {"theme": "no-such-theme"}})
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await until(pilot, lambda: any("ui.theme" in n.message for n in app._notifications), "the warning")
        assert app.theme == THEME.name
        toast = next(n for n in app._notifications if "ui.theme" in n.message)
        assert "'no-such-theme'" in toast.message and "textual-light" in toast.message
