"""The dashboard following an OpenClaw (`sessions-tui --openclaw DIR`): live, and loud when it fails."""

from __future__ import annotations

import os
from pathlib import Path

from openclaw_fake import FakeGateway
from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.engine.engine import Engine
from sessions_tui.ui.app import SessionsApp
from sessions_tui.ui.widgets.message_view import MessageView
from ui_support import SIZE, select, settle, text_of, until

GROUP = "agent:main:discord:group:123"


async def test_the_dashboard_follows_openclaw_live_and_says_so(tmp_path: Path):
    gateway = FakeGateway(tmp_path / "openclaw")
    app = SessionsApp(LocalBackend(Engine(tmp_path / "state")), openclaw=tmp_path / "openclaw", steady=True)
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = app.main_screen
            header = screen.query_one("#status-header")
            await until(pilot, lambda: "⇄ OpenClaw" in text_of(header) and "10 sessions" in text_of(header), "follow")
            assert str(tmp_path / "openclaw") in str(header.tooltip)  # the header elides long paths
            await select(pilot, GROUP)
            pane = screen.query_one("#transcript")
            gateway.append(GROUP, {"role": "user", "content": [{"type": "text", "text": "dave: live from OpenClaw"}]})
            await until(
                pilot,
                lambda: any("dave: live from OpenClaw" in v.plain for v in pane.query(MessageView)),
                "the appended line",
            )

            composer = screen.query_one("#composer")
            composer.query_one("#message").value = "hello?"
            await pilot.press("ctrl+s")
            await until(pilot, lambda: "lives in OpenClaw" in text_of(composer.query_one("#outcome")), "the refusal")

            os.rename(tmp_path / "openclaw", tmp_path / "gone")
            await until(pilot, lambda: "OpenClaw follow failed" in text_of(header), "the failure")
            await settle(pilot)
            assert any("Following OpenClaw failed" in str(n.message) for n in app._notifications)
            os.rename(tmp_path / "gone", tmp_path / "openclaw")
            await until(pilot, lambda: "⇄ OpenClaw" in text_of(header), "the follow to recover")
    finally:
        gateway.close()


async def test_a_spawn_from_a_followed_openclaw_session_is_refused_with_the_true_reason(tmp_path: Path):
    """Issue 28 item 6: acting as OpenClaw's main, the spawn panel says the spawn is refused because
    the session is OpenClaw's (not later, by the send policy), and no child is made."""
    gateway = FakeGateway(tmp_path / "openclaw")
    engine = Engine(tmp_path / "state")
    app = SessionsApp(LocalBackend(engine), openclaw=tmp_path / "openclaw", steady=True)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            screen = app.main_screen
            header = screen.query_one("#status-header")
            await until(pilot, lambda: "10 sessions" in text_of(header), "follow")
            await pilot.press("s")
            screen.query_one("#spawn-task").value = "count the words in: a b"
            screen.query_one("#spawn-task").focus()
            await pilot.press("enter")
            outcome = screen.query_one("#spawn-outcome")
            await until(pilot, lambda: text_of(outcome).startswith("forbidden"), "the refusal")
            assert "is OpenClaw's session (mirrored read-only from" in text_of(outcome)
            assert "spawn from it in OpenClaw, or act as a session of this engine" in text_of(outcome)
            why = lambda: [str(n.message) for n in app._notifications if n.title == "Why refused"]  # noqa: E731
            await until(pilot, why, "the why toast")
            assert why()[0].startswith("openclaw: the requester is OpenClaw's session")
            assert engine.subagents.children(engine.main_session_key()) == []
    finally:
        gateway.close()
