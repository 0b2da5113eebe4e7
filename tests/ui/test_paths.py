"""Paths on screen show the user's home directory as `~`: the header, announcements, toasts."""

import pytest

from sessions_tui.ui.paths import home_relative
from ui_support import SIZE, demo_app, settle, text_of


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("/home/al", "~"),
        ("/home/al/.local/share/sessions-tui", "~/.local/share/sessions-tui"),
        ("transcript /home/al/a.jsonl • and /home/al/b", "transcript ~/a.jsonl • and ~/b"),
        ("/home/alice/x", "/home/alice/x"),  # another user's home that starts the same
        ("/srv/home/al/x", "/srv/home/al/x"),  # not at a path's start
        ("/tmp/x", "/tmp/x"),
    ],
)
def test_home_is_written_as_a_tilde(monkeypatch, text, shown):
    monkeypatch.setenv("HOME", "/home/al")
    assert home_relative(text) == shown


@pytest.mark.parametrize("home", ["/", ""])
def test_a_root_or_empty_home_changes_nothing(monkeypatch, home):
    monkeypatch.setenv("HOME", home)
    assert home_relative("/tmp/x") == "/tmp/x"


async def test_the_header_shows_the_state_under_home_as_a_tilde(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    app = demo_app(tmp_path / "home" / ".local" / "share" / "sessions-tui")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        header = app.main_screen.query_one("#status-header")
        assert "state ~/.local/share/sessions-tui " in text_of(header)
        assert str(tmp_path) not in text_of(header)
        assert str(tmp_path / "home") in str(header.tooltip)  # the tooltip has it whole
