"""What a refusal says to the user (issue 28 item 19): what it means and what to do, never a
decision's number from docs/decisions.md."""

from __future__ import annotations

import re
from pathlib import Path

from openclaw_fake import FakeGateway
from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.engine.engine import Engine
from sessions_tui.ui.app import SessionsApp
from ui_support import SIZE, select, settle, until

GROUP = "agent:main:discord:group:123"
DECISION = re.compile(r"decisions\.md|\bD\d+\b")


async def test_item_19_a_send_into_an_openclaw_session_is_refused_in_words_with_what_to_do(tmp_path: Path):
    """The toast cited `docs/decisions.md D17`; it says what the refusal means and the way out."""
    gateway = FakeGateway(tmp_path / "openclaw")
    app = SessionsApp(LocalBackend(Engine(tmp_path / "state")), openclaw=tmp_path / "openclaw", steady=True)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await select(pilot, GROUP)
            app.main_screen.query_one("#message").value = "hello?"
            await pilot.press("ctrl+s")
            await until(pilot, lambda: any(n.title == "Why refused" for n in app._notifications), "the toast")
            [toast] = [str(n.message) for n in app._notifications if n.title == "Why refused"]
    finally:
        gateway.close()
    assert f"the session lives in OpenClaw ({tmp_path / 'openclaw'}): sessions-tui only mirrors it" in toast
    assert "point gateway.remote at that OpenClaw's gateway, or send from OpenClaw itself" in toast
    assert not DECISION.search(toast)
