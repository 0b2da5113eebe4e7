"""A hook that arrives while the dashboard is open is announced as a toast, and its session shows in the table."""

from __future__ import annotations

from sessions_tui.backend.values.vocabulary import HookRun
from sessions_tui.ui.widgets.session_table import SessionTable
from ui_support import demo_app, settle, until


async def test_a_hook_arriving_is_a_toast_and_a_row(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        admitted = await app.backend.run_hook(HookRun(message="the nightly import completed", name="Nightly import"))
        shown = admitted.session_key.removeprefix("agent:main:")
        await until(
            pilot,
            lambda: any(n.message == f"Nightly import → {shown}" for n in app._notifications),
            "the toast naming the hook and its session",
        )
        assert any(n.title == "Hook received" for n in app._notifications)
        table = app.main_screen.query_one(SessionTable)
        await until(pilot, lambda: admitted.session_key in table.rows_by_key, "the hook's session in the table")
