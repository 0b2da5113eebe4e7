"""Export from the dashboard (`E`): the box's format and path, the file written redacted in a
worker, a toast naming it; a path that cannot be written is said in the box."""

from __future__ import annotations

import json

import pytest

from scenes import DEV
from sessions_tui.ui.screens.dialogs.export import ExportScreen
from ui_support import SIZE, demo_app, select, settle, text_of, until

SECRET = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH"


async def _open_export(pilot, key: str) -> ExportScreen:
    await settle(pilot)
    await select(pilot, key)
    await pilot.press("E")
    await until(pilot, lambda: isinstance(pilot.app.screen, ExportScreen), "the export box")
    screen = pilot.app.screen
    assert isinstance(screen, ExportScreen)
    return screen


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A home directory of the test's own, with no downloads directory named or made."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_DOWNLOAD_DIR", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    return home


async def test_e_writes_the_open_session_redacted_and_names_the_file(tmp_path, monkeypatch, home):
    """Issue 28 item 18: the file went to the working directory (a checkout under `make run`) and the
    toast named it bare; now it goes to ~/Downloads, and the box and the toast say the whole path."""
    (home / "Downloads").mkdir()
    app = demo_app(tmp_path / "s")
    app.backend.engine.store.transcripts.append(
        DEV, {"role": "user", "content": f"my key is {SECRET} <script>x</script>"}
    )
    monkeypatch.chdir(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_export(pilot, DEV)
        path = screen.query_one("#export-path")
        assert path.value == "~/Downloads/agent_main_discord_group_dev.md"
        assert text_of(screen.query_one("#export-where")) == "writes ~/Downloads/agent_main_discord_group_dev.md"
        screen.query_one("#export-html").value = True  # choosing HTML moves the untouched path along
        await until(pilot, lambda: path.value == "~/Downloads/agent_main_discord_group_dev.html", "the path to follow")
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, ExportScreen), "the box to close")
        await until(pilot, lambda: any(n.title == "Export" for n in app._notifications), "the toast")
        [toast] = [n for n in app._notifications if n.title == "Export"]
        assert toast.message.endswith(" to ~/Downloads/agent_main_discord_group_dev.html")
    assert not list(tmp_path.glob("*.html"))  # nothing in the working directory
    page = (home / "Downloads" / "agent_main_discord_group_dev.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "&lt;script&gt;x&lt;/script&gt;" in page
    assert SECRET not in page and "sk-pro…EFGH" in page


async def test_jsonl_to_a_directory_writes_the_layout(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_export(pilot, DEV)
        screen.query_one("#export-jsonl").value = True
        await settle(pilot)
        screen.query_one("#export-path").value = f"{tmp_path}/out/"
        await pilot.press("enter")
        await until(pilot, lambda: not isinstance(app.screen, ExportScreen), "the box to close")
    [store] = (tmp_path / "out").glob("agents/main/sessions/sessions.json")
    assert list(json.loads(store.read_text())) == [DEV]


async def test_a_path_that_cannot_be_written_is_said_in_the_box(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_export(pilot, DEV)
        screen.query_one("#export-path").value = str(tmp_path / "missing" / "x.md")
        await pilot.press("enter")
        problem = screen.query_one("#export-problem")
        await until(pilot, lambda: "Not written" in text_of(problem), "the problem")
        assert "No such file or directory" in text_of(problem) and isinstance(app.screen, ExportScreen)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ExportScreen), "closed")


async def test_without_a_downloads_directory_the_export_goes_home_and_a_relative_path_is_shown_whole(
    tmp_path, monkeypatch, home
):
    """Issue 28 item 18: no downloads directory: the home directory; a relative path typed is said
    (in the box and the toast) as the whole path it is written to."""
    app = demo_app(tmp_path / "s")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_export(pilot, DEV)
        path = screen.query_one("#export-path")
        assert path.value == "~/agent_main_discord_group_dev.md"
        path.value = "dev.md"
        where = screen.query_one("#export-where")
        await until(pilot, lambda: text_of(where) == f"writes {work}/dev.md", "the whole path under the field")
        await pilot.press("enter")
        await until(pilot, lambda: any(n.title == "Export" for n in app._notifications), "the toast")
        [toast] = [n for n in app._notifications if n.title == "Export"]
        assert toast.message.endswith(f" to {work}/dev.md")
    assert (work / "dev.md").is_file()


async def test_the_default_file_name_of_a_key_holding_a_secret_is_made_from_it_redacted(tmp_path, home):
    app = demo_app(tmp_path / "s")
    key = "agent:main:slack:channel:xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx"
    app.backend.engine.store.sessions.create(key, {})
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_export(pilot, key)
        assert screen.query_one("#export-path").value == "~/agent_main_slack_channel_xoxb-1_uvwx.md"


async def test_the_path_offered_for_a_key_holding_a_secret_masks_it(tmp_path, home):
    """The file name is the key cut at 120 characters: redacted first, so no part of the token."""
    token = "ghp_" + "Q7w" * 12
    key = f"agent:main:hook:{'x' * 80}-{token}"
    app = demo_app(tmp_path / "s")
    app.backend.engine.store.sessions.ensure(key)
    app.backend.engine.store.transcripts.append(key, {"role": "user", "content": "hi"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_export(pilot, key)
        path = screen.query_one("#export-path").value
        assert path == f"~/agent_main_hook_{'x' * 80}-ghp_Q7_wQ7w.md"
        assert "Q7wQ7wQ7w" not in path
        title = text_of(screen.query_one("#export-title"))
        assert title == f"Export hook:{'x' * 80}-ghp_q7…wq7w"  # the dialog names it redacted too
